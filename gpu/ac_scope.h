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

} // namespace wm::gpu
