// gpu/ac_covered_steps.cpp - see ac_covered_steps.h.
#include "gpu/ac_covered_steps.h"

#include "gpu/ac_blob.h"

#include <algorithm>

namespace wm::gpu {

uint64_t mark_covered_steps(uint32_t *rows, uint32_t nd, uint32_t C, const std::vector<uint32_t> &out_off,
                            const std::vector<uint32_t> &out_ids) {
    // Each state's pattern ids, sorted, the register's one-byte literals left out.
    std::vector<uint32_t> off{0}, ids;
    off.reserve(nd + 1);
    for (uint32_t s = 0; s < nd; ++s) {
        const size_t at = ids.size();
        for (uint32_t k = out_off[s]; k < out_off[s + 1]; ++k)
            if (!(out_ids[k] & kOutOneByte)) ids.push_back(out_ids[k] & kOutIdMask);
        std::sort(ids.begin() + at, ids.end());
        ids.erase(std::unique(ids.begin() + at, ids.end()), ids.end());
        off.push_back(static_cast<uint32_t>(ids.size()));
    }
    constexpr uint32_t kFlags = kOutFlag32 | kOutPlain32 | kOneByteOnly32 | kCovered32;
    uint64_t marked = 0;
    for (uint32_t p = 0; p < nd; ++p) {
        if (off[p] == off[p + 1]) continue; // a state without outputs covers none
        const auto pb = ids.begin() + off[p], pe = ids.begin() + off[p + 1];
        for (uint32_t c = 0; c < C; ++c) {
            uint32_t &t = rows[uint64_t{p} * C + c];
            if ((t & kFlags) != (kOutFlag32 | kOutPlain32)) continue;
            const uint32_t s = t & ~kFlags;
            if (std::includes(pb, pe, ids.begin() + off[s], ids.begin() + off[s + 1]))
                t = (t & ~kOutPlain32) | kCovered32, ++marked; // no hit, and not the walk's last plain target
        }
    }
    return marked;
}

} // namespace wm::gpu
