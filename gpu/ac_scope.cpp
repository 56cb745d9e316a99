// gpu/ac_scope.cpp - host side of the Set-mode scopes (ac_scope.h).
#include "gpu/ac_scope.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace wm::gpu {

FlatScopes flatten_scopes(const std::vector<PatternScope> &scopes, uint32_t num_patterns) {
    if (scopes.size() != num_patterns)
        throw std::invalid_argument("set_scopes: " + std::to_string(scopes.size()) + " scopes for " +
                                    std::to_string(num_patterns) + " patterns");
    FlatScopes f;
    f.proto.reserve(num_patterns);
    f.id.reserve(num_patterns);
    for (uint32_t p = 0; p < num_patterns; ++p) {
        const PatternScope &s = scopes[p];
        for (const PortRange &r : s.ports)
            if (r.lo > r.hi)
                throw std::invalid_argument("set_scopes: pattern " + std::to_string(p) + " has port range " +
                                            std::to_string(r.lo) + "-" + std::to_string(r.hi));
        f.proto.push_back(s.proto);
        f.ports.insert(f.ports.end(), s.ports.begin(), s.ports.end());
        f.port_begin.push_back(static_cast<uint32_t>(f.ports.size()));
        f.id.push_back(s.id);
        f.any_constraint |= s.proto != 0 || !s.ports.empty();
    }
    std::vector<uint32_t> ids = f.id; // distinct ids keep the pairs distinct
    std::sort(ids.begin(), ids.end());
    const auto dup = std::adjacent_find(ids.begin(), ids.end());
    if (dup != ids.end()) throw std::invalid_argument("set_scopes: id " + std::to_string(*dup) + " repeats");
    return f;
}

FlatScopes identity_scopes(uint32_t num_patterns) {
    FlatScopes f;
    f.proto.assign(num_patterns, 0);
    f.port_begin.assign(num_patterns + 1, 0);
    f.id.resize(num_patterns);
    for (uint32_t p = 0; p < num_patterns; ++p) f.id[p] = p;
    return f;
}

void scope_filter_cpu(const ScopeView &s, const PayloadMeta *meta, std::vector<unsigned long long> &keys) {
    if (!meta) return;
    keys.erase(std::remove_if(keys.begin(), keys.end(),
                              [&](unsigned long long k) {
                                  return !scope_applies(s, static_cast<uint32_t>(k), meta[k >> 32]);
                              }),
               keys.end());
}

void keys_to_pairs_cpu(const uint32_t *id, std::vector<unsigned long long> &keys) {
    for (auto &k : keys) k = pair_word(k, id);
}

void sorted_pairs_cpu(const SortKeyCodec &c, const uint32_t *id, size_t sort_n, std::vector<unsigned long long> &keys) {
    const size_t n = keys.size();
    std::vector<unsigned long long> buf(std::max(n, sort_n), kSortPadKey);
    for (size_t i = 0; i < n; ++i) buf[i] = c.encode(keys[i]);
    std::stable_sort(buf.begin(), buf.end());
    for (size_t i = 0; i < n; ++i) keys[i] = c.pair(buf[i], id);
}

} // namespace wm::gpu
