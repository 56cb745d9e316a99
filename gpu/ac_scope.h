// gpu/ac_scope.h - Set mode's last steps, per element: does a (pattern,
// payload) key fit the pattern's protocol/port scope, and the delivered pair
// word. Shared by the device passes (ac_set_pairs.cu) and the CPU reference
// (scope_filter_cpu / keys_to_pairs_cpu below, tested in CI).
#pragma once

#include "gpu/gpu_matcher.h"

#include <cstdint>
#include <vector>

#ifndef WM_HD
#ifdef __CUDACC__
#define WM_HD __host__ __device__
#else
#define WM_HD
#endif
#endif

namespace wm::gpu {

// Flat per-pattern scopes (device or host pointers): pattern p has protocol
// proto[p] (0 = any) and ports[port_begin[p], port_begin[p + 1]) (none = any).
struct ScopeView {
    const uint8_t *proto;
    const uint32_t *port_begin; // num_patterns + 1 entries
    const PortRange *ports;
    const uint32_t *id; // reported id per pattern
    uint32_t num_patterns;
};

// The rules' semantics (CompiledRuleSet::applies): the protocol must equal
// when set; with port ranges, the source or the destination port must fall in one.
WM_HD inline bool scope_applies(const ScopeView &s, uint32_t pattern, const PayloadMeta &m) {
    const uint8_t proto = s.proto[pattern];
    if (proto != 0 && proto != m.proto) return false;
    const uint32_t b = s.port_begin[pattern], e = s.port_begin[pattern + 1];
    if (b == e) return true;
    for (uint32_t i = b; i < e; ++i) {
        const PortRange r = s.ports[i];
        if ((m.src_port >= r.lo && m.src_port <= r.hi) || (m.dst_port >= r.lo && m.dst_port <= r.hi))
            return true;
    }
    return false;
}

// Set key (payload << 32 | pattern, ac_set_order.h) -> SetPair as one word
// (little-endian: id in the low half, payload in the high half).
WM_HD inline unsigned long long pair_word(unsigned long long key, const uint32_t *id) {
    return (key & 0xffffffff00000000ull) | id[static_cast<uint32_t>(key)];
}

// A chunk's Set keys re-encoded for the device sort: the payload counted from
// the chunk's first payload, just above the pattern bits. Ascending sort keys
// are ascending (payload, pattern) as set keys are, but the radix sort covers
// pattern_bits + bits(payload span) bits (~35 on the ET set) instead of 32 +
// bits(payload): two fewer 8-bit passes.
struct SortKeyCodec {
    uint32_t base;         // the chunk's lowest payload
    uint32_t pattern_bits; // significant bits of the largest pattern index
    WM_HD unsigned long long encode(unsigned long long set_key) const {
        return ((set_key >> 32) - base) << pattern_bits | static_cast<uint32_t>(set_key);
    }
    // Sort key -> SetPair word (pair_word of the set key it encodes).
    WM_HD unsigned long long pair(unsigned long long sort_key, const uint32_t *id) const {
        const uint32_t pattern = static_cast<uint32_t>(sort_key & ((1ull << pattern_bits) - 1));
        return ((sort_key >> pattern_bits) + base) << 32 | id[pattern];
    }
};
// Fills a sort buffer past its keys: all ones, so it sorts after every key
// (the radix sort is stable, and pads follow the keys in the buffer).
constexpr unsigned long long kSortPadKey = ~0ull;

WM_HD inline uint32_t significant_bits(uint32_t x) {
    uint32_t b = 0;
    while (b < 32 && (x >> b) != 0) ++b;
    return b;
}
inline SortKeyCodec sort_key_codec(uint32_t num_patterns, uint32_t first_payload) {
    return {first_payload, significant_bits(num_patterns > 0 ? num_patterns - 1 : 0)};
}
// End bit of the radix sort for a chunk whose payloads are [c.base, last_payload].
inline int sort_end_bit(const SortKeyCodec &c, uint32_t last_payload) {
    return static_cast<int>(c.pattern_bits + significant_bits(last_payload - c.base));
}

// Host copy of the scopes, flattened as ScopeView wants.
struct FlatScopes {
    std::vector<uint8_t> proto;
    std::vector<uint32_t> port_begin{0};
    std::vector<PortRange> ports;
    std::vector<uint32_t> id;
    bool any_constraint = false; // some pattern has a protocol or ports
    ScopeView view() const {
        return {proto.data(), port_begin.data(), ports.data(), id.data(), static_cast<uint32_t>(id.size())};
    }
};

// Flattens `scopes` (one per pattern). Throws std::invalid_argument when the
// count is not num_patterns, ids repeat, or a port range has lo > hi.
FlatScopes flatten_scopes(const std::vector<PatternScope> &scopes, uint32_t num_patterns);
// Identity scopes: id = pattern index, no constraint.
FlatScopes identity_scopes(uint32_t num_patterns);

// CPU reference of the device passes: keeps the keys whose scope fits
// meta[payload] (order kept), then maps them to pair words.
void scope_filter_cpu(const ScopeView &s, const PayloadMeta *meta, std::vector<unsigned long long> &keys);
void keys_to_pairs_cpu(const uint32_t *id, std::vector<unsigned long long> &keys);
// CPU reference of the device's sort path for one chunk: keys encoded with
// `c`, padded with kSortPadKey to `sort_n`, stably sorted, the first
// keys.size() mapped to pair words (what scan_set_pairs() copies back).
void sorted_pairs_cpu(const SortKeyCodec &c, const uint32_t *id, size_t sort_n, std::vector<unsigned long long> &keys);

} // namespace wm::gpu
