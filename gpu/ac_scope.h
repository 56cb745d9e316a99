// gpu/ac_scope.h - Set mode's last steps, per element: a (pattern, payload)
// key expanded to the pattern's scope entries that fit the payload's
// protocol/ports, and the delivered pair word. Shared by the device passes
// (ac_set_pairs.cu) and the CPU reference (expand_keys_cpu / keys_to_pairs_cpu
// below, tested in CI).
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

// Flat scope entries (device or host pointers). Pattern p's entries are
// entry[entry_begin[p], entry_begin[p + 1]) (ascending; rules sharing a
// literal share its pattern). Entry e has protocol proto[e] (0 = any), ports
// ports[port_begin[e], port_begin[e + 1]) (none = any) and reports id[e].
struct ScopeView {
    const uint32_t *entry_begin; // one per pattern, + 1
    const uint32_t *entry;       // entry indices grouped by pattern
    const uint8_t *proto;
    const uint32_t *port_begin;  // one per entry, + 1
    const PortRange *ports;
    const uint32_t *id;          // reported id per entry
};

// The rules' semantics (CompiledRuleSet::applies): the protocol must equal
// when set; with port ranges, the source or the destination port must fall in one.
WM_HD inline bool scope_applies(const ScopeView &s, uint32_t entry, const PayloadMeta &m) {
    const uint8_t proto = s.proto[entry];
    if (proto != 0 && proto != m.proto) return false;
    const uint32_t b = s.port_begin[entry], e = s.port_begin[entry + 1];
    if (b == e) return true;
    for (uint32_t i = b; i < e; ++i) {
        const PortRange r = s.ports[i];
        if ((m.src_port >= r.lo && m.src_port <= r.hi) || (m.dst_port >= r.lo && m.dst_port <= r.hi))
            return true;
    }
    return false;
}

// A Set key (payload << 32 | pattern) expanded to its pattern's entries that
// fit the payload (all when m is null), in entry order: emit(payload << 32 |
// entry) for each. Returns how many. The device pass calls it twice (count,
// then write), the CPU reference once.
template <typename Emit>
WM_HD inline uint32_t expand_key(const ScopeView &s, unsigned long long key, const PayloadMeta *m, Emit emit) {
    const uint32_t pattern = static_cast<uint32_t>(key);
    const unsigned long long payload = key & 0xffffffff00000000ull;
    uint32_t n = 0;
    for (uint32_t i = s.entry_begin[pattern]; i < s.entry_begin[pattern + 1]; ++i) {
        const uint32_t e = s.entry[i];
        if (m && !scope_applies(s, e, *m)) continue;
        emit(payload | e);
        ++n;
    }
    return n;
}

// Set key (payload << 32 | entry, ac_set_order.h) -> SetPair as one word
// (little-endian: id in the low half, payload in the high half).
WM_HD inline unsigned long long pair_word(unsigned long long key, const uint32_t *id) {
    return (key & 0xffffffff00000000ull) | id[static_cast<uint32_t>(key)];
}

// A chunk's Set keys re-encoded for the device sort: the payload counted from
// the chunk's first payload, just above the entry bits ("pattern" below: the
// low half of an expanded key is a scope entry). Ascending sort keys
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

// Bits needed to write x (0 for 0). One instruction on the device: the Set
// kernel asks per key (set_pattern_bits, ac_set_keys.h).
WM_HD inline uint32_t significant_bits(uint32_t x) {
    if (x == 0) return 0;
#ifdef __CUDA_ARCH__
    return 32 - __clz(x);
#else
    return 32 - __builtin_clz(x);
#endif
}
inline SortKeyCodec sort_key_codec(uint32_t num_entries, uint32_t first_payload) {
    return {first_payload, significant_bits(num_entries > 0 ? num_entries - 1 : 0)};
}
// End bit of the radix sort for a chunk whose payloads are [c.base, last_payload].
inline int sort_end_bit(const SortKeyCodec &c, uint32_t last_payload) {
    return static_cast<int>(c.pattern_bits + significant_bits(last_payload - c.base));
}

// Host copy of the scopes, flattened as ScopeView wants.
struct FlatScopes {
    std::vector<uint32_t> entry_begin; // per pattern, + 1
    std::vector<uint32_t> entry;
    std::vector<uint8_t> proto;        // per entry from here on
    std::vector<uint32_t> port_begin{0};
    std::vector<PortRange> ports;
    std::vector<uint32_t> id;
    bool any_constraint = false; // some entry has a protocol or ports
    bool one_per_pattern = true; // entry p is pattern p's only one: keys need no expansion without meta
    ScopeView view() const {
        return {entry_begin.data(), entry.data(), proto.data(), port_begin.data(), ports.data(), id.data()};
    }
};

// Flattens `scopes` (PatternScope's rules) for num_patterns patterns. Throws
// std::invalid_argument naming the entry when an id repeats, a pattern is out
// of range, a port range has lo > hi, or entries without `pattern` are not
// exactly one per pattern.
FlatScopes flatten_scopes(const std::vector<PatternScope> &scopes, uint32_t num_patterns);
// Identity scopes: entry p = pattern p, id p, no constraint.
FlatScopes identity_scopes(uint32_t num_patterns);

// CPU reference of the device pass: each key replaced by its pattern's
// entries that fit meta[payload] (all with null meta), in key then entry order.
void expand_keys_cpu(const ScopeView &s, const PayloadMeta *meta, std::vector<unsigned long long> &keys);
void keys_to_pairs_cpu(const uint32_t *id, std::vector<unsigned long long> &keys);
// CPU reference of the device's sort path for one chunk: keys encoded with
// `c`, padded with kSortPadKey to `sort_n`, stably sorted, the first
// keys.size() mapped to pair words (what scan_set_pairs() copies back).
void sorted_pairs_cpu(const SortKeyCodec &c, const uint32_t *id, size_t sort_n, std::vector<unsigned long long> &keys);

} // namespace wm::gpu
