// GPU kernels vs their CPU references: the seed ASM kernel vs the sequential
// DP (every m of Table 1), the k-differences kernels (direct and prefilter
// routes) vs the lane walk and the plain DP, ApproxEngine GPU vs CPU.
// Every case skips with the reason when no GPU is usable.
#include "approx_engine.h"
#include "cases.h"
#include "gpu/approx/approx_matcher.h"
#include "gpu/approx/seed_asm.h"
#include "gpu/gpu_matcher.h"

#include <gtest/gtest.h>

using namespace wm;
using namespace wm::approx;
using namespace wm::approx::test;

#define REQUIRE_GPU()                                                                              \
    do {                                                                                           \
        std::string why_;                                                                          \
        if (!approx_gpu_usable(0, &why_)) GTEST_SKIP() << "no usable GPU: " << why_;              \
    } while (0)

TEST(SeedGpu, MatchesSequentialForEveryTableM) {
    REQUIRE_GPU();
    std::mt19937 rng(21);
    for (uint32_t m : {32u, 64u, 128u, 256u, 512u, 1024u, 1u, 33u, 1000u}) {
        for (uint32_t d : {1u, 16u, 128u, 2048u}) {
            const std::string x = random_text(rng, m, "01");
            std::string y = random_text(rng, 40000 + rng() % 1000, "01");
            const std::string v = mutate(rng, x, 2, "01", false);
            y.replace(rng() % (y.size() - v.size()), v.size(), v);
            SCOPED_TRACE("m " + std::to_string(m) + " D " + std::to_string(d));
            const auto *xp = reinterpret_cast<const uint8_t *>(x.data());
            const auto *yp = reinterpret_cast<const uint8_t *>(y.data());
            const auto seq = asm_sequential(xp, m, yp, y.size());
            EXPECT_EQ(seed_asm_gpu_host(xp, m, yp, y.size(), d), seq);
            EXPECT_EQ(seed_asm_gpu_host(xp, m, yp, y.size(), d, SeedSchedule::Strips), seq);
        }
    }
}

TEST(SeedGpu, EdgeSizes) {
    REQUIRE_GPU();
    const std::string x = "0110011";
    for (const std::string y : {"0", "0110", "0110011", "10101010101010"}) {
        const auto *xp = reinterpret_cast<const uint8_t *>(x.data());
        const auto *yp = reinterpret_cast<const uint8_t *>(y.data());
        for (uint32_t d : {1u, 4u}) {
            const auto seq = asm_sequential(xp, 7, yp, y.size());
            EXPECT_EQ(seed_asm_gpu_host(xp, 7, yp, y.size(), d), seq) << y;
            EXPECT_EQ(seed_asm_gpu_host(xp, 7, yp, y.size(), d, SeedSchedule::Strips), seq) << y;
        }
    }
}

namespace {
std::vector<ApproxMatch> gpu_scan(const Case &c, Route route, wm::gpu::HostWait wait = wm::gpu::HostWait::Spin) {
    ApproxOptions o;
    o.route = route;
    o.wait = wait;
    auto mt = ApproxMatcher::create(c.pats, o);
    std::vector<ApproxMatch> out;
    mt->scan(c.batch.view(), out);
    return out;
}
} // namespace

TEST(KdiffGpu, DirectAndPrefilterMatchReference) {
    REQUIRE_GPU();
    for (uint32_t seed = 1; seed <= 30; ++seed) {
        // Up to 100 patterns (several groups), payloads crossing 2048-byte chunks.
        const Case c = random_case(seed, 1 + (seed * 7) % 100, seed % 4 ? 40 : 300, 30, seed % 2 ? 300 : 6000);
        SCOPED_TRACE("seed " + std::to_string(seed));
        const auto ref = reference_scan(c.pats, c.batch.view());
        ASSERT_EQ(gpu_scan(c, Route::Direct), ref);
        ASSERT_EQ(gpu_scan(c, Route::Prefilter), ref);
    }
}

// A matcher that sleeps while the device works (HostWait::Block) finds what
// a spinning one does on both routes (the prefilter's Aho-Corasick matcher
// waits the same way), and says how it waits.
TEST(KdiffGpu, BlockingWaitsMatchReference) {
    REQUIRE_GPU();
    for (uint32_t seed : {3u, 8u, 13u}) {
        const Case c = random_case(seed, 1 + (seed * 7) % 100, 300, 30, 6000);
        SCOPED_TRACE("seed " + std::to_string(seed));
        const auto ref = reference_scan(c.pats, c.batch.view());
        ASSERT_FALSE(ref.empty());
        ASSERT_EQ(gpu_scan(c, Route::Direct, wm::gpu::HostWait::Block), ref);
        ASSERT_EQ(gpu_scan(c, Route::Prefilter, wm::gpu::HostWait::Block), ref);
    }
    const Case c = random_case(3, 22, 40, 30, 300);
    ApproxOptions o;
    o.wait = wm::gpu::HostWait::Block;
    EXPECT_NE(ApproxMatcher::create(c.pats, o)->describe().find("host waits block"), std::string::npos);
    EXPECT_NE(ApproxMatcher::create(c.pats, {})->describe().find("host waits spin"), std::string::npos);
}

