// gpu/ac_set_order.h - host side of the Set-mode output order (plain C++17, no
// CUDA): the key encoding, the bit range the device radix sort needs, decoding
// a chunk's sorted keys, and joining chunks when a payload spans two of them.
//
// Each chunk's distinct keys are sorted on the device (ac_sort_keys.cu) before
// the copy back; chunks cover the batch in payload order, so their
// concatenation is sorted by (payload, pattern) and distinct, except that a
// payload spanning chunks can repeat a pair and break the order at the
// boundary: join_set_chunks() repairs that case. The CPU tests drive these
// functions with real ChunkPlanner chunks (tests/gpu/test_set_order.cpp).
#pragma once

#include "gpu/gpu_matcher.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace wm::gpu {

// Set key of (payload, pattern): ascending keys = ascending (payload, pattern).
constexpr uint64_t set_key(uint32_t payload, uint32_t pattern) {
    return uint64_t{payload} << 32 | pattern;
}

// Most significant bit + 1 of any key whose payload is <= max_payload: the 32
// pattern bits plus the payload's significant bits (the bits above are 0, so a
// radix sort over [0, end_bit) orders the keys fully).
inline int set_sort_end_bit(uint32_t max_payload) {
    int bits = 0;
    while (bits < 32 && (max_payload >> bits) != 0) ++bits;
    return 32 + bits;
}

inline bool set_order_less(const Match &a, const Match &b) {
    return a.payload != b.payload ? a.payload < b.payload : a.pattern < b.pattern;
}

// Appends keys[0, n) as Match{pattern, payload, end = 0}, order kept.
inline void append_set_keys(const unsigned long long *keys, size_t n, std::vector<Match> &out) {
    const size_t base = out.size();
    out.resize(base + n);
    for (size_t i = 0; i < n; ++i)
        out[base + i] = Match{static_cast<uint32_t>(keys[i]), static_cast<uint32_t>(keys[i] >> 32), 0};
}

// `out`: the chunks' sorted, distinct keys concatenated in chunk order. When a
// payload spanned chunks (`split`), orders by (payload, pattern) and drops the
// repeats; otherwise `out` is sorted and distinct already and stays as is.
inline void join_set_chunks(std::vector<Match> &out, bool split) {
    if (!split) return;
    if (!std::is_sorted(out.begin(), out.end(), set_order_less))
        std::sort(out.begin(), out.end(), set_order_less);
    out.erase(std::unique(out.begin(), out.end(),
                          [](const Match &a, const Match &b) {
                              return a.payload == b.payload && a.pattern == b.pattern;
                          }),
              out.end());
}

} // namespace wm::gpu
