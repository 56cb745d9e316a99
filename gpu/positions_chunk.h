// gpu/positions_chunk.h - one chunk of GpuMatcher::scan_positions(): the
// Positions matches as they came back from the device, not yet decoded, so
// the host can decode them where it uses them (in parallel, without an
// intermediate copy of ~0.34 records per payload byte on real traffic).
#pragma once

#include "gpu/ac_positions_order.h"
#include "gpu/gpu_matcher.h"

#include <cstdint>
#include <vector>

namespace wm::gpu {

struct PositionsChunk {
    // Sorted keys (ascending (payload, end, pattern), ac_positions_order.h),
    // or null: then `records` in any order, some of them holes.
    const unsigned long long *keys = nullptr;
    PositionsKeyCodec codec;
    const Match *records = nullptr;
    uint32_t count = 0; // keys or records

    bool sorted() const { return keys != nullptr; }
    // Record i; false for a hole (a reserved output slot no match took).
    bool get(uint32_t i, Match *m) const {
        if (keys) {
            *m = codec.decode(keys[i]);
            return true;
        }
        *m = records[i];
        return m->pattern != kHolePattern;
    }
    // Appends every match (holes left out), in the chunk's order.
    void append_to(std::vector<Match> &out) const {
        const size_t base = out.size();
        out.resize(base + count);
        size_t n = base;
        for (uint32_t i = 0; i < count; ++i) n += get(i, &out[n]);
        out.resize(n);
    }
};

} // namespace wm::gpu
