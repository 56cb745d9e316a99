// tests/approx/reference.h - plain CPU oracles for approximate matching,
// written from the definitions (no bit tricks), plus Hyperscan with extended
// parameters and a random-case generator.
#pragma once

#include "gpu/approx/kdiff.h"

#include <hs/hs.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace wm::approx::test {

inline bool same(uint8_t a, uint8_t b, bool nocase) {
    auto f = [](uint8_t c) { return (c >= 'A' && c <= 'Z') ? uint8_t(c + 32) : c; };
    return nocase ? f(a) == f(b) : a == b;
}

// Sellers' DP: d[j] = min over i <= j of ED(p, t[i, j)), j = 0..n.
inline std::vector<uint32_t> sellers(const std::string &p, const uint8_t *t, size_t n, bool nocase) {
    const size_t m = p.size();
    std::vector<uint32_t> col(m + 1), d(n + 1);
    for (size_t i = 0; i <= m; ++i) col[i] = uint32_t(i);
    d[0] = uint32_t(m);
    for (size_t j = 1; j <= n; ++j) {
        uint32_t diag = col[0];
        col[0] = 0;
        for (size_t i = 1; i <= m; ++i) {
            const uint32_t up = col[i - 1], left = col[i];
            const uint32_t v = std::min({left + 1, up + 1, diag + (same(uint8_t(p[i - 1]), t[j - 1], nocase) ? 0u : 1u)});
            diag = left;
            col[i] = v;
        }
        d[j] = col[m];
    }
    return d;
}

// Every reference match of the patterns over the payloads, sorted.
inline std::vector<ApproxMatch> reference_scan(const std::vector<ApproxPattern> &pats,
                                               const PayloadBatch &b) {
    std::vector<ApproxMatch> out;
    for (uint32_t pi = 0; pi < pats.size(); ++pi) {
        const auto &p = pats[pi];
        for (uint32_t i = 0; i < b.count; ++i) {
            const uint8_t *t = b.data + b.offsets[i];
            const size_t n = b.offsets[i + 1] - b.offsets[i];
            if (p.metric == Metric::Levenshtein) {
                const auto d = sellers(p.bytes, t, n, p.nocase);
                for (size_t j = 1; j <= n; ++j)
                    if (d[j] <= p.k) out.push_back({pi, i, uint32_t(j), d[j]});
            } else {
                const size_t m = p.bytes.size();
                for (size_t j = m; j <= n; ++j) {
                    uint32_t mis = 0;
                    for (size_t r = 0; r < m; ++r) mis += same(uint8_t(p.bytes[r]), t[j - m + r], p.nocase) ? 0 : 1;
                    if (mis <= p.k) out.push_back({pi, i, uint32_t(j), mis});
                }
            }
        }
    }
    sort_approx_matches(out);
    return out;
}

// Hyperscan with extended parameters: (pattern, payload, end), distance left 0.
// Returns false (and the message) when Hyperscan rejects the set.
inline bool hyperscan_scan(const std::vector<ApproxPattern> &pats, const PayloadBatch &b,
                           std::vector<ApproxMatch> &out, std::string *error = nullptr) {
    static const char hex[] = "0123456789abcdef";
    std::vector<std::string> re;
    std::vector<const char *> ex;
    std::vector<unsigned> flags, ids;
    std::vector<hs_expr_ext_t> ext(pats.size());
    std::vector<const hs_expr_ext_t *> extp;
    for (uint32_t i = 0; i < pats.size(); ++i) {
        std::string r;
        for (unsigned char c : pats[i].bytes) r += std::string("\\x") + hex[c >> 4] + hex[c & 15];
        re.push_back(r);
        flags.push_back(pats[i].nocase ? HS_FLAG_CASELESS : 0);
        ids.push_back(i);
        ext[i] = hs_expr_ext_t{};
        if (pats[i].metric == Metric::Levenshtein) {
            ext[i].flags = HS_EXT_FLAG_EDIT_DISTANCE;
            ext[i].edit_distance = pats[i].k;
        } else {
            ext[i].flags = HS_EXT_FLAG_HAMMING_DISTANCE;
            ext[i].hamming_distance = pats[i].k;
        }
    }
    for (uint32_t i = 0; i < pats.size(); ++i) {
        ex.push_back(re[i].c_str());
        extp.push_back(&ext[i]);
    }
    hs_database_t *db = nullptr;
    hs_compile_error_t *err = nullptr;
    if (hs_compile_ext_multi(ex.data(), flags.data(), ids.data(), extp.data(), unsigned(ex.size()),
                             HS_MODE_BLOCK, nullptr, &db, &err) != HS_SUCCESS) {
        if (error) *error = err ? err->message : "?";
        hs_free_compile_error(err);
        return false;
    }
    hs_scratch_t *s = nullptr;
    if (hs_alloc_scratch(db, &s) != HS_SUCCESS) throw std::runtime_error("hs_alloc_scratch");
    struct Ctx {
        std::vector<ApproxMatch> *out;
        uint32_t payload;
    } ctx{&out, 0};
    auto cb = [](unsigned id, unsigned long long, unsigned long long to, unsigned, void *p) -> int {
        auto *c = static_cast<Ctx *>(p);
        c->out->push_back({id, c->payload, uint32_t(to), 0});
        return 0;
    };
    for (uint32_t i = 0; i < b.count; ++i) {
        const uint32_t n = b.offsets[i + 1] - b.offsets[i];
        if (!n) continue;
        ctx.payload = i;
        if (hs_scan(db, reinterpret_cast<const char *>(b.data + b.offsets[i]), n, 0, s, cb, &ctx) != HS_SUCCESS)
            throw std::runtime_error("hs_scan");
    }
    hs_free_scratch(s);
    hs_free_database(db);
    sort_approx_matches(out);
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return true;
}

inline std::vector<ApproxMatch> without_distance(std::vector<ApproxMatch> v) {
    for (auto &m : v) m.distance = 0;
    return v;
}

// Owning batch.
struct OwnedBatch {
    std::vector<uint8_t> data;
    std::vector<uint32_t> offsets{0};
    void add(const std::string &s) {
        data.insert(data.end(), s.begin(), s.end());
        offsets.push_back(uint32_t(data.size()));
    }
    PayloadBatch view() const { return PayloadBatch{data.data(), offsets.data(), uint32_t(offsets.size() - 1)}; }
};

// Random text over a small alphabet (so approximate matches are frequent),
// with mutated copies of the patterns planted.
inline std::string random_text(std::mt19937 &rng, size_t n, const std::string &alphabet) {
    std::string s(n, 'a');
    std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
    for (auto &c : s) c = alphabet[pick(rng)];
    return s;
}

inline std::string mutate(std::mt19937 &rng, std::string p, uint32_t edits, const std::string &alphabet,
                          bool substitutions_only) {
    std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
    for (uint32_t e = 0; e < edits && !p.empty(); ++e) {
        const size_t at = std::uniform_int_distribution<size_t>(0, p.size() - 1)(rng);
        const int op = substitutions_only ? 0 : int(rng() % 3);
        if (op == 0) p[at] = alphabet[pick(rng)];
        else if (op == 1) p.erase(at, 1);
        else p.insert(p.begin() + at, alphabet[pick(rng)]);
    }
    return p;
}

} // namespace wm::approx::test
