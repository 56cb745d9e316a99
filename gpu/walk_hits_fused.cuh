// gpu/walk_hits_fused.cuh - kernel 3 of the Set study (walk_hits_model.h):
// the lean walk of kernel 1 with the drain of kernel 2 fused in, as the
// matcher's kernels fuse theirs. A thread walks one 64-byte tile from
// registers, fully unrolled; a Set hit goes into its warp's queue in shared
// memory (one ballot per step); every 8 steps the warp drains the queue when
// another 8 steps could overflow it, spreading the entries' output items
// over its lanes into the block's shared key table, flushed once per unit of
// 256 tiles. Same keys as kernels 1 + 2.
// STATES: a hit on a plain state (outputs that hold wherever it is reached
// in a payload) is not queued: its (payload, state) goes into a second
// shared table in the walk itself (one read, a CAS when new), and the unit's
// distinct (payload, state) keys are expanded into pattern keys at the unit's
// end; only other hits, or plain ones that find no slot, take the queue.
#pragma once

#include "gpu/walk_hits_kernels.cuh"

namespace wm::gpu::study {

constexpr uint32_t kFusedQueue = 512; // entries per warp
constexpr uint32_t kFusedCheck = 8;   // steps between drain checks
static_assert(kFusedQueue >= kFusedCheck * 32 && kFusedQueue >= 15 * 32, "a check interval, or a run-out, fits");
constexpr uint32_t kFusedStateShift = 12; // queue entry: state << 12 | lane << 7 | byte of the tile
constexpr uint32_t kStateSlots = 2048;      // STATES: the (payload, plain state) table
constexpr uint32_t kStateProbes = 4;
constexpr uint32_t kStateBits = 18;         // STATES: key = payload delta << 18 | state

struct FusedOut {
    unsigned long long *keys, *nkeys;
    size_t cap;
};

// Drains the warp's n queued entries into the block's table: per round of 32
// entries, each lane reads one entry's output list bounds, then the round's
// items go one per lane (the entry found by binary search over the lanes'
// scan). fp, st: this lane's tile's first payload and payload starts (the
// owner of an entry lends them by shuffle). Warp-collective.
__device__ __noinline__ void fused_drain(const uint32_t *q, uint32_t n, uint32_t fp, unsigned long long st,
                                         uint32_t unit_first, const uint32_t *out_off, const uint32_t *out_ids,
                                         uint32_t *table, FusedOut o) {
    const uint32_t lane = threadIdx.x & 31;
    __syncwarp();
    for (uint32_t r = 0; r < n; r += 32) {
        const bool valid = r + lane < n;
        const uint32_t e = valid ? q[r + lane] : 0;
        const uint32_t s = e >> kFusedStateShift, owner = (e >> kHitPosBits) & 31, j = e & ((1u << kHitPosBits) - 1);
        const uint32_t fpo = __shfl_sync(~0u, fp, owner);
        const unsigned long long sto = __shfl_sync(~0u, st, owner);
        const uint32_t payload = hit_payload(fpo, sto, j);
        uint32_t ob = 0, cnt = 0;
        if (valid) {
            ob = __ldg(&out_off[s]);
            cnt = __ldg(&out_off[s + 1]) - ob;
        }
        uint32_t incl = cnt;
#pragma unroll
        for (uint32_t d = 1; d < 32; d <<= 1) {
            const uint32_t t = __shfl_up_sync(~0u, incl, d);
            if (lane >= d) incl += t;
        }
        const uint32_t total = __shfl_sync(~0u, incl, 31), first = incl - cnt;
        for (uint32_t base = 0; base < total; base += 32) {
            const uint32_t jj = base + lane;
            uint32_t k = 0; // the entry owning item jj: the first lane with incl > jj
#pragma unroll
            for (uint32_t step = 16; step; step >>= 1)
                if (__shfl_sync(~0u, incl, k + step - 1) <= jj) k += step;
            const uint32_t item = jj - __shfl_sync(~0u, first, k) + __shfl_sync(~0u, ob, k);
            const uint32_t pay = __shfl_sync(~0u, payload, k);
            if (jj < total) drain_insert(table, pay, unit_first, __ldg(&out_ids[item]) & kOutIdMask, o.keys, o.nkeys, o.cap);
        }
    }
    __syncwarp();
}

// STATES: the state table's slot for key k.
__device__ inline uint32_t state_slot(uint32_t k) { return (k * 0x85EBCA6Bu) >> (32 - 11); }
static_assert(kStateSlots == 1u << 11, "state_slot gives 11 bits");

template <HitRows R, bool STATES>
__global__ void __launch_bounds__(kThreads)
    fused_set_kernel(HitRowsView r, const uint8_t *cmap_g, const uint8_t *raw, const uint64_t *starts,
                     const uint8_t *runout, const uint32_t *first_payload, const uint32_t *depth_end_g,
                     uint32_t key_len, size_t tiles, const uint32_t *out_off, const uint32_t *out_ids, FusedOut o) {
    __shared__ uint8_t cmap[256];
    __shared__ uint32_t depth_end[tuning::kKeyBytes + 1];
    __shared__ uint32_t queue[kThreads / 32][kFusedQueue];
    __shared__ uint32_t table[kDrainSlots];
    __shared__ uint32_t states[STATES ? kStateSlots : 1];
    for (uint32_t i = threadIdx.x; i < 256; i += kThreads) cmap[i] = cmap_g[i];
    if (STATES)
        for (uint32_t i = threadIdx.x; i < kStateSlots; i += kThreads) states[i] = kEmptySlot;
    for (uint32_t i = threadIdx.x; i <= key_len; i += kThreads) depth_end[i] = depth_end_g[i];
    for (uint32_t i = threadIdx.x; i < kDrainSlots; i += kThreads) table[i] = kEmptySlot;
    __syncthreads();
    const uint32_t lane = threadIdx.x & 31, lt = (1u << lane) - 1;
    uint32_t *q = queue[threadIdx.x >> 5];
    const size_t units = (tiles + kThreads - 1) / kThreads;
    for (size_t unit = blockIdx.x; unit < units; unit += gridDim.x) {
        const size_t t = unit * kThreads + threadIdx.x;
        const bool active = t < tiles;
        const size_t tt = active ? t : tiles - 1;
        const uint4 *src = reinterpret_cast<const uint4 *>(raw + tt * kHitTile);
        uint4 w[kHitTile / 16];
#pragma unroll
        for (uint32_t k = 0; k < kHitTile / 16; ++k) w[k] = __ldg(&src[k]);
        const unsigned long long st = __ldg(&starts[tt]);
        const uint32_t fp = __ldg(&first_payload[tt]), unit_first = __ldg(&first_payload[unit * kThreads]);
        uint32_t s = 0, lp = 0, queued = 0;
        auto queue_hit = [&](bool h, uint32_t j) {
            const uint32_t mask = __ballot_sync(~0u, h);
            if (h) q[queued + __popc(mask & lt)] = (s << kFusedStateShift) | (lane << kHitPosBits) | j;
            queued += __popc(mask);
        };
        // STATES: whether (payload, s) is in the state table now (found, or
        // inserted); false when its probes found no room.
        auto claim_state = [&](uint32_t payload, uint32_t state) {
            const uint32_t key = ((payload - unit_first) << kStateBits) | state;
            uint32_t slot = state_slot(key);
            for (uint32_t probe = 0; probe < kStateProbes; ++probe, slot = (slot + 1) & (kStateSlots - 1)) {
                const uint32_t v = states[slot];
                if (v == key) return true;
                if (v == kEmptySlot) {
                    const uint32_t old = atomicCAS(&states[slot], kEmptySlot, key);
                    if (old == kEmptySlot || old == key) return true;
                }
            }
            return false;
        };
        auto drain = [&] {
            fused_drain(q, queued, fp, st, unit_first, out_off, out_ids, table, o);
            queued = 0;
        };
#pragma unroll
        for (uint32_t j = 0; j < kHitTile; ++j) {
            uint32_t t;
            bool h = hit_byte<R>(r, (st >> j) & 1u, cmap[hit_tile_byte(w, j)], s, lp, &t) && active;
            if (STATES && h && (t & kOutPlain32)) h = !claim_state(hit_payload(fp, st, j), s);
            queue_hit(h, j);
            if (j % kFusedCheck == kFusedCheck - 1 && queued > kFusedQueue - kFusedCheck * 32) drain();
        }
        if (queued) drain(); // room for a whole run-out
        const uint32_t ro = active ? __ldg(&runout[tt]) : 0;
        for (uint32_t past = 0;; ++past) {
            const bool live = past < ro && !hit_walk_done(depth_end, key_len, s, past);
            if (!__any_sync(~0u, live)) break;
            bool h = false;
            if (live) h = hit_byte<R>(r, false, cmap[__ldg(&raw[tt * kHitTile + kHitTile + past])], s, lp);
            queue_hit(h, kHitTile + past);
        }
        if (queued) drain();
        __syncthreads();
        if (STATES) { // the unit's (payload, plain state) keys into pattern keys
            for (uint32_t i = threadIdx.x; i < kStateSlots; i += kThreads) {
                const uint32_t k = states[i];
                if (k == kEmptySlot) continue;
                const uint32_t state = k & ((1u << kStateBits) - 1), payload = unit_first + (k >> kStateBits);
                for (uint32_t q = __ldg(&out_off[state]); q < __ldg(&out_off[state + 1]); ++q)
                    drain_insert(table, payload, unit_first, __ldg(&out_ids[q]) & kOutIdMask, o.keys, o.nkeys, o.cap);
                states[i] = kEmptySlot;
            }
            __syncthreads();
        }
        drain_flush(table, unit_first, o.keys, o.nkeys, o.cap);
        __syncthreads();
    }
}

} // namespace wm::gpu::study
