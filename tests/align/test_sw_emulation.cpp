// tests/align/test_sw_emulation.cpp - the kernels' per-thread logic, run on the
// CPU in the kernels' parallel order, against the plain reference: random
// pairs, many sections, 16-bit overflow detection, the row-parallel passes.
#include "gpu/align/sw_emulate.h"
#include "gpu/align/sw_reference.h"

#include "align_test_util.h"

using namespace wm::align;

namespace {

ScoreParams random_params(std::mt19937 &rng, bool matrix) {
    ScoreParams p;
    p.match = 1 + rng() % 6;
    p.mismatch = -(int)(rng() % 5);
    p.gap_open = rng() % 10;
    p.gap_extend = 1 + rng() % 3;
    if (matrix) {
        p.matrix.resize(65536);
        for (auto &v : p.matrix) v = (int8_t)((int)(rng() % 9) - 6);
        for (int c = 0; c < 256; ++c) p.matrix[c * 257] = (int8_t)(2 + rng() % 5);
    }
    return p;
}

struct Case {
    int rows;
    bool lanes32;
    bool matrix;
};

class WavefrontEmulation : public ::testing::TestWithParam<Case> {};

TEST_P(WavefrontEmulation, EqualsReferenceOnRandomPairs) {
    const Case c = GetParam();
    std::mt19937 rng(1234 + c.rows + 7 * c.lanes32 + 13 * c.matrix);
    for (int trial = 0; trial < 12; ++trial) {
        const size_t m = 1 + rng() % (32 * c.rows);
        const size_t n = rng() % 3000;
        const auto q = test::random_seq(rng, m, c.matrix ? 0 : 4);
        auto d = test::random_seq(rng, n, c.matrix ? 0 : 4);
        test::plant(rng, d, q, 2);
        const ScoreParams p = random_params(rng, c.matrix);
        const uint64_t overlap = exact_overlap(m, p);
        // Many short sections: owned lengths down to 1 column, some empty.
        auto secs = plan_sections(0, n, overlap, 2 + rng() % 40, 1);
        if (c.lanes32 && rng() % 2) secs.push_back({n, n, n});
        const auto want = reference_column_maxima(q.data(), m, d.data(), n, p);
        const auto got = emulate_wavefront(q.data(), m, d.data(), n, secs, p, c.lanes32, c.rows);
        for (size_t j = 0; j < n; ++j)
            ASSERT_EQ(got.colmax[j], want[j]) << "trial " << trial << " m " << m << " n " << n << " col " << j
                                              << " sections " << secs.size();
        for (uint8_t o : got.overflow) EXPECT_EQ(o, 0);
    }
}

INSTANTIATE_TEST_SUITE_P(Lanes, WavefrontEmulation,
                         ::testing::Values(Case{8, false, false}, Case{8, true, false}, Case{32, false, false},
                                           Case{32, true, false}, Case{8, false, true}, Case{32, true, true}),
                         [](const auto &info) {
                             return std::string("rows") + std::to_string(info.param.rows) +
                                    (info.param.lanes32 ? "_lanes32" : "_lanes16x2") +
                                    (info.param.matrix ? "_matrix" : "_matchmismatch");
                         });

TEST(WavefrontEmulationLimits, ScoresNearThe16BitLimitAreFlagged) {
    std::mt19937 rng(77);
    ScoreParams p;
    p.match = 32; // identical 1023-byte sequences score 32736 >= 32767 - 32
    const auto q = test::random_seq(rng, 1023);
    std::vector<uint8_t> d = test::random_seq(rng, 300);
    d.insert(d.end(), q.begin(), q.end());
    const auto secs = plan_sections(0, d.size(), exact_overlap(q.size(), p), 2, 1);
    const auto e16 = emulate_wavefront(q.data(), q.size(), d.data(), d.size(), secs, p, false, 32);
    bool flagged = false;
    for (uint8_t o : e16.overflow) flagged |= o != 0;
    EXPECT_TRUE(flagged);
    const auto e32 = emulate_wavefront(q.data(), q.size(), d.data(), d.size(), secs, p, true, 32);
    const auto want = reference_column_maxima(q.data(), q.size(), d.data(), d.size(), p);
    EXPECT_EQ(*std::max_element(want.begin(), want.end()), 32 * 1023);
    EXPECT_EQ(e32.colmax, want);
    // One step under the threshold is not flagged and is exact in 16 bits.
    p.match = 31;
    const auto want31 = reference_column_maxima(q.data(), q.size(), d.data(), d.size(), p);
    const auto e16b = emulate_wavefront(q.data(), q.size(), d.data(), d.size(), secs, p, false, 32);
    for (uint8_t o : e16b.overflow) EXPECT_EQ(o, 0);
    EXPECT_EQ(e16b.colmax, want31);
}

// The traceback warp equals the reference traceback cell for cell (same
// direction bytes, same end row, same CIGAR), for every rows-per-lane class.
TEST(TracebackEmulation, EqualsReferenceTraceback) {
    std::mt19937 rng(515);
    for (int trial = 0; trial < 40; ++trial) {
        const size_t m = trial == 0 ? 1 : trial == 1 ? 1024 : trial == 2 ? 33 : 1 + rng() % 700;
        const size_t n = trial == 3 ? 1 : 1 + rng() % 1500;
        const auto q = test::random_seq(rng, m, trial % 3 ? 4 : 2);
        auto d = test::random_seq(rng, n, trial % 3 ? 4 : 2);
        test::plant(rng, d, q, 2);
        const ScoreParams p = trial % 5 == 4 ? random_params(rng, true) : random_params(rng, false);
        const uint64_t end = rng() % n, begin = end - std::min<uint64_t>(end, rng() % (n + 1));
        SCOPED_TRACE("trial " + std::to_string(trial) + " m " + std::to_string(m) + " window " +
                     std::to_string(begin) + ".." + std::to_string(end));
        const Hit want = reference_traceback(q.data(), m, d.data(), begin, end, p);
        const Hit got = emulate_traceback(q.data(), m, d.data(), begin, end, p);
        EXPECT_EQ(got.score, want.score);
        EXPECT_EQ(got.db_end, want.db_end);
        EXPECT_EQ(got.db_begin, want.db_begin);
        EXPECT_EQ(got.query_begin, want.query_begin);
        EXPECT_EQ(got.query_end, want.query_end);
        EXPECT_EQ(got.cigar, want.cigar);
    }
}

TEST(RowParallelEmulation, EqualsReference) {
    std::mt19937 rng(99);
    for (int trial = 0; trial < 20; ++trial) {
        const auto q = test::random_seq(rng, 1 + rng() % 200);
        auto d = test::random_seq(rng, rng() % 2000);
        test::plant(rng, d, q, 2);
        const ScoreParams p = random_params(rng, trial % 3 == 0);
        EXPECT_EQ(emulate_row_parallel(q.data(), q.size(), d.data(), d.size(), p),
                  reference_column_maxima(q.data(), q.size(), d.data(), d.size(), p))
            << "trial " << trial;
    }
}

TEST(Sections, CoverTheDatabaseOnceWithOverlap) {
    for (uint64_t n : {0ull, 1ull, 7ull, 1000ull, 123457ull}) {
        const auto s = plan_sections(0, n, 50, 16, 10);
        EXPECT_EQ(s.size() % 2, 0u);
        uint64_t next = 0;
        for (const Section &x : s) {
            if (x.own_begin == x.end) continue;
            EXPECT_EQ(x.own_begin, next);
            EXPECT_EQ(x.begin, x.own_begin > 50 ? x.own_begin - 50 : 0);
            next = x.end;
        }
        EXPECT_EQ(next, n);
    }
}

} // namespace
