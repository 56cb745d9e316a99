// gpu/gram_filter_model.h - a study, not used by the matcher: the literals
// found by a filter on short windows ("grams") and a check of each pass,
// instead of by an automaton walk. The per-byte loop of the automaton makes
// one dependent table load per byte from 130 MB of rows (PERFORMANCE.md runs
// 240-245: at most 255-286 GB/s on an H200 with nothing else in the loop);
// here each byte costs four independent bit tests in tables of 48-144 KB
// that live in shared memory, and only the few passes (about 4 per 100 bytes
// of real traffic) touch global memory. Measured: the filter alone no faster
// than the walk, the checks far slower (PERFORMANCE.md runs 313-315).
//
// Literals covered: every literal of two bytes or more that is not one byte
// repeated (those, and the one-byte literals, have their own pass:
// run_literals_model.h). Each literal gets a window:
//  - 2-byte literals: their two bytes, folded ("pair"); a bitmap of the
//    65,536 pairs says which are literals;
//  - 3-byte literals: their folded bytes ("triple"); a bitmap of 65,536 bits
//    over a hash of the triple says which may be;
//  - longer ones: the 4 folded bytes ("quad") of the literal that were rarest
//    in training traffic; a Bloom filter (two bits per quad) says which may.
// A pass at text position i looks its window's literals up (a direct table
// for pairs, open-addressed ones for triples and quads) and compares each
// literal whole (exact or folded case) where its window would put it, within
// the payload. Set semantics: each (payload, literal) found is reported; a lane
// skips a report equal to its last one.
//
// The per-byte logic is shared by bench_gram_filter's kernels and its CPU
// model (__host__ __device__); tests/gpu checks the model against a naive
// search.
#pragma once

#include "gpu/ac_walk.cuh" // fold_ascii, wm_ld, WM_HD

#include <cstdint>

namespace wm::gpu::study {

constexpr uint32_t kPairWords = 65536 / 32;   // bitmap of folded byte pairs
constexpr uint32_t kTripleWords = 65536 / 32; // bitmap over a 16-bit hash of folded triples

struct GramAtt {
    uint32_t lit; // literal index in the tables
    uint32_t pos; // offset of its window in the literal
};

// The tables, on the host or the device.
struct GramView {
    const uint32_t *pair_bits;   // kPairWords
    const uint32_t *bloom;       // 1 << (32 - bloom_shift - 5) words
    uint32_t bloom_shift;        // 32 - log2(bloom bits)
    const uint32_t *triple_bits; // kTripleWords
    const uint32_t *pair_range;  // 65536 entries: first att << 8 | count
    // Open-addressed tables of triples (index 0) and quads (1): the key, its
    // first att << 8 | count (0: an empty slot), 32 - log2(slots).
    const uint32_t *keys[2];
    const uint32_t *range[2];
    uint32_t shift[2];
    const GramAtt *atts;
    const uint32_t *lit_off; // into lit_bytes
    const uint32_t *lit_len; // length << 1 | nocase
    const uint8_t *lit_bytes;
};

WM_HD inline uint32_t gram_hash1(uint32_t g, uint32_t shift) { return (g * 0x9E3779B1u) >> shift; }
WM_HD inline uint32_t gram_hash2(uint32_t g, uint32_t shift) { return ((g ^ (g >> 15)) * 0x85EBCA77u) >> shift; }
WM_HD inline uint32_t triple_hash(uint32_t t) { return (t * 0x9E3779B1u) >> 16; }
// Bitmaps live in shared memory in the kernels: a plain load.
WM_HD inline bool gram_bit(const uint32_t *bits, uint32_t i) { return (bits[i >> 5] >> (i & 31)) & 1u; }

// A folded pair as the walk holds it: first byte in bits 0-7.
WM_HD inline uint32_t gram_pair_key(uint32_t first, uint32_t second) {
    return fold_ascii(first) | fold_ascii(second) << 8;
}

// Calls cand(start, kind, key) for every filter pass of a window that starts
// in [0, kTile) of a tile: kind 0 a pair, 1 a quad, 2 a triple (key: the
// folded window, little-endian). byte(j), j in [0, kTile + 3), reads the tile
// and the 3 bytes after it; windows are tested across payload starts, the check
// sorts those out.
#ifdef __CUDACC__
#pragma nv_exec_check_disable // host lambdas on the host, device ones in the kernels
#endif
template <uint32_t kTile, typename Byte, typename Cand>
WM_HD inline void gram_filter_tile(const GramView &v, const uint32_t *pair_bits, const uint32_t *triple_bits,
                                   const uint32_t *bloom, Byte byte, Cand cand) {
    uint32_t g = 0;
#ifdef __CUDACC__
#pragma unroll 4
#endif
    for (uint32_t j = 0; j < kTile + 3; ++j) {
        g = (g >> 8) | uint32_t{fold_ascii(static_cast<uint8_t>(byte(j)))} << 24;
        if (j >= 1 && j <= kTile && gram_bit(pair_bits, g >> 16)) cand(j - 1, 0u, g >> 16);
        if (j >= 2 && j <= kTile + 1 && gram_bit(triple_bits, triple_hash(g >> 8))) cand(j - 2, 2u, g >> 8);
        if (j >= 3 && gram_bit(bloom, gram_hash1(g, v.bloom_shift)) && gram_bit(bloom, gram_hash2(g, v.bloom_shift)))
            cand(j - 3, 1u, g);
    }
}

// The atts of a pass (first << 8 | count; 0: none).
WM_HD inline uint32_t gram_range(const GramView &v, uint32_t kind, uint32_t key) {
    if (kind == 0) return wm_ld(&v.pair_range[key]);
    const uint32_t t = kind == 2 ? 0 : 1, mask = (1u << (32 - v.shift[t])) - 1;
    for (uint32_t slot = gram_hash1(key, v.shift[t]);; slot = (slot + 1) & mask) {
        const uint32_t r = wm_ld(&v.range[t][slot]);
        if (r == 0 || wm_ld(&v.keys[t][slot]) == key) return r;
    }
}

// Checks a pass whose window starts at text position `start`, in the payload
// [pb, pe): calls hit(lit) for each literal of its window found there.
// text(i) reads the text at absolute position i.
#ifdef __CUDACC__
#pragma nv_exec_check_disable // as above
#endif
template <typename Text, typename Hit>
WM_HD inline void gram_check(const GramView &v, Text text, uint64_t start, uint32_t kind, uint32_t key, uint64_t pb,
                             uint64_t pe, Hit hit) {
    const uint32_t r = gram_range(v, kind, key);
    for (uint32_t a = r >> 8, end = (r >> 8) + (r & 0xffu); a < end; ++a) {
        const GramAtt at{wm_ld(&v.atts[a].lit), wm_ld(&v.atts[a].pos)};
        if (start < pb + at.pos) continue;
        const uint64_t s = start - at.pos;
        const uint32_t ln = wm_ld(&v.lit_len[at.lit]), len = ln >> 1;
        if (s + len > pe) continue;
        const uint8_t *lb = v.lit_bytes + wm_ld(&v.lit_off[at.lit]);
        bool ok = true;
        for (uint32_t k = 0; k < len && ok; ++k) {
            const uint8_t t = static_cast<uint8_t>(text(s + k)), w = wm_ld(&lb[k]);
            ok = (ln & 1u) ? fold_ascii(t) == fold_ascii(w) : t == w;
        }
        if (ok) hit(at.lit);
    }
}

} // namespace wm::gpu::study
