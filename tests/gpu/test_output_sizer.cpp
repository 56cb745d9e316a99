// tests/gpu/test_output_sizer.cpp - the output sizer (gpu/output_sizer.h):
// what it predicts for a chunk against the chunks it has seen.
#include "gpu/output_sizer.h"

#include <gtest/gtest.h>

#include <random>

using wm::gpu::grown_output_capacity;
using wm::gpu::with_output_slack;
using Sizer = wm::gpu::OutputSizer<3>;

namespace {

constexpr size_t kMin = Sizer::kMinObservedBytes;

// Records a chunk of `bytes` needs at `records` per `per` bytes, rounded up.
size_t needed_at(size_t records, size_t per, size_t bytes) {
    return static_cast<size_t>((static_cast<unsigned __int128>(records) * bytes + per - 1) / per);
}

} // namespace

TEST(OutputSizer, GrowthLeavesAQuarterOfSlack) {
    EXPECT_EQ(grown_output_capacity(100, 16), 100u + 25u + 1024u);
    // A chunk that needed no more than it had (Set table failures) still grows.
    EXPECT_EQ(grown_output_capacity(10, 16), 17u + 4u + 1024u);
}

TEST(OutputSizer, NothingPredictedBeforeAChunkIsSeen) {
    Sizer s;
    EXPECT_EQ(s.predict(0, 1 << 20), 0u);
    s.observe(0, kMin - 1, 1000); // too small to say
    EXPECT_EQ(s.predict(0, 1 << 20), 0u);
    s.observe(1, kMin, 1000);
    EXPECT_EQ(s.predict(0, 1 << 20), 0u) << "each use learns apart";
    EXPECT_GT(s.predict(1, 1 << 20), 0u);
    EXPECT_EQ(s.predict(5, 1 << 20), 0u) << "a use out of range";
    s.observe(5, kMin, 1000); // ignored, no crash
}

TEST(OutputSizer, PredictsTheDensestChunkScaled) {
    Sizer s;
    s.observe(0, 1 << 20, 320'000); // 0.31 records per byte
    const size_t want = needed_at(320'000, 1 << 20, 10 << 20);
    EXPECT_EQ(s.predict(0, 10 << 20), with_output_slack(want));
    s.observe(0, 4 << 20, 100'000); // sparser: the densest stays
    EXPECT_EQ(s.predict(0, 10 << 20), with_output_slack(want));
    s.observe(0, 2 << 20, 1'000'000); // denser: it takes over
    const size_t denser = needed_at(1'000'000, 2 << 20, 10 << 20);
    EXPECT_EQ(s.predict(0, 10 << 20), with_output_slack(denser));
    EXPECT_EQ(s.predict(0, 0), 0u);
}

TEST(OutputSizer, NoObservedChunkWouldOverflowItsPrediction) {
    // Random chunks, some with more records than bytes (Set pairs expand):
    // after each, every chunk seen so far, scaled to any size, fits.
    std::mt19937_64 rng(7);
    for (int round = 0; round < 50; ++round) {
        Sizer s;
        std::vector<std::pair<size_t, size_t>> seen; // (bytes, records)
        for (int k = 0; k < 20; ++k) {
            const size_t bytes = kMin + rng() % (size_t{1} << (16 + rng() % 16));
            const size_t records = rng() % (bytes * (1 + rng() % 3));
            s.observe(1, bytes, records);
            seen.push_back({bytes, records});
            const size_t target = 1 + rng() % (size_t{1} << 32);
            const size_t got = s.predict(1, target);
            for (auto [b, r] : seen) ASSERT_GE(got, needed_at(r, b, target)) << "round " << round << " chunk " << k;
        }
    }
}

TEST(OutputSizer, HugeRatiosDoNotWrap) {
    Sizer s;
    s.observe(2, kMin, size_t{1} << 40);
    EXPECT_GE(s.predict(2, size_t{1} << 20), size_t{1} << 44);
}

TEST(OutputSizer, SlotsGrowAtLeastTwofoldUpToAFullChunk) {
    Sizer s;
    const size_t full = 32 << 20;
    s.observe(0, 1 << 20, 300'000);
    const size_t p8 = s.predict(0, 8 << 20), p9 = s.predict(0, 9 << 20), pfull = s.predict(0, full);
    EXPECT_EQ(s.grow_to(0, 8 << 20, p8, full), 0u) << "room enough";
    EXPECT_EQ(s.grow_to(0, 9 << 20, p8, full), 2 * p8) << "a slightly larger chunk doubles the slot";
    EXPECT_GE(2 * p8, p9);
    EXPECT_EQ(s.grow_to(0, 9 << 20, 16, full), p9) << "doubling 16 is less than the prediction";
    EXPECT_EQ(s.grow_to(0, full, pfull - 1, full), pfull) << "never past a full chunk's prediction";
    EXPECT_EQ(s.grow_to(0, 20 << 20, p8 * 2, full), pfull) << "doubling capped at a full chunk";
    EXPECT_EQ(s.grow_to(1, full, 16, full), 0u) << "nothing known of use 1";
}
