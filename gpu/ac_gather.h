// gpu/ac_gather.h - a chunk's text gathered from payloads left in place.
//
// A replay window can leave each payload where the capture file has it
// (BatchView::sources): the host then copies no payload, and the chunk's
// span of file bytes goes to the device whole, where the payloads are
// packed into the chunk's text (d_text) as ChunkPlanner laid them out.
// A thread fills 16 bytes of the text; the CPU walk (ac_cpu_walk.cpp)
// gathers with the same per-thread function.
#pragma once

#include "gpu/ac_plan.h"

#include <cstdint>

namespace wm::gpu {

// The file bytes a chunk needs: [begin, end) of BatchView::data, for
// payloads [first, first + n) (their offsets and sources from first on).
struct GatherSpan {
    uint64_t begin = 0, end = 0;
    uint32_t first = 0, n = 0;
};

// The chunk's payloads run from its lowest to its highest with bytes (a
// whole-payload run: all of them); the span runs from the first byte it
// takes of the first to the last it takes of the last (sources ascending).
inline GatherSpan gather_span(const BatchView &b, const Chunk &c) {
    GatherSpan g;
    g.first = c.first_payload;
    const uint32_t last = c.whole_run ? (c.end_payload > c.first_payload ? c.end_payload - 1 : c.first_payload)
                                      : c.last_payload;
    g.n = last - g.first + 1;
    g.begin = b.sources[g.first] + (c.src_begin - b.offsets[g.first]);
    g.end = b.sources[last] + (c.src_begin + c.bytes - b.offsets[last]);
    return g;
}

// Bytes of the chunk's text one gather step fills: a thread's 16, stored at
// once (the copies of a warp per payload, a byte per lane, took 0.4 ms a
// 16 MB window, longer than copying the window over PCIe; run 340).
constexpr uint32_t kGatherBlockBytes = 16;

// Fills out with the chunk's text bytes [text_begin + 16 * block, + 16)
// (fewer at the chunk's end; returns how many). offsets: the span's n + 1
// packed offsets (offsets[0] <= text_begin); sources: its n places in the
// file bytes, which raw holds from raw_begin.
WM_HD inline uint32_t gather_block(uint64_t block, const uint32_t *offsets, const uint32_t *sources, uint32_t n,
                                   const uint8_t *raw, uint64_t raw_begin, uint64_t text_begin, uint64_t text_end,
                                   uint8_t out[kGatherBlockBytes]) {
    const uint64_t x0 = text_begin + block * kGatherBlockBytes;
    if (x0 >= text_end) return 0;
    const uint32_t len = text_end - x0 < kGatherBlockBytes ? uint32_t(text_end - x0) : kGatherBlockBytes;
    uint32_t lo = 0, hi = n; // the last payload starting at or before x0
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (offsets[mid] <= x0) lo = mid;
        else hi = mid;
    }
    uint32_t p = lo;
    for (uint32_t j = 0; j < len; ++j) {
        const uint64_t x = x0 + j;
        while (p + 1 < n && offsets[p + 1] <= x) ++p; // past this payload's end (and empty ones)
        out[j] = raw[sources[p] - raw_begin + (x - offsets[p])];
    }
    return len;
}

// Blocks of 16 bytes a chunk's text of `bytes` takes.
WM_HD inline uint64_t gather_blocks(uint64_t bytes) { return (bytes + kGatherBlockBytes - 1) / kGatherBlockBytes; }

// The host's gather of a chunk (the device's in ac_gather.cu), into text
// (c.bytes): raw is BatchView::data.
inline void gather_chunk_on_host(const BatchView &b, const Chunk &c, uint8_t *text) {
    const GatherSpan g = gather_span(b, c);
    uint8_t block[kGatherBlockBytes];
    for (uint64_t k = 0; k < gather_blocks(c.bytes); ++k) {
        const uint32_t len = gather_block(k, b.offsets + g.first, b.sources + g.first, g.n, b.data + g.begin, g.begin,
                                          c.src_begin, c.src_begin + c.bytes, block);
        for (uint32_t j = 0; j < len; ++j) text[k * kGatherBlockBytes + j] = block[j];
    }
}

} // namespace wm::gpu
