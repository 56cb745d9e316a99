// tests/exact/test_exact_gpu.cpp - GPU brute force, fused duel and two-kernel
// duel vs the CPU references (match vector and positions). Every test skips
// with "no CUDA device: <reason>" where no GPU is usable.
#include "gpu/exact/exact_cpu.h"
#include "gpu/exact/exact_matcher.h"
#include "exact_reference.h"

#include <gtest/gtest.h>

using namespace wm::gpu::exact;
using namespace wm::gpu::exact::test;

#define REQUIRE_GPU()                                                                              \
    do {                                                                                           \
        std::string why_;                                                                         \
        if (!exact_gpu_usable(0, &why_)) GTEST_SKIP() << "no CUDA device: " << why_;               \
    } while (0)

namespace {

constexpr Algorithm kAll[] = {Algorithm::BruteForce, Algorithm::Duel, Algorithm::DuelTwoKernel};

void check_gpu(const TextCase &c) {
    const auto ref = brute_search(u8(c.text), c.text.size(), c.pattern, c.nocase);
    auto matcher = ExactMatcher::create(c.pattern, c.nocase);
    for (Algorithm a : kAll) {
        // Poison: every byte of the vector must be written (0 or 1).
        std::vector<uint8_t> vec(c.text.size() + 1, 0xAB);
        std::vector<uint32_t> pos;
        MatchRequest rq;
        rq.text = u8(c.text), rq.n = c.text.size(), rq.algorithm = a;
        rq.match_vector = vec.data(), rq.positions = &pos;
        matcher->match(rq);
        const std::string where = c.label + " " + algorithm_name(a) + " " + matcher->describe();
        ASSERT_EQ(pos, ref) << where;
        size_t r = 0;
        for (size_t i = 0; i < c.text.size(); ++i) {
            const bool want = r < ref.size() && ref[r] == i;
            r += want;
            ASSERT_EQ(vec[i], want ? 1 : 0) << where << " at " << i;
        }
        ASSERT_EQ(vec[c.text.size()], 0xAB) << where << ": wrote past the vector";
    }
}

TEST(ExactGpu, RandomCasesAllAlgorithms) {
    REQUIRE_GPU();
    for (uint64_t seed = 1000; seed < 1120; ++seed) check_gpu(random_case(seed));
}

TEST(ExactGpu, EdgeSizesAndTileBoundaries) {
    REQUIRE_GPU();
    std::mt19937_64 rng(5);
    for (size_t m : {1u, 2u, 31u, 1000u}) {
        const std::string p = random_bytes(rng, m, 3);
        check_gpu({p, p, "m=n m=" + std::to_string(m)});
        check_gpu({p.substr(0, m - 1), p, "m>n m=" + std::to_string(m)});
        for (size_t n : {size_t{8191}, size_t{8192}, size_t{8193}, size_t{2 * 8192 + 999}}) {
            std::string t = random_bytes(rng, n + m, 3);
            for (size_t at : {size_t{0}, n - 1 - m / 2, n - m / 2, n - 8, t.size() - m})
                plant(t, p, std::min(at, t.size() - m));
            check_gpu({t, p, "tile n=" + std::to_string(t.size()) + " m=" + std::to_string(m)});
        }
    }
}

TEST(ExactGpu, PeriodicOverlapsAndNocase) {
    REQUIRE_GPU();
    std::mt19937_64 rng(9);
    check_gpu({std::string(100000, 'a'), std::string(1000, 'a'), "all-a m=1000"});
    check_gpu({std::string(50000, 'a'), "a", "all-a m=1"});
    for (size_t period : {1u, 2u, 7u, 100u, 499u, 500u}) {
        const std::string p = periodic_pattern(rng, 1000, period, 4);
        std::string t = random_bytes(rng, 200000, 4);
        plant_many(rng, t, p, 40, period);
        check_gpu({t, p, "periodic p=" + std::to_string(period)});
        TextCase nc{t, p, "nocase periodic p=" + std::to_string(period), true};
        for (auto &ch : nc.text)
            if (rng() % 3 == 0) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        check_gpu(nc);
    }
}

TEST(ExactGpu, LargeTextAgainstKmp) {
    REQUIRE_GPU();
    std::mt19937_64 rng(77);
    const std::string p = random_bytes(rng, 1000, 26);
    std::string t = random_bytes(rng, (size_t{1} << 24) + 12345, 26);
    plant_many(rng, t, p, 300, 1000);
    std::vector<uint32_t> kmp;
    kmp_search(u8(t), t.size(), p, kmp_failure(p), kmp);
    auto matcher = ExactMatcher::create(p, false);
    for (Algorithm a : kAll) {
        std::vector<uint32_t> pos;
        MatchRequest rq;
        rq.text = u8(t), rq.n = t.size(), rq.algorithm = a, rq.positions = &pos;
        matcher->match(rq);
        ASSERT_EQ(pos, kmp) << algorithm_name(a);
    }
}

TEST(ExactGpu, WithoutGpuCreateReportsWhy) {
    std::string why;
    if (exact_gpu_usable(0, &why)) GTEST_SKIP() << "a GPU is usable here";
    EXPECT_FALSE(why.empty());
    EXPECT_THROW(ExactMatcher::create("pattern", false), wm::gpu::GpuError);
}

} // namespace
