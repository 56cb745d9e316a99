// gpu/ac_scope.cpp - host side of the Set-mode scopes (ac_scope.h).
#include "gpu/ac_scope.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace wm::gpu {

FlatScopes flatten_scopes(const std::vector<PatternScope> &scopes, uint32_t num_patterns) {
    const auto by_position = [](const PatternScope &s) { return s.pattern == PatternScope::kEntryIndex; };
    if (std::all_of(scopes.begin(), scopes.end(), by_position) && scopes.size() != num_patterns)
        throw std::invalid_argument("set_scopes: " + std::to_string(scopes.size()) + " scopes for " +
                                    std::to_string(num_patterns) + " patterns");
    const uint32_t n = static_cast<uint32_t>(scopes.size());
    FlatScopes f;
    f.proto.reserve(n);
    f.id.reserve(n);
    std::vector<uint32_t> pattern_of(n);
    for (uint32_t e = 0; e < n; ++e) {
        const PatternScope &s = scopes[e];
        const uint32_t p = by_position(s) ? e : s.pattern;
        if (p >= num_patterns)
            throw std::invalid_argument("set_scopes: entry " + std::to_string(e) + " (id " + std::to_string(s.id) +
                                        ") names pattern " + std::to_string(p) + " of " +
                                        std::to_string(num_patterns));
        for (const PortRange &r : s.ports)
            if (r.lo > r.hi)
                throw std::invalid_argument("set_scopes: entry " + std::to_string(e) + " has port range " +
                                            std::to_string(r.lo) + "-" + std::to_string(r.hi));
        pattern_of[e] = p;
        f.proto.push_back(s.proto);
        f.ports.insert(f.ports.end(), s.ports.begin(), s.ports.end());
        f.port_begin.push_back(static_cast<uint32_t>(f.ports.size()));
        f.id.push_back(s.id);
        f.any_constraint |= s.proto != 0 || !s.ports.empty();
        f.one_per_pattern &= p == e;
    }
    f.one_per_pattern &= n == num_patterns;
    // Entries grouped by pattern (counting sort; ascending within a pattern).
    f.entry_begin.assign(size_t{num_patterns} + 1, 0);
    for (uint32_t p : pattern_of) ++f.entry_begin[p + 1];
    for (uint32_t p = 0; p < num_patterns; ++p) f.entry_begin[p + 1] += f.entry_begin[p];
    f.entry.resize(n);
    std::vector<uint32_t> next(f.entry_begin.begin(), f.entry_begin.end() - 1);
    for (uint32_t e = 0; e < n; ++e) f.entry[next[pattern_of[e]]++] = e;
    std::vector<uint32_t> ids = f.id; // distinct ids keep the pairs distinct
    std::sort(ids.begin(), ids.end());
    const auto dup = std::adjacent_find(ids.begin(), ids.end());
    if (dup != ids.end()) throw std::invalid_argument("set_scopes: id " + std::to_string(*dup) + " repeats");
    return f;
}

FlatScopes identity_scopes(uint32_t num_patterns) {
    FlatScopes f;
    f.entry_begin.resize(size_t{num_patterns} + 1);
    std::iota(f.entry_begin.begin(), f.entry_begin.end(), 0u);
    f.entry.resize(num_patterns);
    std::iota(f.entry.begin(), f.entry.end(), 0u);
    f.proto.assign(num_patterns, 0);
    f.port_begin.assign(size_t{num_patterns} + 1, 0);
    f.id = f.entry;
    return f;
}

void expand_keys_cpu(const ScopeView &s, const PayloadMeta *meta, std::vector<unsigned long long> &keys) {
    std::vector<unsigned long long> out;
    out.reserve(keys.size());
    for (unsigned long long k : keys)
        expand_key(s, k, meta ? &meta[k >> 32] : nullptr, [&](unsigned long long e) { out.push_back(e); });
    keys.swap(out);
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
