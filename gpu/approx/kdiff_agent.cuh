// gpu/approx/kdiff_agent.cuh - the k-differences algorithm for one warp (direct
// route: one payload chunk x 32 patterns) and for one thread (prefilter route:
// one candidate window x 1 pattern). Lane logic: kdiff_lane.h (shared with the
// CPU walk).
#pragma once

#include "gpu/approx/approx_tuning.h"
#include "gpu/approx/kdiff_kernels.h"
#include "gpu/approx/kdiff_lane.h"

namespace wm::approx {

// Appends one record per lane with `want`; one atomic per warp.
__device__ __forceinline__ void warp_emit(bool want, const ApproxMatch &m, const KdiffOutput &out) {
    const unsigned mask = __ballot_sync(0xffffffffu, want);
    if (!mask) return;
    const unsigned lane = threadIdx.x & 31u;
    uint32_t base = 0;
    if (lane == static_cast<unsigned>(__ffs(mask) - 1)) base = atomicAdd(out.d_count, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, __ffs(mask) - 1);
    if (want) {
        const uint32_t idx = base + __popc(mask & ((1u << lane) - 1u));
        if (idx < out.capacity) out.d_out[idx] = m;
    }
}

// Direct route. Template parameters: Tag = KindTag<W, K> (words, Hamming
// levels); Peq = accessor (shared or global table of this warp's group).
template <typename Tag, typename Peq>
__device__ void kdiff_warp_agent(const GroupDesc &g, const LaneDesc &ld, const Peq &peq,
                                 const uint8_t *__restrict__ d_text,
                                 const uint32_t *__restrict__ d_offsets, const WorkItem &item,
                                 const KdiffOutput &out) {
    const uint32_t lane = threadIdx.x & 31u;
    const uint32_t begin = d_offsets[item.payload];
    const uint32_t len = d_offsets[item.payload + 1] - begin;
    const uint32_t hi = min(len, item.lo + tuning::kChunkBytes);
    const uint32_t start = item.lo > g.warm ? item.lo - g.warm : 0;
    const uint8_t *__restrict__ p = d_text + begin;
    const uint64_t out_mask = 1ull << ((ld.m - 1) % 64);
    const bool active = ld.pattern != kNoPattern;
    typename Tag::Lane st;
    st.init(ld.m, ld.k);
    for (uint32_t base = start; base < hi; base += 128) {
        // Each lane fetches 4 of the next 128 bytes; the warp then walks them
        // one by one, broadcasting each byte with a shuffle.
        uint32_t word = 0;
#pragma unroll
        for (uint32_t b = 0; b < 4; ++b) {
            const uint32_t idx = base + 4 * lane + b;
            if (idx < hi) word |= uint32_t(__ldg(p + idx)) << (8 * b);
        }
        const uint32_t n = min(128u, hi - base);
        for (uint32_t s = 0; s < n; ++s) {
            const uint32_t c = (__shfl_sync(0xffffffffu, word, s >> 2) >> (8 * (s & 3))) & 0xffu;
            const uint32_t d = st.step([&](uint32_t w) { return peq(c, w, lane); }, ld.last_word, out_mask);
            const uint32_t pos = base + s;
            warp_emit(active && pos >= item.lo && d <= ld.k,
                      ApproxMatch{ld.pattern, item.payload, pos + 1, d}, out);
        }
    }
}

// Prefilter route: one thread walks one window for one pattern.
template <typename Tag>
__device__ void kdiff_window_agent(const KdiffDevice &dev, const uint8_t *__restrict__ d_text,
                                   const uint32_t *__restrict__ d_offsets, const Window &w,
                                   const KdiffOutput &out) {
    const uint32_t gi = dev.d_group_of[w.pattern], lane = dev.d_lane_of[w.pattern];
    const GroupDesc g = dev.d_groups[gi];
    const LaneDesc ld = dev.d_lanes[g.lane_base + lane];
    const uint64_t *__restrict__ peq = dev.d_peq + g.peq_offset;
    const uint8_t *__restrict__ p = d_text + d_offsets[w.payload];
    const uint64_t out_mask = 1ull << ((ld.m - 1) % 64);
    typename Tag::Lane st;
    st.init(ld.m, ld.k);
    for (uint32_t pos = w.lo; pos < w.hi; ++pos) {
        const uint32_t c = __ldg(p + pos);
        const uint32_t d = st.step(
            [&](uint32_t wd) { return __ldg(peq + (size_t{c} * Tag::kWords + wd) * 32 + lane); },
            ld.last_word, out_mask);
        if (d <= ld.k) {
            const uint32_t idx = atomicAdd(out.d_count, 1u);
            if (idx < out.capacity) out.d_out[idx] = ApproxMatch{ld.pattern, w.payload, pos + 1, d};
        }
    }
}

} // namespace wm::approx
