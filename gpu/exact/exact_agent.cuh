// gpu/exact/exact_agent.cuh - block-level algorithm of the duel matcher:
// stage a tile of text (plus the m-1 halo) in shared memory with 16-byte
// loads, reduce each lane's run of candidates by sequential duels, reduce
// groups of lanes by an xor-shuffle duel tree, verify each group survivor
// with the whole warp (32 pattern bytes per step), and hand the result to an
// emitter. Per-thread logic lives in exact_hd.h (shared with the CPU walk).
#pragma once

#include "gpu/exact/exact_hd.h"
#include "gpu/exact/exact_tuning.h"

namespace wm::gpu::exact {

constexpr unsigned kFullMask = 0xFFFFFFFFu;

// Shared bytes a block needs for its text tile: tile + halo + 16 alignment slack.
__host__ __device__ constexpr uint32_t stage_bytes(uint32_t max_m) {
    return ((tuning::kTilePositions + max_m - 1 + 16) + 15) / 16 * 16;
}

// Copies d_text[tile_base, min(n, tile_base + len)) to smem. Returns the
// offset of tile_base inside smem (the copy starts at a 16-byte boundary;
// d_text must be 16-byte aligned).
__device__ __forceinline__ uint32_t stage_text(uint8_t *smem, const uint8_t *__restrict__ d_text,
                                               uint64_t n, uint64_t tile_base, uint32_t len) {
    const uint64_t a0 = tile_base & ~uint64_t{15};
    const uint64_t end = min(n, tile_base + len);
    const uint32_t total = end > a0 ? static_cast<uint32_t>(end - a0) : 0;
    const uint32_t vecs = total / 16;
    const uint4 *src = reinterpret_cast<const uint4 *>(d_text + a0);
    uint4 *dst = reinterpret_cast<uint4 *>(smem);
    for (uint32_t v = threadIdx.x; v < vecs; v += blockDim.x) dst[v] = src[v];
    for (uint32_t b = vecs * 16 + threadIdx.x; b < total; b += blockDim.x) smem[b] = d_text[a0 + b];
    return static_cast<uint32_t>(tile_base - a0);
}

// Whole-warp comparison of P at text[c]: lane k compares bytes k, k+32, ...
__device__ __forceinline__ bool warp_verify(const uint8_t *t, const PatternView &p, uint32_t c) {
    const uint32_t lane = threadIdx.x % tuning::kWarpLanes;
    for (uint32_t base = 0; base < p.m; base += tuning::kWarpLanes) {
        const uint32_t k = base + lane;
        const bool ok = k >= p.m || byte_matches(t[c + k], p.bytes[k], p.nocase);
        if (!__all_sync(kFullMask, ok)) return false;
    }
    return true;
}

// What a pass produces for one lane: its run [first, first + items) (relative
// to the tile), its group's survivor (relative, kNone if none) and, unless
// kVerify is false, whether that survivor is an occurrence.
struct LaneResult {
    uint32_t first;
    uint32_t items;
    uint32_t survivor;
    bool leader;  // first lane of its group
    bool matched; // group survivor verified (always false without verification)
};

// One tile for one pattern. t[r] = text[tile_base + r] for every r the walk
// reads; valid = candidate positions of the tile (relative, <= tile size).
// Emit is called once per lane per pass, by every lane (warp-uniform loop).
template <bool kVerify, class Emit>
__device__ __forceinline__ void duel_tile(const uint8_t *t, const PatternView &p, uint32_t valid,
                                          Emit &emit) {
    const DuelShape sh = duel_shape(p.span);
    const uint32_t lane = threadIdx.x % tuning::kWarpLanes;
    const uint32_t passes = tuning::kTilePositions / (tuning::kBlockThreads * sh.items);
    for (uint32_t pass = 0; pass < passes; ++pass) {
        const uint32_t first = (pass * tuning::kBlockThreads + threadIdx.x) * sh.items;
        const uint32_t cnt = first < valid ? min(sh.items, valid - first) : 0u;
        uint32_t s = reduce_run(t, p, first, cnt);
        for (uint32_t off = 1; off < sh.lanes; off <<= 1) {
            const uint32_t o = __shfl_xor_sync(kFullMask, s, off);
            const bool upper = lane & off;
            s = duel_or_pass(t, p, upper ? o : s, upper ? s : o);
        }
        const bool leader = (lane & (sh.lanes - 1)) == 0;
        bool matched = false;
        if (kVerify) {
            uint32_t todo = __ballot_sync(kFullMask, leader && s != kNone);
            uint32_t hits = 0;
            while (todo) {
                const int src = __ffs(todo) - 1;
                todo &= todo - 1;
                const uint32_t c = __shfl_sync(kFullMask, s, src);
                if (warp_verify(t, p, c)) hits |= 1u << src;
            }
            matched = (hits >> (lane & ~(sh.lanes - 1))) & 1u;
        }
        emit(LaneResult{first, sh.items, s, leader, matched});
    }
}

} // namespace wm::gpu::exact
