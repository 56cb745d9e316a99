// The seed's anti-diagonal schedule and our warp-strip schedule (both run on
// the CPU with the kernels' own code) vs the sequential DP, for every m of
// Table 1, m that do not fill whole strips, and several D.
#include "gpu/approx/seed_asm.h"
#include "reference.h"

#include <gtest/gtest.h>

using namespace wm::approx;

TEST(SeedCpu, PaperExample) {
    const std::string x = "ababa", y = "aaabbbaa";
    const auto r = asm_sequential(reinterpret_cast<const uint8_t *>(x.data()), 5,
                                  reinterpret_cast<const uint8_t *>(y.data()), y.size());
    EXPECT_EQ(r.distance, 1u); // SEEDS.md section 1
}

TEST(SeedCpu, SequentialMatchesSellersMinimum) {
    std::mt19937 rng(7);
    for (int rep = 0; rep < 20; ++rep) {
        const std::string x = test::random_text(rng, 1 + rng() % 40, "01");
        const std::string y = test::random_text(rng, 1 + rng() % 300, "01");
        const auto d = test::sellers(x, reinterpret_cast<const uint8_t *>(y.data()), y.size(), false);
        const auto it = std::min_element(d.begin(), d.end());
        const auto r = asm_sequential(reinterpret_cast<const uint8_t *>(x.data()), x.size(),
                                      reinterpret_cast<const uint8_t *>(y.data()), y.size());
        EXPECT_EQ(r.distance, *it);
        EXPECT_EQ(r.end, uint64_t(it - d.begin()));
    }
}

TEST(SeedCpu, AntidiagonalSegmentsMatchSequentialForEveryTableM) {
    std::mt19937 rng(11);
    for (uint32_t m : {32u, 64u, 128u, 256u, 512u, 1024u}) {
        for (uint32_t d : {1u, 3u, 16u, 64u}) {
            // n spans a few segments; random 0/1 bytes as in Table 1, plus a
            // planted near-copy so the minimum is not just the typical value.
            const std::string x = test::random_text(rng, m, "01");
            std::string y = test::random_text(rng, 4 * m + 517, "01");
            const std::string v = test::mutate(rng, x, 3, "01", false);
            y.replace(y.size() / 2, std::min(v.size(), y.size() / 2), v.substr(0, y.size() / 2));
            SCOPED_TRACE("m " + std::to_string(m) + " D " + std::to_string(d));
            const auto *xp = reinterpret_cast<const uint8_t *>(x.data());
            const auto *yp = reinterpret_cast<const uint8_t *>(y.data());
            const auto seq = asm_sequential(xp, m, yp, y.size());
            EXPECT_EQ(asm_antidiagonal(xp, m, yp, y.size(), d), seq);
            EXPECT_EQ(asm_strips(xp, m, yp, y.size(), d), seq);
        }
    }
}

TEST(SeedCpu, StripsWithPartlyFilledLanes) {
    std::mt19937 rng(13);
    for (uint32_t m : {1u, 5u, 31u, 33u, 100u, 700u, 1000u}) {
        EXPECT_GE(seed_strip_rows(m) * 32, m);                 // the strips hold the pattern
        EXPECT_LT(seed_strip_rows(m) * 16, std::max(m, 32u)); // with the fewest rows per lane
        for (uint32_t d : {1u, 7u}) {
            const std::string x = test::random_text(rng, m, "acgt");
            std::string y = test::random_text(rng, 3 * m + 301, "acgt");
            const std::string v = test::mutate(rng, x, m / 10, "acgt", false);
            y.replace(y.size() / 3, std::min(v.size(), y.size() / 2), v.substr(0, y.size() / 2));
            SCOPED_TRACE("m " + std::to_string(m) + " D " + std::to_string(d));
            const auto *xp = reinterpret_cast<const uint8_t *>(x.data());
            const auto *yp = reinterpret_cast<const uint8_t *>(y.data());
            EXPECT_EQ(asm_strips(xp, m, yp, y.size(), d), asm_sequential(xp, m, yp, y.size()));
        }
    }
}

TEST(SeedCpu, EdgeSizes) {
    const std::string x = "0110";
    for (const std::string y : {"", "0", "0110", "10", "000000"}) {
        const auto *xp = reinterpret_cast<const uint8_t *>(x.data());
        const auto *yp = reinterpret_cast<const uint8_t *>(y.data());
        for (uint32_t d : {1u, 2u, 8u}) {
            EXPECT_EQ(asm_antidiagonal(xp, 4, yp, y.size(), d), asm_sequential(xp, 4, yp, y.size())) << y;
            EXPECT_EQ(asm_strips(xp, 4, yp, y.size(), d), asm_sequential(xp, 4, yp, y.size())) << y;
        }
    }
}
