// tests/exact/exact_reference.h - inputs and peers for the exact matcher
// tests: random texts with planted (overlapping) occurrences, periodic and
// aperiodic patterns, and Hyperscan compiled from a regex of \xHH escapes
// (hs_compile_lit fails with HS_UNKNOWN_ERROR in 5.4, so it is not used).
#pragma once

#include "gpu/exact/exact_pattern.h"
#include "gpu/gpu_matcher.h"

#include <algorithm>
#include <cstdio>
#include <hs/hs.h>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace wm::gpu::exact::test {

// Bytes drawn from the first `alphabet` letters of "ab...z" (alphabet <= 26),
// or any byte when alphabet == 256.
inline std::string random_bytes(std::mt19937_64 &rng, size_t n, unsigned alphabet) {
    std::string s(n, '\0');
    for (auto &c : s) {
        const unsigned v = static_cast<unsigned>(rng() % alphabet);
        c = static_cast<char>(alphabet == 256 ? v : 'a' + v);
    }
    return s;
}

// P = u^k u' with |u| = period: periodic when 2 * period <= m.
inline std::string periodic_pattern(std::mt19937_64 &rng, size_t m, size_t period, unsigned alphabet) {
    const std::string u = random_bytes(rng, period, alphabet);
    std::string p(m, '\0');
    for (size_t i = 0; i < m; ++i) p[i] = u[i % period];
    return p;
}

// Copies the pattern into the text at `at` (clipped at the end).
inline void plant(std::string &text, const std::string &p, size_t at) {
    for (size_t k = 0; k < p.size() && at + k < text.size(); ++k) text[at + k] = p[k];
}

// Plants `count` occurrences at random positions, plus at 0, at n - m and, for
// periodic patterns, a run of overlapping copies (shifted by the period).
inline void plant_many(std::mt19937_64 &rng, std::string &text, const std::string &p, size_t count,
                       size_t period) {
    if (p.size() > text.size()) return;
    const size_t last = text.size() - p.size();
    plant(text, p, 0);
    plant(text, p, last);
    for (size_t i = 0; i < count; ++i) plant(text, p, rng() % (last + 1));
    if (2 * period <= p.size()) {
        const size_t at = rng() % (last + 1);
        for (size_t k = 0; k < 4; ++k) plant(text, p, std::min(last, at + k * period));
    }
}

inline std::string hs_regex(const std::string &p) {
    std::string re;
    char buf[8];
    for (unsigned char c : p) std::snprintf(buf, sizeof buf, "\\x%02x", c), re += buf;
    return re;
}

// Hyperscan occurrences (start positions, sorted) of one literal.
inline std::vector<uint32_t> hyperscan_search(const std::string &text, const std::string &p, bool nocase) {
    std::vector<uint32_t> out;
    if (p.size() > text.size()) return out;
    hs_database_t *db = nullptr;
    hs_compile_error_t *err = nullptr;
    const std::string re = hs_regex(p);
    if (hs_compile(re.c_str(), HS_FLAG_DOTALL | (nocase ? HS_FLAG_CASELESS : 0), HS_MODE_BLOCK, nullptr,
                   &db, &err) != HS_SUCCESS) {
        const std::string msg = err ? err->message : "?";
        hs_free_compile_error(err);
        throw std::runtime_error("hs_compile: " + msg);
    }
    hs_scratch_t *scratch = nullptr;
    hs_alloc_scratch(db, &scratch);
    struct Ctx { std::vector<uint32_t> *out; uint32_t m; } ctx{&out, static_cast<uint32_t>(p.size())};
    auto cb = [](unsigned, unsigned long long, unsigned long long to, unsigned, void *c) -> int {
        auto *x = static_cast<Ctx *>(c);
        x->out->push_back(static_cast<uint32_t>(to - x->m));
        return 0;
    };
    const hs_error_t rc = hs_scan(db, text.data(), static_cast<unsigned>(text.size()), 0, scratch, cb, &ctx);
    hs_free_scratch(scratch);
    hs_free_database(db);
    if (rc != HS_SUCCESS) throw std::runtime_error("hs_scan failed");
    std::sort(out.begin(), out.end());
    return out;
}

inline const uint8_t *u8(const std::string &s) { return reinterpret_cast<const uint8_t *>(s.data()); }

// One generated case: text, pattern, and a label for failure traces.
struct TextCase {
    std::string text, pattern, label;
    bool nocase = false;
};

// Random case from a seed: alphabet, m, n and periodicity all vary.
inline TextCase random_case(uint64_t seed) {
    std::mt19937_64 rng(seed);
    static const unsigned kAlpha[] = {2, 4, 26, 256};
    static const size_t kM[] = {1, 2, 3, 5, 16, 17, 63, 255, 256, 1000, 1500};
    const unsigned alpha = kAlpha[rng() % 4];
    const size_t m = kM[rng() % 11];
    const size_t n = m + rng() % (3 * 8192 + 2000);
    const bool periodic = rng() % 2 == 0 && m >= 2;
    const size_t period = periodic ? 1 + rng() % std::max<size_t>(1, m / 2) : m;
    TextCase c;
    c.pattern = periodic ? periodic_pattern(rng, m, period, alpha) : random_bytes(rng, m, alpha);
    c.text = random_bytes(rng, n, alpha);
    plant_many(rng, c.text, c.pattern, 1 + n / 2000, period);
    c.label = "seed=" + std::to_string(seed) + " alphabet=" + std::to_string(alpha) + " m=" +
              std::to_string(m) + " n=" + std::to_string(n) + " period<=" + std::to_string(period);
    return c;
}

} // namespace wm::gpu::exact::test
