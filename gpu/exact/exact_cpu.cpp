// gpu/exact/exact_cpu.cpp - CPU walk of the duel kernel's plan.
#include "gpu/exact/exact_cpu.h"

#include <algorithm>

namespace wm::gpu::exact {

std::vector<uint32_t> duel_survivors_cpu(const uint8_t *text, uint64_t n, const PatternView &p) {
    const uint32_t nv = valid_positions(n, p.m);
    const DuelShape sh = duel_shape(p.span);
    const uint32_t group = sh.items * sh.lanes;
    std::vector<uint32_t> out;
    if (nv == 0) return out;
    uint32_t lane_s[tuning::kWarpLanes];
    for (uint64_t g0 = 0; g0 < nv; g0 += group) {
        for (uint32_t l = 0; l < sh.lanes; ++l) {
            const uint64_t first = g0 + uint64_t{l} * sh.items;
            const uint32_t cnt =
                first < nv ? static_cast<uint32_t>(std::min<uint64_t>(sh.items, nv - first)) : 0;
            lane_s[l] = reduce_run(text, p, static_cast<uint32_t>(first), cnt);
        }
        // Same pairing as __shfl_xor_sync: after round `off` every aligned block
        // of 2*off lanes holds its block's survivor.
        for (uint32_t off = 1; off < sh.lanes; off <<= 1)
            for (uint32_t l = 0; l < sh.lanes; l += 2 * off)
                lane_s[l] = duel_or_pass(text, p, lane_s[l], lane_s[l + off]);
        out.push_back(lane_s[0]);
    }
    return out;
}

std::vector<uint32_t> duel_search_cpu(const uint8_t *text, uint64_t n, const PatternView &p) {
    std::vector<uint32_t> pos;
    for (uint32_t s : duel_survivors_cpu(text, n, p))
        if (s != kNone && verify_at(text, p, s)) pos.push_back(s);
    return pos; // groups are in text order, one survivor each: already sorted
}

} // namespace wm::gpu::exact
