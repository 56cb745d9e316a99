// gpu/exact/exact_pattern.h - host preparation of one pattern for the duel
// matcher (period, duel prefix, witness array) and the serial CPU matchers
// the seed compares against (KMP, brute force). Plain C++17.
#pragma once

#include "gpu/exact/exact_hd.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wm::gpu::exact {

// A pattern ready for the duel walk. Built in O(m) with the Z function.
struct PreparedPattern {
    std::string bytes;             // folded when nocase
    std::vector<uint16_t> witness; // size span (witness[0] = 0 unused)
    uint32_t period = 0;           // smallest period of P
    uint32_t duel_length = 0;      // ms: m (non-periodic) or 2p-1 (periodic)
    uint32_t span = 0;             // smallest period of the duel prefix
    bool nocase = false;

    uint32_t m() const { return static_cast<uint32_t>(bytes.size()); }
    bool periodic() const { return 2 * period <= m(); }
    // Host view (pointers into this object).
    PatternView view() const;
    // Upper bound on occurrences in a text of n bytes: occurrences of P are
    // at least `period` apart.
    uint64_t max_occurrences(uint64_t n) const;
};

// Throws std::invalid_argument for an empty pattern or one over 65535 bytes.
PreparedPattern prepare_pattern(const std::string &pattern, bool nocase);

// z[k] = length of the longest common prefix of s and s[k..] (z[0] = |s|).
std::vector<uint32_t> z_function(const uint8_t *s, uint32_t len);

// KMP failure function and serial search (the seed's CPU baseline). Positions
// (0-based starts) of every occurrence, overlapping ones included.
std::vector<uint32_t> kmp_failure(const std::string &pattern);
void kmp_search(const uint8_t *text, uint64_t n, const std::string &pattern,
                const std::vector<uint32_t> &failure, std::vector<uint32_t> &positions);

// Naive O(nm) search (test reference).
std::vector<uint32_t> brute_search(const uint8_t *text, uint64_t n, const std::string &pattern,
                                   bool nocase);

} // namespace wm::gpu::exact
