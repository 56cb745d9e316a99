// gpu/ac_case_columns.cpp - see ac_case_columns.h.
#include "gpu/ac_case_columns.h"

namespace wm::gpu {

namespace {

bool is_letter(uint32_t b) { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z'); }

} // namespace

ColumnPlan identity_columns(const std::array<uint8_t, 256> &class_map, uint32_t classes, uint32_t one_byte_classes) {
    ColumnPlan p;
    p.map = class_map;
    for (uint32_t c = 0; c < classes; ++c) p.col_class.push_back(static_cast<uint8_t>(c));
    p.one_byte_columns = one_byte_classes;
    return p;
}

ColumnPlan plan_case_columns(const std::array<uint8_t, 256> &class_map, uint32_t classes, uint32_t one_byte_classes,
                             uint32_t listed, const std::vector<OneByteLiteral> &lits) {
    // Candidates: a letter's two cases (what a class of a one-byte letter
    // pattern holds in a folded group), with at least one one-byte pattern
    // and none nocase or bounded.
    std::vector<bool> letters(classes, true);
    std::vector<uint32_t> bytes(classes, 0);
    for (uint32_t b = 0; b < 256; ++b) letters[class_map[b]] = letters[class_map[b]] && is_letter(b), ++bytes[class_map[b]];
    std::vector<int> state(classes, 0); // 0: no one-byte pattern, 1: all exact and unbounded, -1: not
    std::vector<uint32_t> count(classes, 0);
    for (const OneByteLiteral &l : lits) {
        const uint32_t c = class_map[l.byte];
        state[c] = (!l.nocase && !l.bounded && state[c] >= 0) ? 1 : -1;
        ++count[c];
    }
    std::vector<bool> split(classes, false);
    uint32_t cols = one_byte_classes, split_n = 0;
    for (uint32_t c = one_byte_classes; c < classes; ++c)
        if (letters[c] && bytes[c] == 2 && state[c] == 1 && cols + 2 <= kMaxOneByteClasses && listed + count[c] <= kMaxOneByteLiterals) {
            split[c] = true, cols += 2, listed += count[c], ++split_n;
        }
    if (split_n == 0) return identity_columns(class_map, classes, one_byte_classes);
    ColumnPlan p;
    std::vector<uint8_t> lower(classes, 0), upper(classes, 0), plain(classes, 0);
    for (uint32_t c = 0; c < one_byte_classes; ++c) plain[c] = static_cast<uint8_t>(p.col_class.size()), p.col_class.push_back(c);
    for (uint32_t c = one_byte_classes; c < classes; ++c)
        if (split[c]) {
            lower[c] = static_cast<uint8_t>(p.col_class.size()), p.col_class.push_back(static_cast<uint8_t>(c));
            upper[c] = static_cast<uint8_t>(p.col_class.size()), p.col_class.push_back(static_cast<uint8_t>(c));
        }
    p.one_byte_columns = static_cast<uint32_t>(p.col_class.size());
    for (uint32_t c = one_byte_classes; c < classes; ++c)
        if (!split[c]) plain[c] = static_cast<uint8_t>(p.col_class.size()), p.col_class.push_back(static_cast<uint8_t>(c));
    for (uint32_t b = 0; b < 256; ++b) {
        const uint32_t c = class_map[b];
        p.map[b] = !split[c] ? plain[c] : (b >= 'a' ? lower[c] : upper[c]);
    }
    p.split_classes = split_n;
    return p;
}

ColumnPlan shift_and_pad_columns(ColumnPlan p, uint32_t shift, uint32_t pad) {
    const uint32_t first = p.one_byte_columns, n = static_cast<uint32_t>(p.col_class.size()) - first;
    if (n > 0 && shift % n != 0) {
        auto moved = [&](uint32_t col) { return col < first ? col : first + (col - first + shift) % n; };
        std::vector<uint8_t> cls(p.col_class.size());
        for (uint32_t col = 0; col < p.col_class.size(); ++col) cls[moved(col)] = p.col_class[col];
        p.col_class = std::move(cls);
        for (uint8_t &m : p.map) m = static_cast<uint8_t>(moved(m));
    }
    p.pad += pad;
    return p;
}

} // namespace wm::gpu
