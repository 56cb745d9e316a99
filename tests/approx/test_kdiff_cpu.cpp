// CPU reference (plain DP) vs the kernels' bit-parallel lane walk vs the
// prefilter route vs Hyperscan with extended parameters.
#include "cases.h"
#include "gpu/approx/prefilter.h"

#include <gtest/gtest.h>

using namespace wm::approx;
using namespace wm::approx::test;

namespace {

// The CPU scan `scan` over the case, matches in canonical order.
template <typename Scan> std::vector<ApproxMatch> sorted_scan(const Case &c, Scan scan) {
    const auto blob = compile_kdiff(c.pats);
    std::vector<ApproxMatch> out;
    scan(blob, c.batch.view(), out);
    sort_approx_matches(out);
    return out;
}
std::vector<ApproxMatch> walk(const Case &c) { return sorted_scan(c, kdiff_cpu_scan); }
std::vector<ApproxMatch> prefilter(const Case &c) { return sorted_scan(c, prefilter_cpu_scan); }

} // namespace

TEST(KdiffCpu, PaperExample) {
    // ASM(ababa, aaabbbaa) = 1 (SEEDS.md section 1): ends within 1 edit exist, none exact.
    Case c;
    c.pats.push_back({"ababa", 1, Metric::Levenshtein, false});
    c.batch.add("aaabbbaa");
    const auto ref = reference_scan(c.pats, c.batch.view());
    ASSERT_FALSE(ref.empty());
    for (const auto &m : ref) EXPECT_EQ(m.distance, 1u);
    EXPECT_EQ(walk(c), ref);
}

TEST(KdiffCpu, RandomSmallPatternsMatchReference) {
    for (uint32_t seed = 1; seed <= 40; ++seed) {
        const Case c = random_case(seed, 1 + seed % 40, 24, 12, 300);
        SCOPED_TRACE("seed " + std::to_string(seed));
        const auto ref = reference_scan(c.pats, c.batch.view());
        ASSERT_EQ(walk(c), ref);
        ASSERT_EQ(prefilter(c), ref);
    }
}

TEST(KdiffCpu, MultiWordPatternsMatchReference) {
    for (uint32_t seed = 100; seed < 112; ++seed) {
        const Case c = random_case(seed, 6, 700, 4, 2500, 0.2);
        SCOPED_TRACE("seed " + std::to_string(seed));
        const auto ref = reference_scan(c.pats, c.batch.view());
        ASSERT_EQ(walk(c), ref);
        ASSERT_EQ(prefilter(c), ref);
    }
}

// The lane computes only the blocks that can hold a cell <= k (Ukkonen's
// cut-off): large k, k at word boundaries and long planted near-copies make
// blocks enter and leave while the walk runs. One test per alphabet, so ctest
// runs them in parallel (the plain DP over ~16 K pattern bytes is the cost).
class KdiffCutoff : public ::testing::TestWithParam<const char *> {};

TEST_P(KdiffCutoff, BlocksEnterAndLeave) {
    const std::string alpha = GetParam();
    std::mt19937 rng(7);
    Case c;
    for (const uint32_t m : {65u, 128u, 129u, 300u, 700u, 1024u})
        for (const uint32_t k : {0u, 1u, 63u, 64u, 65u, 130u, m - 2}) {
            if (k + 1 >= m) continue;
            c.pats.push_back({random_text(rng, m, alpha), k, Metric::Levenshtein, false});
        }
    for (uint32_t i = 0; i < 2; ++i) {
        std::string t = random_text(rng, 2200, alpha);
        const auto &p = c.pats[rng() % c.pats.size()];
        const std::string v = mutate(rng, p.bytes, p.k / 2, alpha, false);
        t.replace(600, std::min<size_t>(v.size(), 1400), v.substr(0, 1400));
        c.batch.add(t);
    }
    const auto ref = reference_scan(c.pats, c.batch.view());
    ASSERT_FALSE(ref.empty());
    ASSERT_EQ(walk(c), ref);
    ASSERT_EQ(prefilter(c), ref);
}

INSTANTIATE_TEST_SUITE_P(Alphabets, KdiffCutoff, ::testing::Values("ab", "acgt", "abcdefghijklmnop"),
                         [](const auto &info) { return "sigma" + std::to_string(std::string(info.param).size()); });

TEST(KdiffCpu, EdgeCases) {
    Case c;
    c.pats.push_back({"abcd", 0, Metric::Levenshtein, false}); // k = 0: exact
    c.pats.push_back({"abcd", 2, Metric::Levenshtein, false});
    c.pats.push_back({"abcd", 1, Metric::Hamming, false});
    c.pats.push_back({"aaaaaa", 2, Metric::Levenshtein, false}); // repeated characters
    c.pats.push_back({"AbCd", 1, Metric::Levenshtein, true});     // nocase
    for (const char *t : {"", "a", "ab", "abc", "abcd", "abcdabcd", "xabcd", "abcdx", "aaaaaaaaaaa", "ABCD",
                          "abxd", "acd", "aabcdd"})
        c.batch.add(t);
    const auto ref = reference_scan(c.pats, c.batch.view());
    EXPECT_EQ(walk(c), ref);
    EXPECT_EQ(prefilter(c), ref);
}

