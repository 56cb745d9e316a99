// tests/align/test_sw_reference.cpp - the CPU reference against the seed's
// worked example (every cell of SEEDS.md §4's H table) and edge cases.
#include "gpu/align/sw_reference.h"

#include "align_test_util.h"

using namespace wm::align;

namespace {

std::vector<uint8_t> bytes(const std::string &s) { return {s.begin(), s.end()}; }

// SEEDS.md §4: H by query row, columns C A G C C U C G C U U A G.
const int kSeedH[14][13] = {
    {0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0},   {0, 5, 2, 0, 0, 0, 0, 0, 0, 0, 0, 5, 2},
    {0, 0, 2, 0, 0, 5, 0, 0, 0, 5, 5, 0, 2},   {0, 0, 5, 0, 0, 0, 2, 5, 0, 0, 2, 2, 5},
    {5, 0, 0, 10, 5, 0, 5, 0, 10, 1, 0, 0, 0}, {5, 2, 0, 5, 15, 6, 5, 4, 5, 7, 1, 0, 0},
    {0, 10, 1, 0, 6, 12, 3, 2, 1, 2, 4, 6, 0}, {0, 1, 7, 0, 5, 11, 9, 1, 0, 6, 7, 1, 3},
    {0, 0, 0, 4, 4, 10, 8, 6, 0, 5, 11, 4, 1}, {0, 0, 5, 0, 3, 1, 7, 13, 4, 3, 2, 8, 9},
    {5, 0, 0, 10, 5, 0, 6, 4, 18, 9, 8, 7, 6}, {5, 2, 0, 5, 15, 6, 5, 4, 9, 15, 6, 5, 4},
    {0, 2, 7, 0, 6, 12, 3, 10, 8, 6, 12, 3, 10}, {0, 0, 7, 4, 5, 3, 9, 8, 7, 5, 3, 9, 8},
};

TEST(SwReference, SeedWorkedExampleEveryCell) {
    const auto q = bytes("AAUGCCAUUGCCGG"), d = bytes("CAGCCUCGCUUAG");
    const ScoreParams p; // defaults are the seed's: +5 -3, Gs 8, Ge 1
    const FullDp dp = reference_full_dp(q.data(), q.size(), d.data(), d.size(), p);
    for (size_t i = 0; i < 14; ++i)
        for (size_t j = 0; j < 13; ++j) EXPECT_EQ(dp.h[i * 13 + j], kSeedH[i][j]) << "row " << i << " col " << j;
}

TEST(SwReference, SeedWorkedExampleBestAndTraceback) {
    const auto q = bytes("AAUGCCAUUGCCGG"), d = bytes("CAGCCUCGCUUAG");
    const ScoreParams p;
    const auto hits = reference_search(q.data(), q.size(), d.data(), d.size(), p, 1);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].score, 18);
    EXPECT_EQ(hits[0].query_end, 11u); // query row 11 (1-based), database column 9
    EXPECT_EQ(hits[0].db_end, 9u);
    // EMBOSS water on the same case: query 4..11, database 3..9, GCCATTGC / GCC-TCGC.
    EXPECT_EQ(hits[0].query_begin, 3u);
    EXPECT_EQ(hits[0].db_begin, 2u);
    EXPECT_EQ(hits[0].cigar, "3=1I1=1X2=");
    test::expect_valid_alignment(hits[0], q, d.data(), d.size(), p);
}

TEST(SwReference, ColumnMaximaEqualFullMatrix) {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 20; ++trial) {
        const auto q = test::random_seq(rng, 1 + rng() % 40), d = test::random_seq(rng, 1 + rng() % 60);
        ScoreParams p;
        p.gap_open = rng() % 6;
        p.gap_extend = 1 + rng() % 3;
        const FullDp dp = reference_full_dp(q.data(), q.size(), d.data(), d.size(), p);
        const auto cm = reference_column_maxima(q.data(), q.size(), d.data(), d.size(), p);
        for (size_t j = 0; j < d.size(); ++j) {
            int best = 0;
            for (size_t i = 0; i < q.size(); ++i) best = std::max(best, dp.h[i * d.size() + j]);
            ASSERT_EQ(cm[j], best) << "trial " << trial << " col " << j;
        }
    }
}

TEST(SwReference, EdgeCases) {
    const ScoreParams p;
    const auto a = bytes("A"), c = bytes("C");
    EXPECT_TRUE(reference_search(a.data(), 0, c.data(), 1, p, 5).empty());       // empty query
    EXPECT_TRUE(reference_search(a.data(), 1, c.data(), 0, p, 5).empty());       // empty database
    EXPECT_TRUE(reference_search(a.data(), 1, c.data(), 1, p, 5).empty());       // length 1, no match
    auto h = reference_search(a.data(), 1, a.data(), 1, p, 5);                   // length 1, match
    ASSERT_EQ(h.size(), 1u);
    EXPECT_EQ(h[0].score, 5);
    EXPECT_EQ(h[0].cigar, "1=");
}

