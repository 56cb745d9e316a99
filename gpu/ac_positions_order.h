// gpu/ac_positions_order.h - Positions-mode output order (host and device).
//
// The Positions kernel appends its matches in whatever order the blocks reach
// them. Sorting them on the host was the positions path's bottleneck (run 93,
// 1 GB of real traffic with ET Open: 21 thread-seconds of sort_matches for
// ~340 M matches, a comparison sort per payload), so each chunk's matches are
// packed into 64-bit keys on the device, radix-sorted there (ac_sort_keys.cu)
// and copied back as keys (8 bytes per match instead of 12). A key holds,
// most significant first, the payload (less the chunk's lowest), the end
// offset and the pattern, each in as many bits as the chunk needs: ascending
// keys are ascending (payload, end, pattern). A chunk whose fields do not fit
// in 64 bits comes back unsorted, as before. Chunks cover a batch in payload
// order and a payload split across chunks has its earlier ends in the
// earlier chunk, so the concatenation stays sorted; the host checks it anyway
// (sort_matches' fast path).
#pragma once

#include "gpu/ac_plan.h"
#include "gpu/ac_scope.h"

#include <cstdint>

namespace wm::gpu {

// A Positions record in an output slot its warp reserved and never filled
// (the rest of its last slab, ac_agent.cuh): the kernel counts these holes
// in d_count[2], their keys sort after every match's, and the host drops them.
constexpr uint32_t kHolePattern = ~0u;

struct PositionsKeyCodec {
    uint32_t base = 0;         // the chunk's lowest payload
    uint32_t end_shift = 0;    // = pattern bits
    uint32_t payload_shift = 0; // = pattern bits + end bits
    uint32_t bits = 0;         // payload_shift + payload bits (<= 63); a hole's key is 2^bits
    // The radix sort's end bit: one past the holes' bit.
    uint32_t sort_bits() const { return bits + 1; }
    WM_HD unsigned long long encode(const Match &m) const {
        if (m.pattern == kHolePattern) return 1ull << bits;
        const unsigned long long payload = m.payload - base;
        // payload == 0 whenever payload_shift could be 64 (one payload): no shift by 64
        return (payload ? payload << payload_shift : 0ull) | static_cast<unsigned long long>(m.end) << end_shift |
               m.pattern;
    }
    Match decode(unsigned long long key) const {
        const uint32_t pattern = static_cast<uint32_t>(end_shift ? key & ((1ull << end_shift) - 1) : 0);
        const uint32_t end_bits = payload_shift - end_shift;
        const uint32_t end = static_cast<uint32_t>(end_bits ? (key >> end_shift) & ((1ull << end_bits) - 1) : 0);
        const uint32_t payload = payload_shift < 64 ? static_cast<uint32_t>(key >> payload_shift) : 0;
        return Match{pattern, base + payload, end};
    }
};

// The codec of a chunk whose matches have payloads in [first_payload,
// last_payload], ends <= max_end and patterns < num_patterns; false when the
// three fields need more than 63 bits (one more marks the holes; the chunk
// is then left unsorted).
inline bool positions_key_codec(uint32_t num_patterns, uint32_t first_payload, uint32_t last_payload,
                                uint32_t max_end, PositionsKeyCodec *c) {
    const uint32_t pattern_bits = significant_bits(num_patterns > 0 ? num_patterns - 1 : 0);
    const uint32_t end_bits = significant_bits(max_end);
    const uint32_t payload_bits = significant_bits(last_payload - first_payload);
    if (pattern_bits + end_bits + payload_bits > 63) return false;
    *c = PositionsKeyCodec{first_payload, pattern_bits, pattern_bits + end_bits,
                           pattern_bits + end_bits + payload_bits};
    return true;
}

// Each (payload, pattern)'s first match only (PositionsKept::FirstPerPattern):
// a replay reports one alert per (packet, rule) at its first match, and on
// real traffic most matches are repeats (ET Open on zeek payloads: 91% of
// the rule matches) that the host would copy back, expand and drop. The chunk's matches are packed
// with the same fields in (payload, pattern, end) order, sorted, and the
// first key of each (payload, pattern) run, its smallest end, is re-packed in
// the chunk's Positions codec (`out`) for a second sort; every other key
// (later ends, holes) becomes kNotFirst and is left out.
constexpr unsigned long long kNotFirst = ~0ull;

struct FirstsKeyCodec {
    PositionsKeyCodec out;      // the chunk's Positions codec: same fields, same bits
    uint32_t pattern_shift = 0; // = end bits

    explicit FirstsKeyCodec(const PositionsKeyCodec &c) : out(c), pattern_shift(c.payload_shift - c.end_shift) {}
    uint32_t sort_bits() const { return out.sort_bits(); }
    WM_HD unsigned long long encode(const Match &m) const {
        if (m.pattern == kHolePattern) return 1ull << out.bits;
        const unsigned long long payload = m.payload - out.base;
        return (payload ? payload << out.payload_shift : 0ull) |
               static_cast<unsigned long long>(m.pattern) << pattern_shift | m.end;
    }
    // The (payload, pattern) of a key: equal for the keys of one run.
    WM_HD unsigned long long run_of(unsigned long long key) const { return key >> pattern_shift; }
    // Key `key` (not a hole) in the Positions codec.
    WM_HD unsigned long long to_positions(unsigned long long key) const {
        const unsigned long long end = pattern_shift ? key & ((1ull << pattern_shift) - 1) : 0ull;
        const unsigned long long pattern = out.end_shift ? (key >> pattern_shift) & ((1ull << out.end_shift) - 1) : 0ull;
        const unsigned long long payload = (key >> out.payload_shift) << out.payload_shift; // already in place
        return payload | end << out.end_shift | pattern;
    }
    // Sorted key i of sorted[0, n) in the Positions codec if it is the first
    // of its run, else kNotFirst.
    WM_HD unsigned long long first_of_run(const unsigned long long *sorted, uint32_t i) const {
        const unsigned long long k = sorted[i];
        if (k >> out.bits) return kNotFirst; // a hole
        if (i > 0 && run_of(sorted[i - 1]) == run_of(k)) return kNotFirst;
        return to_positions(k);
    }
};

// The largest end offset a match of chunk `c` can have: its longest payload
// (whole-payload run; offsets are the batch's) or the furthest payload
// offset its segments reach.
inline uint32_t chunk_max_end(const Chunk &c, const uint32_t *offsets) {
    uint32_t m = 0;
    if (c.whole_run) {
        for (uint32_t p = c.first_payload; p < c.end_payload; ++p)
            m = offsets[p + 1] - offsets[p] > m ? offsets[p + 1] - offsets[p] : m;
    } else {
        for (const Segment &s : c.segs)
            m = s.pos_base + (s.data_end - s.data_begin) > m ? s.pos_base + (s.data_end - s.data_begin) : m;
    }
    return m;
}

} // namespace wm::gpu
