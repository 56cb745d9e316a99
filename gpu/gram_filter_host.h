// gpu/gram_filter_host.h - the host side of the gram-filter study
// (gram_filter_model.h): which literals it covers, the windows chosen from
// training traffic, the tables, and the CPU model that bench_gram_filter
// checks its kernels against (tests/gpu tests it against a naive search).
#pragma once

#include "gpu/ac_bench_corpus.h" // Corpus, is_byte_run
#include "gpu/gram_filter_model.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace wm::gpu::study {

// Literals of two bytes or more that are not one byte repeated; offset and
// depth are not modelled (the benchmark's literal lists have none).
inline bool is_gram_literal(const Literal &l) { return l.bytes.size() >= 2 && !bench::is_byte_run(l); }

inline uint32_t folded_quad(const uint8_t *p) {
    return uint32_t{fold_ascii(p[0])} | uint32_t{fold_ascii(p[1])} << 8 | uint32_t{fold_ascii(p[2])} << 16 |
           uint32_t{fold_ascii(p[3])} << 24;
}

// How often each folded quad of the literals occurs in training payloads.
using QuadCounts = std::unordered_map<uint32_t, uint64_t>;
inline QuadCounts quad_counts(const std::vector<Literal> &literals, const std::vector<bench::Corpus> &training) {
    QuadCounts c;
    for (const Literal &l : literals) {
        const auto *b = reinterpret_cast<const uint8_t *>(l.bytes.data());
        for (size_t i = 0; i + 4 <= l.bytes.size(); ++i) c.emplace(folded_quad(b + i), 0);
    }
    for (const bench::Corpus &t : training)
        for (uint32_t p = 0; p < t.count(); ++p)
            for (uint32_t i = t.offsets[p]; i + 4 <= t.offsets[p + 1]; ++i)
                if (auto it = c.find(folded_quad(t.bytes.data() + i)); it != c.end()) ++it->second;
    return c;
}

// The window of a literal of 4 bytes or more: its rarest quad in training (the
// first of equals).
inline uint32_t quad_window(const Literal &l, const QuadCounts &counts) {
    const auto *b = reinterpret_cast<const uint8_t *>(l.bytes.data());
    uint32_t best = 0;
    uint64_t best_count = UINT64_MAX;
    for (uint32_t i = 0; i + 4 <= l.bytes.size(); ++i) {
        const auto it = counts.find(folded_quad(b + i));
        const uint64_t n = it == counts.end() ? 0 : it->second;
        if (n < best_count) best_count = n, best = i;
    }
    return best;
}

struct GramTables {
    std::vector<uint32_t> pair_bits, triple_bits, bloom, pair_range, lit_off, lit_len;
    std::vector<uint32_t> keys[2], range[2]; // open-addressed: triples, quads
    std::vector<GramAtt> atts;
    std::vector<uint8_t> lit_bytes;
    std::vector<uint32_t> source; // table literal -> index in the caller's list
    uint32_t bloom_shift = 0, shift[2] = {};
    size_t pair_literals = 0, triple_literals = 0, quad_literals = 0, quads = 0;

    GramView view() const {
        return {pair_bits.data(),
                bloom.data(),
                bloom_shift,
                triple_bits.data(),
                pair_range.data(),
                {keys[0].data(), keys[1].data()},
                {range[0].data(), range[1].data()},
                {shift[0], shift[1]},
                atts.data(),
                lit_off.data(),
                lit_len.data(),
                lit_bytes.data()};
    }
};