TEST(KdiffCpu, RejectsPatternsTheKernelsCannotTake) {
    EXPECT_THROW(compile_kdiff({{"", 0, Metric::Levenshtein, false}}), std::invalid_argument);
    EXPECT_THROW(compile_kdiff({{"ab", 2, Metric::Levenshtein, false}}), std::invalid_argument);
    EXPECT_NO_THROW(compile_kdiff({{"ab", 1, Metric::Levenshtein, false}}));
    EXPECT_NO_THROW(compile_kdiff({{"ab", 5, Metric::Hamming, false}}));
    EXPECT_THROW(compile_kdiff({{std::string(1025, 'a'), 1, Metric::Levenshtein, false}}),
                 std::invalid_argument);
    EXPECT_THROW(compile_kdiff({{std::string(40, 'a'), 8, Metric::Hamming, false}}), std::invalid_argument);
    EXPECT_NO_THROW(compile_kdiff({{std::string(1024, 'a'), 1, Metric::Levenshtein, false}}));
}

// The engine names the rule from the index a rejection carries.
TEST(KdiffCpu, ARejectionCarriesThePatternIndex) {
    try {
        compile_kdiff({{"abcd", 1, Metric::Levenshtein, false},
                       {"efgh", 1, Metric::Hamming, false},
                       {std::string(1025, 'a'), 1, Metric::Levenshtein, false}});
        FAIL() << "a 1025-byte pattern is past the kernels";
    } catch (const KdiffPatternError &e) {
        EXPECT_EQ(e.pattern, 2u);
        EXPECT_NE(e.why.find("1025 bytes exceeds the GPU limit of 1024"), std::string::npos) << e.why;
        EXPECT_EQ(std::string(e.what()), "approximate pattern 2: " + e.why);
    }
}

// Hyperscan's extended parameters compute the same end offsets (it reports no
// distance). Patterns with m <= k + 1 are outside both (rules/ rejects them).
// The pigeonhole needs k + 1 non-empty pieces: a Hamming pattern with k >= m
// (every window matches) would get none to find, and so no match at all.
TEST(KdiffCpu, ThePrefilterRefusesHammingAsLongAsK) {
    Case c;
    c.pats = {{"abcd", 1, Metric::Hamming, false}, {"abc", 3, Metric::Hamming, false}};
    c.batch.add("xyz");
    ASSERT_EQ(walk(c).size(), 1u); // "xyz" is within 3 mismatches of "abc"
    try {
        prefilter(c);
        FAIL() << "expected KdiffPatternError";
    } catch (const KdiffPatternError &e) {
        EXPECT_EQ(e.pattern, 1u);
    }
}

TEST(KdiffCpu, HyperscanExtParamsAgree) {
    for (uint32_t seed = 200; seed < 230; ++seed) {
        Case c = random_case(seed, 1 + seed % 12, 20, 10, 200);
        SCOPED_TRACE("seed " + std::to_string(seed));
        // Hyperscan refuses Levenshtein patterns with m <= k (checked below).
        std::vector<ApproxPattern> kept;
        for (const auto &p : c.pats)
            if (p.bytes.size() > p.k) kept.push_back(p);
        c.pats = kept;
        if (c.pats.empty()) continue;
        std::vector<ApproxMatch> hs;
        std::string err;
        ASSERT_TRUE(hyperscan_scan(c.pats, c.batch.view(), hs, &err)) << err;
        EXPECT_EQ(without_distance(walk(c)), hs);
    }
}

// What Hyperscan does at the edges, recorded (docs: gpu/approx/README.md).
TEST(KdiffCpu, HyperscanEdgeBehaviour) {
    OwnedBatch b;
    b.add("xxabcdxxabdxx");
    std::vector<ApproxMatch> out;
    std::string err;
    // k = 0 is accepted and means exact matching.
    ASSERT_TRUE(hyperscan_scan({{"abcd", 0, Metric::Levenshtein, false}}, b.view(), out, &err)) << err;
    EXPECT_EQ(out, (std::vector<ApproxMatch>{{0, 0, 6, 0}}));
    out.clear();
    ASSERT_TRUE(hyperscan_scan({{"abcd", 0, Metric::Hamming, false}}, b.view(), out, &err)) << err;
    EXPECT_EQ(out, (std::vector<ApproxMatch>{{0, 0, 6, 0}}));
    // Levenshtein with m <= k is "vacuous" and rejected; m == k + 1 is
    // accepted (rules/ is stricter: it requires m > k + 1). Hamming accepts
    // k >= m (every m-byte window matches).
    out.clear();
    EXPECT_FALSE(hyperscan_scan({{"abc", 3, Metric::Levenshtein, false}}, b.view(), out, &err));
    RecordProperty("hs_vacuous_error", err);
    for (const ApproxPattern &p : {ApproxPattern{"abc", 2, Metric::Levenshtein, false},
                                   ApproxPattern{"ab", 2, Metric::Hamming, false},
                                   ApproxPattern{"ab", 1, Metric::Levenshtein, false}}) {
        out.clear();
        ASSERT_TRUE(hyperscan_scan({p}, b.view(), out, &err)) << err;
        EXPECT_EQ(out, without_distance(reference_scan({p}, b.view()))) << p.bytes << " k " << p.k;
        EXPECT_EQ(without_distance(walk(Case{{p}, b})), out);
    }
}
