// gpu/ac_compile.h - host compiler: literals -> flat Aho-Corasick blob.
//
// Patterns go into one automaton over case-folded byte classes (CaseGroups::
// Folded, the default): every key is walked case-insensitively, and a hit of
// a case-sensitive pattern with letters is confirmed byte-exact (kPatExact).
// Or (CaseGroups::Split) into two groups, each its own automaton over its own
// byte classes: case-sensitive literals (plus nocase ones without ASCII
// letters) and nocase literals with letters, walked side by side. (One mixed
// automaton that kept case would have to expand every nocase letter into both
// case classes wherever a case-sensitive pattern separates them: 2^letters
// paths.) Within a group: trie over byte classes, states renumbered
// breadth-first (children in class order, so the numbering is canonical),
// failure links, flattened output lists (own + inherited). The BFS-first
// num_dense states get full DFA rows (failure transitions folded in); deeper
// states keep only their trie children plus a failure link, which bounds the
// table for large rule sets (see gpu/README.md for the ET Open numbers).
#pragma once

#include "gpu/ac_blob.h"
#include "gpu/gpu_matcher.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace wm::gpu {

// How case-sensitive and nocase patterns share automata (see above).
enum class CaseGroups { Folded, Split };

struct AcCompileOptions {
    // Bytes of dense transition rows allowed across all groups; 0 keeps only the
    // root dense (exercises the sparse path in tests).
    size_t dense_budget_bytes = 24u << 20;
    // Trie depth limit: patterns longer than this enter the trie with their last
    // key_bytes bytes and are verified on a hit. Bounds the per-thread overlap.
    uint32_t key_bytes = 32;
    CaseGroups case_groups = CaseGroups::Folded;
    // Flag the covered steps of all-dense 32-bit rows (kCovered32, ac_blob.h);
    // off: the rows as before blob v10 (an A/B of the flag, bench_ac_kernel).
    bool covered_steps = true;
    // Flag the run targets of 32-bit groups (kRunStep32, ac_blob.h); off: an
    // A/B of the flag (bench_ac_kernel --run-steps 0) and the tests' reference.
    bool run_steps = true;
    // Split exact-case one-byte letter classes into case columns, for the
    // one-byte register (ac_case_columns.h). Off by default: on an H100 the
    // wider, reordered rows cost Count and Positions 4.5% on the full ET set
    // for no Set gain, and on an H200 they gained Set 0.9% (PERFORMANCE.md,
    // runs 277-278).
    bool case_columns = false;
    // A layout study (ac_case_columns.h, shift_and_pad_columns): the columns
    // past the one-byte ones rotated, and unused columns appended.
    uint32_t column_shift = 0, pad_columns = 0;
};

// Byte -> class map of one group. Bytes that every pattern position treats
// alike share a class; class ids are assigned in order of first byte value.
// Computed over the key bytes (the last key_bytes of each pattern).
struct ByteClasses {
    std::array<uint8_t, 256> map{};
    uint32_t count = 0;
};

// Classes over the effective byte sets of `patterns` (nocase letters accept
// both cases). `fold` is informational for the caller; folding comes from the
// patterns' nocase flags.
ByteClasses compute_byte_classes(const std::vector<const Literal *> &patterns,
                                 uint32_t key_bytes = UINT32_MAX);

struct AcGroupStats {
    uint32_t states = 0, classes = 0, dense_states = 0, patterns = 0, key_len = 0;
    bool fold = false;
    uint64_t dense_bytes = 0, sparse_bytes = 0, output_entries = 0;
    uint64_t covered_steps = 0; // dense entries flagged kCovered32
    uint64_t run_targets = 0;   // states whose entries carry kRunStep32
    uint32_t one_byte_columns = 0, case_split_classes = 0; // the one-byte register's columns (ac_case_columns.h)
};

struct AcBlob {
    std::vector<uint8_t> bytes; // 16-aligned sections, see ac_blob.h
    std::vector<AcGroupStats> groups;

    const BlobHeader &header() const { return *reinterpret_cast<const BlobHeader *>(bytes.data()); }
    AcView host_view() const { return make_ac_view(bytes.data(), bytes.data()); }
    std::string describe() const; // states, classes, table bytes, layout
};

// Throws std::invalid_argument for an empty pattern or one over 65535 bytes.
AcBlob compile_ac(const std::vector<Literal> &patterns, const AcCompileOptions &opts = {});

} // namespace wm::gpu
