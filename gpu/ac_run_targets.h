// gpu/ac_run_targets.h - the run targets of a group (kRunStep32, ac_blob.h):
// states whose trie string is one class repeated, which a run of one byte
// walks through and stays on.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace wm::gpu {

// Per state of a trie (kids[s]: (class, child) pairs; ids breadth-first, 0
// the root): whether its string is one class repeated, b^d with d >= 1.
std::vector<bool> run_string_states(const std::vector<std::vector<std::pair<uint8_t, uint32_t>>> &kids);

// The window a run target's step needs (BlobHeader::run_window, run_min_end),
// over the outputs of every run target.
struct RunWindow {
    uint32_t window = 0;  // longest output + 1 (0: no run target)
    uint32_t min_end = 0; // highest lower bound on a match's end (pat_lo)

    // Adds one output of a run target: its pattern's length and pat_lo.
    void add(uint32_t len, uint32_t lo) {
        window = len + 1 > window ? len + 1 : window;
        min_end = lo > min_end ? lo : min_end;
    }
};

} // namespace wm::gpu
