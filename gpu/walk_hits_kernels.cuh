// gpu/walk_hits_kernels.cuh - kernels 1 (the walk) and 2 (the drain) of the
// Set study (walk_hits_model.h says what is modelled; bench_walk_hits runs them).
#pragma once

#include "gpu/ac_tuning.h"
#include "gpu/walk_hits_model.h"

#include <cub/block/block_scan.cuh>

namespace wm::gpu::study {

constexpr uint32_t kThreads = 256;
constexpr uint32_t kUnitTiles = 256;   // kernel 2: tiles per unit (one block at a time)
constexpr uint32_t kDrainSlots = 2048; // kernel 2: shared table of unit-relative keys
constexpr uint32_t kDrainProbes = 32;
constexpr uint32_t kEmptySlot = ~0u;
constexpr uint32_t kPatternBits = 15; // unit-relative key: payload delta << 15 | pattern

// Byte j (a constant once unrolled) of a tile held in four 16-byte registers.
__device__ inline uint32_t hit_tile_byte(const uint4 (&w)[kHitTile / 16], uint32_t j) {
    const uint4 &v = w[j / 16];
    const uint32_t word = (j & 15) < 4 ? v.x : (j & 15) < 8 ? v.y : (j & 15) < 12 ? v.z : v.w;
    return (word >> (8 * (j & 3))) & 0xffu;
}

// Kernel 1: a thread per 64-byte tile (raw bytes, the class map in shared
// memory), its run-out read from global memory; each Set hit is stored as
// one record in the tile's kHitSlots, the tile's count in counts[].
// STORE false: hits are counted, not stored (what the stores cost).
template <HitRows R, bool STORE = true>
__global__ void __launch_bounds__(kThreads)
    hits_kernel(HitRowsView r, const uint8_t *cmap_g, const uint8_t *raw, const uint64_t *starts, const uint8_t *runout,
                const uint32_t *depth_end_g, uint32_t key_len, uint32_t flag_words, size_t tiles, uint32_t *hits,
                uint32_t *counts) {
    __shared__ uint8_t cmap[256];
    __shared__ uint32_t depth_end[tuning::kKeyBytes + 1];
    extern __shared__ uint32_t s_flags[];
    for (uint32_t i = threadIdx.x; i < 256; i += kThreads) cmap[i] = cmap_g[i];
    for (uint32_t i = threadIdx.x; i <= key_len; i += kThreads) depth_end[i] = depth_end_g[i];
    if constexpr (R == HitRows::Narrow16B) {
        for (uint32_t i = threadIdx.x; i < flag_words; i += kThreads) s_flags[i] = r.flags2[i];
        r.flags2 = s_flags;
    }
    __syncthreads();
    const size_t stride = size_t{gridDim.x} * kThreads;
    for (size_t t = size_t{blockIdx.x} * kThreads + threadIdx.x; t < tiles; t += stride) {
        const uint4 *src = reinterpret_cast<const uint4 *>(raw + t * kHitTile);
        uint4 w[kHitTile / 16];
#pragma unroll
        for (uint32_t q = 0; q < kHitTile / 16; ++q) w[q] = __ldg(&src[q]);
        const uint64_t st = __ldg(&starts[t]);
        uint32_t *out = hits + t * kHitSlots;
        uint32_t s = 0, lp = 0, n = 0;
#pragma unroll
        for (uint32_t j = 0; j < kHitTile; ++j) {
            if (hit_byte<R>(r, (st >> j) & 1u, cmap[hit_tile_byte(w, j)], s, lp)) {
                if (STORE) out[n] = (s << kHitPosBits) | j;
                ++n;
            }
        }
        const uint32_t ro = __ldg(&runout[t]);
        for (uint32_t past = 0; past < ro && !hit_walk_done(depth_end, key_len, s, past); ++past)
            if (hit_byte<R>(r, false, cmap[__ldg(&raw[t * kHitTile + kHitTile + past])], s, lp)) {
                if (STORE) out[n] = (s << kHitPosBits) | (kHitTile + past);
                ++n;
            }
        counts[t] = n;
    }
}

// Kernel 2: per unit of 256 tiles, a block scans the tiles' counts, expands
// every record into keys (no checks: see walk_hits_model.h), dedupes them in
// a shared table and appends the distinct ones to out[]; a key that finds no
// slot goes straight to out[] (the host dedupes).
__device__ inline uint32_t drain_hash(uint32_t k) { return (k * 0x9E3779B1u) >> (32 - 11); }
static_assert(kDrainSlots == 1u << 11, "drain_hash gives 11 bits");

// Inserts (payload, pattern) into a unit's shared table (keys relative to the
// unit's first payload); a key that finds no slot goes straight to out[]
// (a duplicate at worst: the host dedupes).
__device__ inline void drain_insert(uint32_t *table, uint32_t payload, uint32_t unit_first, uint32_t pattern,
                                    unsigned long long *out, unsigned long long *out_n, size_t cap) {
    const uint32_t key = ((payload - unit_first) << kPatternBits) | pattern;
    uint32_t h = drain_hash(key);
    bool done = false;
    for (uint32_t probe = 0; probe < kDrainProbes && !done; ++probe, h = (h + 1) & (kDrainSlots - 1)) {
        const uint32_t old = table[h] == key ? key : atomicCAS(&table[h], kEmptySlot, key);
        done = old == kEmptySlot || old == key;
    }
    if (!done) {
        const unsigned long long at = atomicAdd(out_n, 1ull);
        if (at < cap) out[at] = hit_key(payload, pattern);
    }
}

// Appends the table's keys to out[] (one atomic per warp and round) and
// empties it. Block-collective: every thread of the block calls it.
__device__ inline void drain_flush(uint32_t *table, uint32_t unit_first, unsigned long long *out,
                                   unsigned long long *out_n, size_t cap) {
    const uint32_t lane = threadIdx.x & 31;
    for (uint32_t i = threadIdx.x; i < kDrainSlots; i += kThreads) {
        const uint32_t k = table[i];
        const bool ok = k != kEmptySlot;
        const uint32_t mask = __ballot_sync(~0u, ok);
        unsigned long long base = 0;
        if (lane == 0 && mask) base = atomicAdd(out_n, static_cast<unsigned long long>(__popc(mask)));
        base = __shfl_sync(~0u, base, 0) + __popc(mask & ((1u << lane) - 1));
        if (ok && base < cap) out[base] = hit_key(unit_first + (k >> kPatternBits), k & ((1u << kPatternBits) - 1));
        table[i] = kEmptySlot;
    }
}

__global__ void __launch_bounds__(kThreads)
    set_drain_kernel(AcGroupView g, const uint32_t *hits, const uint32_t *counts, const uint64_t *starts,
                     const uint32_t *first_payload, size_t tiles, unsigned long long *out, unsigned long long *out_n,
                     size_t cap) {
    using Scan = cub::BlockScan<uint32_t, kThreads>;
    __shared__ typename Scan::TempStorage scan_tmp;
    __shared__ uint32_t scan[kUnitTiles];
    __shared__ uint32_t table[kDrainSlots];
    static_assert(kUnitTiles == kThreads, "a thread per tile of the unit");
    for (uint32_t i = threadIdx.x; i < kDrainSlots; i += kThreads) table[i] = kEmptySlot;
    const size_t units = (tiles + kUnitTiles - 1) / kUnitTiles;
    for (size_t unit = blockIdx.x; unit < units; unit += gridDim.x) {
        const size_t t0 = unit * kUnitTiles, tile = t0 + threadIdx.x;
        const uint32_t c = tile < tiles ? __ldg(&counts[tile]) : 0;
        uint32_t x, total;
        Scan(scan_tmp).ExclusiveSum(c, x, total);
        scan[threadIdx.x] = x;
        const uint32_t first = __ldg(&first_payload[t0]);
        __syncthreads();
        const uint32_t rounds = (total + kThreads - 1) / kThreads; // every lane runs every round (append)
        for (uint32_t round = 0; round < rounds; ++round) {
            const uint32_t idx = round * kThreads + threadIdx.x;
            if (idx < total) {
                uint32_t lo = 0; // the last tile with scan <= idx
#pragma unroll
                for (uint32_t step = kUnitTiles / 2; step; step >>= 1)
                    if (scan[lo + step] <= idx) lo += step;
                const size_t at = t0 + lo;
                const uint32_t rec = __ldg(&hits[at * kHitSlots + (idx - scan[lo])]);
                const uint32_t s = rec >> kHitPosBits, j = rec & ((1u << kHitPosBits) - 1);
                const uint32_t payload = hit_payload(__ldg(&first_payload[at]), __ldg(&starts[at]), j);
                const uint32_t ob = __ldg(&g.out_off[s]), oe = __ldg(&g.out_off[s + 1]);
                for (uint32_t q = ob; q < oe; ++q)
                    drain_insert(table, payload, first, __ldg(&g.out_ids[q]) & kOutIdMask, out, out_n, cap);
            }
        }
        __syncthreads();
        drain_flush(table, first, out, out_n, cap);
        __syncthreads();
    }
}

} // namespace wm::gpu::study