TEST(KdiffGpu, WideAndEdgePatterns) {
    REQUIRE_GPU();
    Case c;
    std::mt19937 rng(5);
    for (uint32_t m : {2u, 3u, 63u, 64u, 65u, 127u, 128u, 129u, 255u, 256u, 511u, 1024u}) {
        const std::string p = random_text(rng, m, "ab");
        c.pats.push_back({p, m >= 3 ? std::min<uint32_t>(m - 2, 5) : 0, Metric::Levenshtein, false});
        if (m <= 256) c.pats.push_back({p, std::min<uint32_t>(m - 1, 3), Metric::Hamming, false});
    }
    c.batch.add("");
    c.batch.add("a");
    for (int i = 0; i < 6; ++i) {
        std::string t = random_text(rng, 2048 * (i + 1) + i - 3, "ab");
        const auto &p = c.pats[rng() % c.pats.size()].bytes;
        const size_t at = 2048 - std::min<size_t>(2048, p.size() / 2);
        if (at + p.size() <= t.size()) t.replace(at, p.size(), p); // straddles a chunk edge
        c.batch.add(t);
    }
    const auto ref = reference_scan(c.pats, c.batch.view());
    EXPECT_EQ(gpu_scan(c, Route::Direct), ref);
    EXPECT_EQ(gpu_scan(c, Route::Prefilter), ref);
}

// Hamming with k >= m: every m-byte window matches and no piece need occur,
// so the prefilter route found nothing where the direct one found all.
TEST(KdiffGpu, HammingAsLongAsKTakesTheDirectRoute) {
    REQUIRE_GPU();
    Case c;
    c.pats = {{"ab", 2, Metric::Hamming, false},
              {"abc", 3, Metric::Hamming, false},
              {"abcd", 1, Metric::Levenshtein, false}};
    c.batch.add("xyz");
    c.batch.add(std::string(size_t{2} << 20, 'q')); // big enough for Auto to decide
    const auto ref = reference_scan(c.pats, c.batch.view());
    ASSERT_FALSE(ref.empty());
    auto mt = ApproxMatcher::create(c.pats, {});
    EXPECT_EQ(mt->route(), Route::Direct);
    std::vector<ApproxMatch> out;
    mt->scan(c.batch.view(), out);
    EXPECT_EQ(out, ref);
    ApproxOptions forced;
    forced.route = Route::Prefilter;
    EXPECT_THROW(ApproxMatcher::create(c.pats, forced), KdiffPatternError);
}

TEST(KdiffGpu, AutoRoutePicksOneAndStaysCorrect) {
    REQUIRE_GPU();
    const Case c = random_case(77, 64, 30, 600, 4000);
    { std::vector<ApproxMatch> w; ApproxMatcher::create(c.pats, {})->scan(c.batch.view(), w); } // warm-up
    auto mt = ApproxMatcher::create(c.pats, {});
    std::vector<ApproxMatch> out;
    mt->scan(c.batch.view(), out);
    EXPECT_NE(mt->route(), Route::Auto) << "batch of " << c.batch.data.size() << " bytes should decide";
    EXPECT_EQ(out, reference_scan(c.pats, c.batch.view()));
    mt->scan(c.batch.view(), out);
    EXPECT_EQ(out, reference_scan(c.pats, c.batch.view()));
}

TEST(ApproxEngineGpu, AgreesWithHyperscanBackend) {
    REQUIRE_GPU();
    const Case c = random_case(401, 50, 30, 200, 1500);
    std::vector<rules::Rule> rs;
    for (uint32_t i = 0; i < c.pats.size(); ++i) {
        const auto &p = c.pats[i];
        if (p.bytes.size() <= p.k + 1) continue;
        rules::Rule r;
        r.id = i + 1;
        r.pattern = p.bytes;
        r.nocase = p.nocase;
        r.offset = i % 5 == 0 ? 3 : 0;
        r.depth = i % 7 == 0 ? 100 : 0;
        (p.metric == Metric::Levenshtein ? r.max_edits : r.max_mismatches) = p.k;
        rs.push_back(r);
    }
    BatchView v;
    v.data = c.batch.data.data();
    v.offsets = c.batch.offsets.data();
    v.count = c.batch.offsets.size() - 1;
    std::vector<Match> cpu, gpu;
    ApproxEngine(rs, ApproxBackend::Cpu).scan(v, WM_OUTPUT_POSITIONS, cpu);
    ApproxEngine(rs, ApproxBackend::Gpu).scan(v, WM_OUTPUT_POSITIONS, gpu);
    EXPECT_EQ(gpu, cpu);
    EXPECT_FALSE(cpu.empty());
    ApproxEngine blocking(rs, ApproxBackend::Gpu, 0, wm::gpu::HostWait::Block);
    EXPECT_NE(blocking.gpu_matcher()->describe().find("host waits block"), std::string::npos);
    std::vector<Match> slept;
    blocking.scan(v, WM_OUTPUT_POSITIONS, slept);
    EXPECT_EQ(slept, cpu);
}
