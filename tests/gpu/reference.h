// tests/gpu/reference.h - naive and Hyperscan reference matchers plus random
// case generation for the gpu/ tests.
#pragma once

#include "gpu/gpu_matcher.h"

#include <algorithm>
#include <hs/hs.h>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <string>

// Skips a GPU test with the reason when no device is usable (CI has none).
#define REQUIRE_GPU()                                                                              \
    do {                                                                                           \
        std::string why_;                                                                          \
        if (!::wm::gpu::gpu_usable(0, &why_)) GTEST_SKIP() << "no CUDA device: " << why_;                     \
    } while (0)

namespace wm::gpu {
// Test-only equality (ADL finds it from std algorithms).
inline bool operator==(const Match &a, const Match &b) {
    return a.pattern == b.pattern && a.payload == b.payload && a.end == b.end;
}
} // namespace wm::gpu

namespace wm::gpu::test {

inline uint8_t fold(uint8_t c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

inline bool keep(const Literal &p, uint64_t start, uint64_t end) {
    return start >= p.offset && (p.depth == 0 || end <= uint64_t{p.offset} + p.depth);
}

// Every pattern at every position of every payload.
inline std::vector<Match> naive_matches(const std::vector<Literal> &pats, const BatchView &b) {
    std::vector<Match> out;
    for (uint32_t i = 0; i < b.count; ++i) {
        const uint8_t *d = b.data + b.offsets[i];
        const uint32_t n = b.offsets[i + 1] - b.offsets[i];
        for (uint32_t pi = 0; pi < pats.size(); ++pi) {
            const auto &p = pats[pi];
            const uint32_t L = static_cast<uint32_t>(p.bytes.size());
            for (uint32_t s = 0; s + L <= n; ++s) {
                bool ok = true;
                for (uint32_t j = 0; j < L && ok; ++j) {
                    uint8_t a = d[s + j], q = static_cast<uint8_t>(p.bytes[j]);
                    ok = p.nocase ? fold(a) == fold(q) : a == q;
                }
                if (ok && keep(p, s, s + L)) out.push_back(Match{pi, i, s + L});
            }
        }
    }
    return out;
}

inline std::vector<Match> hyperscan_matches(const std::vector<Literal> &pats, const BatchView &b) {
    std::vector<const char *> exprs;
    std::vector<size_t> lens;
    std::vector<unsigned> flags, ids;
    for (uint32_t i = 0; i < pats.size(); ++i) {
        exprs.push_back(pats[i].bytes.data());
        lens.push_back(pats[i].bytes.size());
        flags.push_back(pats[i].nocase ? HS_FLAG_CASELESS : 0);
        ids.push_back(i);
    }
    hs_database_t *db = nullptr;
    hs_compile_error_t *err = nullptr;
    if (hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(),
                             static_cast<unsigned>(pats.size()), HS_MODE_BLOCK, nullptr, &db, &err) != HS_SUCCESS) {
        std::string m = err ? err->message : "?";
        hs_free_compile_error(err);
        throw std::runtime_error("hs_compile_lit_multi: " + m);
    }
    hs_scratch_t *scratch = nullptr;
    hs_alloc_scratch(db, &scratch);
    struct Ctx { const std::vector<Literal> *pats; std::vector<Match> *out; uint32_t payload; } ctx{&pats, nullptr, 0};
    std::vector<Match> out;
    ctx.out = &out;
    for (uint32_t i = 0; i < b.count; ++i) {
        ctx.payload = i;
        hs_scan(db, reinterpret_cast<const char *>(b.data + b.offsets[i]), b.offsets[i + 1] - b.offsets[i], 0,
                scratch,
                [](unsigned id, unsigned long long, unsigned long long to, unsigned, void *c) -> int {
                    auto *x = static_cast<Ctx *>(c);
                    const auto &p = (*x->pats)[id];
                    if (keep(p, to - p.bytes.size(), to))
                        x->out->push_back(Match{id, x->payload, static_cast<uint32_t>(to)});
                    return 0;
                },
                &ctx);
    }
    hs_free_scratch(scratch);
    hs_free_database(db);
    return out;
}

// Positions output order: (payload, end, pattern).
inline bool positions_order_less(const Match &a, const Match &b) {
    return std::tie(a.payload, a.end, a.pattern) < std::tie(b.payload, b.end, b.pattern);
}
inline void sort_matches(std::vector<Match> &m) { std::sort(m.begin(), m.end(), positions_order_less); }
// Set output contract: strictly increasing (payload, pattern), end == 0.
inline bool set_sorted_distinct(const std::vector<Match> &m) {
    for (size_t i = 0; i < m.size(); ++i) {
        if (m[i].end != 0) return false;
        if (i > 0 && std::tie(m[i - 1].payload, m[i - 1].pattern) >= std::tie(m[i].payload, m[i].pattern))
            return false;
    }
    return true;
}
// Each (payload, pattern)'s first match of m (in Positions order), in that order.
inline std::vector<Match> first_per_pattern(std::vector<Match> m) {
    sort_matches(m);
    std::vector<Match> out;
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (const Match &x : m)
        if (seen.insert({x.payload, x.pattern}).second) out.push_back(x);
    return out;
}
inline std::vector<Match> dedup_set(std::vector<Match> m) {
    for (auto &x : m) x.end = 0;
    sort_matches(m);
    m.erase(std::unique(m.begin(), m.end()), m.end());
    return m;
}
// Distinct (payload, pattern) pairs of m, sorted.
inline std::vector<std::pair<uint32_t, uint32_t>> distinct_pairs(const std::vector<Match> &m) {
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (const Match &x : m) out.emplace_back(x.payload, x.pattern);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Random patterns/payloads over a small alphabet (forces overlaps).
struct Case {
    std::vector<Literal> pats;
    std::vector<uint8_t> data;
    std::vector<uint32_t> offs{0};
    BatchView view() const { return BatchView{data.data(), offs.data(), static_cast<uint32_t>(offs.size() - 1)}; }
};

// Payload lengths only (bytes all 'x'), for planner-level tests: 1-60
// payloads, a fifth empty, the rest up to 3000 (odd seed) or 400 bytes.
inline Case random_lengths(std::mt19937 &rng, uint32_t seed) {
    Case c;
    const uint32_t payloads = 1 + rng() % 60;
    for (uint32_t i = 0; i < payloads; ++i)
        c.offs.push_back(c.offs.back() + (rng() % 5 == 0 ? 0 : rng() % (seed % 2 ? 3000 : 400)));
    c.data.assign(c.offs.back() + 1, 'x');
    return c;
}

struct CaseSpec {
    std::string alphabet = "abAB";
    uint32_t patterns = 20, min_len = 1, max_len = 6;
    uint32_t payloads = 30, max_payload = 300;
    bool nocase_mix = true, offset_depth = true, duplicates = true;
    // Random payloads over the alphabet almost never hold a pattern past 5
    // bytes: copies of the patterns, and near misses (first byte flipped,
    // for the bytes a GPU key leaves to a check), are planted into them.
    bool plant = true;
};

// The spec's sizes, its other fields at their defaults.
inline CaseSpec sized_spec(uint32_t patterns, uint32_t max_len, uint32_t payloads, uint32_t max_payload) {
    CaseSpec s;
    s.patterns = patterns;
    s.max_len = max_len;
    s.payloads = payloads;
    s.max_payload = max_payload;
    return s;
}

inline Case random_case(uint32_t seed, const CaseSpec &s) {
    std::mt19937 rng(seed);
    Case c;
    auto pick = [&] { return s.alphabet[rng() % s.alphabet.size()]; };
    for (uint32_t i = 0; i < s.patterns; ++i) {
        Literal l;
        if (s.duplicates && i > 0 && rng() % 8 == 0) l = c.pats[rng() % i];
        else {
            uint32_t n = s.min_len + rng() % (s.max_len - s.min_len + 1);
            for (uint32_t j = 0; j < n; ++j) l.bytes.push_back(pick());
        }
        l.nocase = s.nocase_mix && (rng() % 2);
        l.offset = l.depth = 0;
        if (s.offset_depth && rng() % 3 == 0) {
            l.offset = rng() % 20;
            l.depth = rng() % 2 ? 0 : rng() % 40;
        }
        c.pats.push_back(l);
    }
    for (uint32_t i = 0; i < s.payloads; ++i) {
        uint32_t n = rng() % 6 == 0 ? 0 : rng() % (s.max_payload + 1);
        for (uint32_t j = 0; j < n; ++j) c.data.push_back(static_cast<uint8_t>(pick()));
        c.offs.push_back(static_cast<uint32_t>(c.data.size()));
    }
    std::mt19937 plant_rng(seed ^ 0x5eedu); // its own stream: the cases' other bytes stay as they were
    for (size_t i = 0; s.plant && !c.pats.empty() && i + 1 < c.offs.size(); ++i) {
        const uint32_t begin = c.offs[i], n = c.offs[i + 1] - begin;
        for (int t = 0; t < 2; ++t) {
            std::string p = c.pats[plant_rng() % c.pats.size()].bytes;
            if (p.empty() || p.size() > n) continue;
            if (t == 1) p[0] = static_cast<char>(p[0] ^ 0x01); // the near miss
            std::copy(p.begin(), p.end(), c.data.begin() + begin + plant_rng() % (n - p.size() + 1));
        }
    }
    return c;
}

// A case's payloads left in place, as a replay window leaves them: between
// and around them, gaps of 0-40 bytes over the case's own bytes (a gather
// that read a gap would match something else).
struct InPlace {
    std::vector<uint8_t> raw;
    std::vector<uint32_t> sources;
    BatchView view(const Case &c, const uint8_t *data = nullptr) const {
        return BatchView{data ? data : raw.data(), c.offs.data(), static_cast<uint32_t>(c.offs.size() - 1),
                         sources.data()};
    }
};

inline InPlace left_in_place(const Case &c, uint32_t seed) {
    std::mt19937 rng(seed);
    InPlace p;
    auto gap = [&] {
        const uint32_t n = rng() % 3 == 0 ? 0 : rng() % 41;
        for (uint32_t k = 0; k < n; ++k)
            p.raw.push_back(c.data.empty() ? uint8_t('a') : c.data[rng() % c.data.size()] ^ uint8_t(k % 2 ? 0x20 : 0));
    };
    for (size_t i = 0; i + 1 < c.offs.size(); ++i) {
        gap();
        p.sources.push_back(static_cast<uint32_t>(p.raw.size()));
        p.raw.insert(p.raw.end(), c.data.begin() + c.offs[i], c.data.begin() + c.offs[i + 1]);
    }
    gap();
    return p;
}

} // namespace wm::gpu::test
