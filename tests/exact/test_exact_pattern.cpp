// tests/exact/test_exact_pattern.cpp - periods, duel prefix, witnesses, KMP.
#include "exact_reference.h"

#include <gtest/gtest.h>

using namespace wm::gpu::exact;
using namespace wm::gpu::exact::test;

namespace {

uint32_t brute_period(const std::string &s) {
    for (uint32_t d = 1; d < s.size(); ++d) {
        bool ok = true;
        for (size_t k = d; k < s.size() && ok; ++k) ok = s[k] == s[k - d];
        if (ok) return d;
    }
    return static_cast<uint32_t>(s.size());
}

// Every property the duel relies on, checked against brute-force definitions.
void check_prepared(const std::string &p, bool nocase, const std::string &label) {
    const PreparedPattern pp = prepare_pattern(p, nocase);
    ASSERT_EQ(pp.m(), p.size()) << label;
    ASSERT_EQ(pp.period, brute_period(pp.bytes)) << label;
    const std::string s = pp.bytes.substr(0, pp.duel_length);
    ASSERT_EQ(pp.duel_length, pp.periodic() ? 2 * pp.period - 1 : pp.m()) << label;
    ASSERT_EQ(pp.span, brute_period(s)) << label;
    ASSERT_GT(2 * pp.span, pp.duel_length) << label << ": duel prefix must be non-periodic";
    if (pp.periodic()) ASSERT_EQ(pp.span, pp.period) << label;
    ASSERT_EQ(pp.witness.size(), pp.span) << label;
    for (uint32_t d = 1; d < pp.span; ++d) {
        const uint32_t w = pp.witness[d];
        ASSERT_GE(w, d) << label << " d=" << d;
        ASSERT_LT(w, pp.duel_length) << label << " d=" << d;
        ASSERT_NE(s[w], s[w - d]) << label << " d=" << d;
    }
}

TEST(ExactPattern, EveryBinaryStringUpTo12) {
    for (uint32_t len = 1; len <= 12; ++len)
        for (uint32_t bits = 0; bits < (1u << len); ++bits) {
            std::string p(len, 'a');
            for (uint32_t k = 0; k < len; ++k)
                if (bits >> k & 1) p[k] = 'b';
            check_prepared(p, false, p);
        }
}

TEST(ExactPattern, RandomPeriodicAndAperiodic) {
    std::mt19937_64 rng(20240601);
    for (int it = 0; it < 400; ++it) {
        const size_t m = 1 + rng() % 3000;
        const unsigned alpha = (it % 3 == 0) ? 2 : (it % 3 == 1 ? 26 : 256);
        const bool periodic = it % 2 == 0;
        const size_t period = 1 + rng() % std::max<size_t>(1, m / 2);
        const std::string p = periodic ? periodic_pattern(rng, m, period, alpha) : random_bytes(rng, m, alpha);
        check_prepared(p, it % 5 == 0, "it=" + std::to_string(it) + " m=" + std::to_string(m));
    }
}

TEST(ExactPattern, NocaseFoldsOnlyAsciiLetters) {
    const PreparedPattern pp = prepare_pattern("AbC[\xC1z", true);
    EXPECT_EQ(pp.bytes, "abc[\xC1z");
    EXPECT_EQ(prepare_pattern("aAaA", true).period, 1u);
    EXPECT_EQ(prepare_pattern("aAaA", false).period, 2u);
}

TEST(ExactPattern, RejectsEmptyAndOversize) {
    EXPECT_THROW(prepare_pattern("", false), std::invalid_argument);
    EXPECT_THROW(prepare_pattern(std::string(65536, 'a'), false), std::invalid_argument);
    EXPECT_NO_THROW(prepare_pattern(std::string(65535, 'a'), false));
}

TEST(ExactPattern, ZFunctionMatchesDefinition) {
    std::mt19937_64 rng(7);
    for (int it = 0; it < 200; ++it) {
        const std::string s = random_bytes(rng, 1 + rng() % 200, 2 + it % 3);
        const auto z = z_function(u8(s), static_cast<uint32_t>(s.size()));
        for (size_t k = 0; k < s.size(); ++k) {
            size_t v = 0;
            while (k + v < s.size() && s[v] == s[k + v]) ++v;
            ASSERT_EQ(z[k], v) << s << " k=" << k;
        }
    }
}

TEST(ExactPattern, KmpEqualsBruteForce) {
    for (uint64_t seed = 1; seed <= 60; ++seed) {
        const TextCase c = random_case(seed);
        std::vector<uint32_t> kmp;
        kmp_search(u8(c.text), c.text.size(), c.pattern, kmp_failure(c.pattern), kmp);
        ASSERT_EQ(kmp, brute_search(u8(c.text), c.text.size(), c.pattern, false)) << c.label;
    }
}

} // namespace
