// gpu/ac_case_columns.h - the columns of a group's dense rows. Usually one
// per byte class. In a case-folded group, a letter class whose one-byte
// patterns are all exact-case and unbounded (ET Open: `x` and `z`) is split
// into a lower- and an upper-case column with the same transitions: the
// automaton does not grow, and each column's one-byte literals need no case
// check, so the Set walk's one-byte register reports them (ac_blob.h).
#pragma once

#include "gpu/ac_blob.h"

#include <array>
#include <cstdint>
#include <vector>

namespace wm::gpu {

struct ColumnPlan {
    std::array<uint8_t, 256> map{}; // byte -> column (the blob's class map)
    std::vector<uint8_t> col_class; // column -> the automaton's class
    uint32_t one_byte_columns = 0;  // columns [0, n): the one-byte register's classes
    uint32_t split_classes = 0;     // classes split into two columns
    uint32_t pad = 0;               // unused columns after the others (a layout study)
    uint32_t columns() const { return static_cast<uint32_t>(col_class.size()) + pad; }
};

// A one-byte pattern of the group, as the planner needs it.
struct OneByteLiteral {
    uint8_t byte;
    bool nocase, bounded; // bounded: an offset or depth
};

// One column per class: `class_map` (byte -> class, `classes` classes) as is.
ColumnPlan identity_columns(const std::array<uint8_t, 256> &class_map, uint32_t classes, uint32_t one_byte_classes);

// Splits the letter classes at or past `one_byte_classes` whose one-byte
// patterns (`lits`: every one-byte pattern of the group) are all exact-case
// and unbounded, in class order while the one-byte columns stay within
// kMaxOneByteClasses and their literals within kMaxOneByteLiterals
// (`listed`: the literals of classes [0, one_byte_classes)). Columns: the
// one-byte classes, then each split class's lower and upper column, then
// the other classes in order.
ColumnPlan plan_case_columns(const std::array<uint8_t, 256> &class_map, uint32_t classes, uint32_t one_byte_classes,
                             uint32_t listed, const std::vector<OneByteLiteral> &lits);

// A layout study (bench_ac_kernel --column-shift, --pad-columns): the
// columns past the one-byte ones rotated by `shift` places, and `pad`
// unused columns appended, so the rows' entries group into sectors
// differently, or the rows widen, with the automaton unchanged.
ColumnPlan shift_and_pad_columns(ColumnPlan p, uint32_t shift, uint32_t pad);

} // namespace wm::gpu
