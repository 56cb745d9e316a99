// gpu/seed_ac/seed_ac_walk.h - the per-thread logic of every seed_ac kernel,
// compiled for host and device (WM_SEED_HD): the text layout and the walk of
// one thread's tile through the dense DFA.
//
// Text layout ("words"): characters packed little-endian into 32-bit words,
// kBits bits each (8: plain bytes, 4/2/1: the study's compact text), so
// character i lives in word i / (32 / kBits) at bit (i % (32 / kBits)) * kBits.
// A byte array of characters read as uint32 words is the kBits = 8 layout.
#pragma once

#include "gpu/seed_ac/seed_ac_hd.h"

#include <cstdint>

namespace wm::seed_ac {

// Smallest packed width (1, 2, 4 or 8 bits) that holds `alphabet` symbols.
WM_SEED_HD int bits_for_alphabet(int alphabet) {
    return alphabet <= 2 ? 1 : alphabet <= 4 ? 2 : alphabet <= 16 ? 4 : 8;
}

// 32-bit words that hold `length` characters of `bits` bits each.
WM_SEED_HD uint64_t words_for(uint64_t length, int bits) {
    const uint64_t per = 32u / static_cast<unsigned>(bits);
    return (length + per - 1) / per;
}

// One thread's work: characters [begin, end) of the text, starting from the
// root. begin must be a multiple of 32 / kBits (tiles are word aligned).
//   words(w)  -> uint32 word w of the text (global memory, shared memory, host)
//   count(s)  -> called with every state entered, in text order
// Returns the last state, for tests.
//
// Tiling rule shared by all kernels and the CPU walk: the thread that owns
// tile [t*T, t*T+T) walks to min(t*T + T + M - 1, L). An occurrence of a
// length-M pattern is reached at depth M only from a walk that started at or
// before its first character, so it is counted exactly once: by the tile
// holding that first character. (Hence equal-length patterns, as in the study.)
template <int kBits, class Words, class Count>
WM_SEED_HD int32_t walk_tile(const int32_t *next, int alphabet, Words words, uint64_t begin,
                             uint64_t end, Count count) {
    constexpr uint32_t kPer = 32u / kBits;
    constexpr uint32_t kMask = (kBits == 32) ? 0xFFFFFFFFu : ((1u << kBits) - 1u);
    int32_t state = 0;
    uint64_t i = begin;
    for (uint64_t w = begin / kPer; i < end; ++w) {
        uint32_t word = words(w);
        // A full word needs no bound check per character: the common case.
        if (i + kPer <= end) {
#pragma unroll
            for (uint32_t j = 0; j < kPer; ++j) {
                state = next[state * alphabet + static_cast<int32_t>(word & kMask)];
                count(state);
                word >>= kBits;
            }
            i += kPer;
        } else {
            for (; i < end; ++i) {
                state = next[state * alphabet + static_cast<int32_t>(word & kMask)];
                count(state);
                word >>= kBits;
            }
        }
    }
    return state;
}

} // namespace wm::seed_ac