TEST(SwReference, BestPathNeedsGapsInBothSequences) {
    ScoreParams p;
    p.gap_open = 1;
    const auto q = bytes("ACGTACGTTTTTTTTGGGGCCCCAAAA"), d = bytes("ACGTACGTGGGGCCCCAAAACCCCCCACAC");
    const auto h = reference_search(q.data(), q.size(), d.data(), d.size(), p, 1);
    ASSERT_EQ(h.size(), 1u);
    EXPECT_NE(h[0].cigar.find('I'), std::string::npos) << h[0].cigar;
    test::expect_valid_alignment(h[0], q, d.data(), d.size(), p);
}

TEST(SwReference, TiesInTopKKeepTheSmallestColumns) {
    const ScoreParams p;
    const auto q = bytes("GATTACA");
    std::string db;
    for (int k = 0; k < 10; ++k) db += "TTTTGATTACATTTT";
    const auto d = bytes(db);
    const auto h = reference_search(q.data(), q.size(), d.data(), d.size(), p, 4);
    ASSERT_EQ(h.size(), 4u);
    for (int k = 0; k < 4; ++k) {
        EXPECT_EQ(h[k].score, 35);
        EXPECT_EQ(h[k].db_end, 15u * k + 11) << k;
    }
}

// The traceback window ladder: round 0 from the options and the score, 4x per
// round, capped at span_bound(), which every reference alignment respects.
TEST(TracebackWindows, LadderGrowsFourfoldUpToTheSpanBound) {
    const ScoreParams p;
    const size_t m = 1024;
    EXPECT_EQ(span_bound(m, p, 0), exact_overlap(m, p));
    EXPECT_EQ(span_bound(m, p, 1200), exact_overlap(m, p) - 1200);
    EXPECT_EQ(span_bound(m, p, 5 * 1024), m + 1); // a perfect match: no gap is affordable
    EXPECT_EQ(traceback_window_for(0, m, p, 1200, 256), 2u * 240 + 32);
    EXPECT_EQ(traceback_window_for(0, m, p, 10, 256), 256u);
    EXPECT_EQ(traceback_window_for(1, m, p, 1200, 256), 4u * (2 * 240 + 32));
    EXPECT_EQ(traceback_window_for(2, m, p, 1200, 256), span_bound(m, p, 1200));
    EXPECT_EQ(traceback_window_for(40, m, p, 1200, 256), span_bound(m, p, 1200));
}

// Emulates the GPU's retry loop with reference_traceback: every hit is found
// again (same score and end row) in the first window that scores it.
TEST(TracebackWindows, LadderFindsEveryHitIncludingALongGap) {
    std::mt19937 rng(77);
    for (int trial = 0; trial < 3; ++trial) {
        test::LongGapCase c = test::long_gap_case(rng);
        if (trial == 1) c.query = test::random_seq(rng, 300), c.params = ScoreParams{}; // random hits
        const auto &q = c.query, &d = c.db;
        const auto hits = reference_search(q.data(), q.size(), d.data(), d.size(), c.params, 10);
        ASSERT_FALSE(hits.empty());
        for (const Hit &h : hits) {
            ASSERT_LE(h.db_end - h.db_begin, span_bound(q.size(), c.params, h.score)) << h.cigar;
            unsigned round = 0;
            Hit got;
            for (;; ++round) {
                ASSERT_LT(round, 20u) << "the window never reached the span bound";
                const uint64_t w = traceback_window_for(round, q.size(), c.params, h.score, 1);
                got = reference_traceback(q.data(), q.size(), d.data(), h.db_end > w ? h.db_end - w : 0, h.db_end - 1,
                                          c.params);
                if (got.score == h.score || w >= span_bound(q.size(), c.params, h.score)) break;
            }
            EXPECT_EQ(got.score, h.score) << "trial " << trial << " end " << h.db_end;
            EXPECT_EQ(got.query_end, h.query_end);
            test::expect_valid_alignment(got, q, d.data(), d.size(), c.params);
            if (trial != 1 && &h == &hits[0]) { // the jump (~2100 columns) needs the third round
                EXPECT_GT(h.db_end - h.db_begin, traceback_window_for(1, q.size(), c.params, h.score, 1)) << h.cigar;
                EXPECT_EQ(round, 2u);
            }
        }
    }
}

TEST(SwReference, ValidationNamesTheField) {
    ScoreParams p;
    p.gap_extend = 0;
    try {
        p.validate();
        FAIL();
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("gap_extend"), std::string::npos);
    }
}

} // namespace