// Tables for the gram literals of `literals` (others are skipped); a Bloom
// filter of 2^bloom_log2 bits.
inline GramTables gram_tables(const std::vector<Literal> &literals, const QuadCounts &counts, uint32_t bloom_log2) {
    if (bloom_log2 < 10 || bloom_log2 > 24) throw std::invalid_argument("gram_tables: Bloom filter of 2^10..2^24 bits");
    GramTables t;
    std::unordered_map<uint32_t, std::vector<GramAtt>> by_pair, by_window[2];
    for (size_t i = 0; i < literals.size(); ++i) {
        const Literal &l = literals[i];
        if (!is_gram_literal(l)) continue;
        const auto lit = static_cast<uint32_t>(t.source.size());
        const auto *b = reinterpret_cast<const uint8_t *>(l.bytes.data());
        t.source.push_back(static_cast<uint32_t>(i));
        t.lit_off.push_back(static_cast<uint32_t>(t.lit_bytes.size()));
        t.lit_len.push_back(static_cast<uint32_t>(l.bytes.size()) << 1 | (l.nocase ? 1u : 0u));
        t.lit_bytes.insert(t.lit_bytes.end(), b, b + l.bytes.size());
        if (l.bytes.size() == 2) {
            by_pair[gram_pair_key(b[0], b[1])].push_back({lit, 0});
            ++t.pair_literals;
        } else if (l.bytes.size() == 3) {
            by_window[0][gram_pair_key(b[0], b[1]) | uint32_t{fold_ascii(b[2])} << 16].push_back({lit, 0});
            ++t.triple_literals;
        } else {
            const uint32_t at = quad_window(l, counts);
            by_window[1][folded_quad(b + at)].push_back({lit, at});
            ++t.quad_literals;
        }
    }
    auto append = [&](std::vector<GramAtt> &list) {
        if (list.size() > 255) throw std::invalid_argument("gram_tables: more than 255 literals share a window");
        std::sort(list.begin(), list.end(), [](GramAtt a, GramAtt b) { return a.lit < b.lit; });
        const auto first = static_cast<uint32_t>(t.atts.size());
        if (first >= (1u << 24)) throw std::invalid_argument("gram_tables: too many literals");
        t.atts.insert(t.atts.end(), list.begin(), list.end());
        return first << 8 | static_cast<uint32_t>(list.size());
    };
    auto sorted_keys = [](const std::unordered_map<uint32_t, std::vector<GramAtt>> &m) {
        std::vector<uint32_t> k;
        for (auto &kv : m) k.push_back(kv.first);
        std::sort(k.begin(), k.end()); // deterministic att order
        return k;
    };
    t.pair_bits.assign(kPairWords, 0);
    t.pair_range.assign(65536, 0);
    for (uint32_t k : sorted_keys(by_pair)) {
        t.pair_bits[k >> 5] |= 1u << (k & 31);
        t.pair_range[k] = append(by_pair[k]);
    }
    t.triple_bits.assign(kTripleWords, 0);
    t.bloom_shift = 32 - bloom_log2;
    t.bloom.assign(size_t{1} << (bloom_log2 - 5), 0);
    for (int w = 0; w < 2; ++w) {
        uint32_t slots_log2 = 4;
        while ((size_t{1} << slots_log2) < 2 * by_window[w].size()) ++slots_log2;
        t.shift[w] = 32 - slots_log2;
        t.keys[w].assign(size_t{1} << slots_log2, 0);
        t.range[w].assign(size_t{1} << slots_log2, 0);
        for (uint32_t k : sorted_keys(by_window[w])) {
            if (w == 0) {
                const uint32_t h = triple_hash(k);
                t.triple_bits[h >> 5] |= 1u << (h & 31);
            } else {
                for (uint32_t h : {gram_hash1(k, t.bloom_shift), gram_hash2(k, t.bloom_shift)})
                    t.bloom[h >> 5] |= 1u << (h & 31);
            }
            uint32_t slot = gram_hash1(k, t.shift[w]);
            while (t.range[w][slot]) slot = (slot + 1) & ((1u << slots_log2) - 1);
            t.keys[w][slot] = k;
            t.range[w][slot] = append(by_window[w][k]);
        }
    }
    t.quads = by_window[1].size();
    if (t.atts.empty()) t.atts.push_back({0, 0}); // device copies need an element
    if (t.lit_bytes.empty()) t.lit_bytes.push_back(0);
    if (t.lit_off.empty()) t.lit_off.push_back(0), t.lit_len.push_back(0);
    return t;
}

// The CPU model of one 64-byte tile x of a HitText-like layout (raw bytes of
// the whole text, payload begins[] of its payloads, begins[count] = end):
// calls emit(payload, lit) per hit, a lane's repeats of its last hit skipped,
// as the kernels do. Passes counted into *passes when given.
template <typename Emit>
inline void gram_tile_host(const GramView &v, const uint8_t *raw, size_t x, uint64_t starts, uint32_t first_payload,
                           const uint32_t *begins, Emit emit, uint64_t *passes = nullptr) {
    constexpr uint32_t kTile = 64;
    const uint8_t *tile = raw + x * kTile;
    uint64_t last = UINT64_MAX;
    gram_filter_tile<kTile>(
        v, v.pair_bits, v.triple_bits, v.bloom, [&](uint32_t j) { return uint32_t{tile[j]}; },
        [&](uint32_t j, uint32_t kind, uint32_t key) {
            if (passes) ++*passes;
            const uint32_t pid = first_payload + __builtin_popcountll(starts & ~1ull & ((2ull << j) - 1));
            gram_check(
                v, [&](uint64_t i) { return raw[i]; }, x * kTile + j, kind, key, begins[pid], begins[pid + 1],
                [&](uint32_t lit) {
                    const uint64_t k = uint64_t{pid} << 32 | lit;
                    if (k != last) emit(pid, lit), last = k;
                });
        });
}

} // namespace wm::gpu::study
