// gpu/exact/exact_hd.h - per-thread logic of the duel (witness) matcher,
// shared by the CUDA kernels and the CPU reference (compiled by nvcc and g++).
//
// Terms. P is the pattern (m bytes, case-folded when nocase). The duel prefix
// S = P[0, ms) is P itself when P is non-periodic (smallest period > m/2), and
// P[0, 2p-1) when P has period p <= m/2: S then has smallest period exactly p
// and is non-periodic. `span` is S's smallest period: for every shift
// d in [1, span) the witness w[d] is an index x in [d, ms) with S[x] != S[x-d].
// Two candidates i < j with j - i < span cannot both be occurrences of S (so
// of P): reading text[i + w[j-i]] once eliminates one of them (the duel).
// Every occurrence of P is an occurrence of S, so a group of candidates that
// spans fewer than `span` positions keeps at most one survivor, which is then
// verified against all m bytes of P.
#pragma once

#include "gpu/exact/exact_tuning.h"

#include <cstdint>

#if defined(__CUDACC__)
#define WM_EXACT_HD __host__ __device__ __forceinline__
#else
#define WM_EXACT_HD inline
#endif

namespace wm::gpu::exact {

constexpr uint32_t kNone = 0xFFFFFFFFu; // "no survivor"

// One pattern as the kernels see it; every pointer is in the walker's address
// space (device pointers on the GPU).
struct PatternView {
    const uint8_t *bytes;    // m bytes, ASCII-folded to lower case when nocase
    const uint16_t *witness; // witness[d] for d in [1, span); witness[0] unused
    uint32_t m;              // pattern length, 1..65535
    uint32_t span;           // smallest period of the duel prefix (>= 1)
    uint32_t nocase;         // 1: fold text bytes A-Z before comparing
};

// How a warp covers positions for one pattern: each lane reduces `items`
// consecutive candidates sequentially, then groups of `lanes` lanes reduce
// their survivors by a shuffle tree. items * lanes <= span keeps every duel
// inside one period; both are powers of two (tile arithmetic stays exact).
struct DuelShape {
    uint32_t items;
    uint32_t lanes;
};

WM_EXACT_HD DuelShape duel_shape(uint32_t span) {
    uint32_t items = 1;
    while (items * 2 <= tuning::kMaxItems && items * 2 <= span) items *= 2;
    uint32_t lanes = 1;
    while (lanes * 2 <= tuning::kWarpLanes && items * lanes * 2 <= span) lanes *= 2;
    return DuelShape{items, lanes};
}

WM_EXACT_HD uint8_t fold_byte(uint8_t c) {
    return static_cast<uint8_t>(static_cast<uint8_t>(c - 'A') < 26u ? c | 0x20 : c);
}

WM_EXACT_HD bool byte_matches(uint8_t text_byte, uint8_t pattern_byte, uint32_t nocase) {
    return (nocase ? fold_byte(text_byte) : text_byte) == pattern_byte;
}

// The duel between candidates i < j (j - i < span); text is indexed like i, j.
// Candidate i needs text[i+x] == P[x]; j needs text[i+x] == P[x-d] != P[x].
WM_EXACT_HD uint32_t duel(const uint8_t *text, const PatternView &p, uint32_t i, uint32_t j) {
    const uint32_t x = p.witness[j - i];
    return byte_matches(text[i + x], p.bytes[x], p.nocase) ? i : j;
}

// Survivor of two optional candidates a < b (kNone = absent).
WM_EXACT_HD uint32_t duel_or_pass(const uint8_t *text, const PatternView &p, uint32_t a,
                                  uint32_t b) {
    if (a == kNone) return b;
    if (b == kNone) return a;
    return duel(text, p, a, b);
}

// Sequential duels over candidates [first, first + count): the one survivor.
WM_EXACT_HD uint32_t reduce_run(const uint8_t *text, const PatternView &p, uint32_t first,
                                uint32_t count) {
    if (count == 0) return kNone;
    uint32_t s = first;
    for (uint32_t c = first + 1; c < first + count; ++c) s = duel(text, p, s, c);
    return s;
}

// Full comparison of P at position i (caller guarantees i + m <= text length).
WM_EXACT_HD bool verify_at(const uint8_t *text, const PatternView &p, uint32_t i) {
    for (uint32_t k = 0; k < p.m; ++k)
        if (!byte_matches(text[i + k], p.bytes[k], p.nocase)) return false;
    return true;
}

// Valid candidate positions of a text of n bytes: [0, n - m].
WM_EXACT_HD uint32_t valid_positions(uint64_t n, uint32_t m) {
    return n >= m ? static_cast<uint32_t>(n - m + 1) : 0u;
}

} // namespace wm::gpu::exact
