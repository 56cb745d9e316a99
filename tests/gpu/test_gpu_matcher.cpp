// tests/gpu/test_gpu_matcher.cpp - GPU matcher vs CPU references. Every test
// skips with "no CUDA device: <reason>" where no usable GPU is present.
#include "gpu/gpu_matcher.h"
#include "gpu/gpu_testing.h"
#include "gpu/positions_chunk.h"
#include "reference.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace wm::gpu;
using namespace wm::gpu::test;

namespace {

void check_all_modes(const Case &c, GpuMatcher &m, const std::string &label, bool with_hs = true) {
    auto ref = naive_matches(c.pats, c.view());
    sort_matches(ref);
    if (with_hs) {
        auto hs = hyperscan_matches(c.pats, c.view());
        sort_matches(hs);
        ASSERT_TRUE(hs == ref) << label << ": hyperscan differs from the naive reference";
    }
    std::vector<Match> got;
    m.scan(c.view(), OutputMode::Positions, got);
    ASSERT_TRUE(std::is_sorted(got.begin(), got.end(), positions_order_less))
        << label << ": Positions output not sorted by (payload, end, pattern)";
    sort_matches(got);
    ASSERT_EQ(got.size(), ref.size()) << label << " " << m.describe();
    ASSERT_TRUE(got == ref) << label;
    std::vector<Match> set;
    m.scan(c.view(), OutputMode::Set, set);
    ASSERT_TRUE(set_sorted_distinct(set)) << label << ": Set output not sorted by (payload, pattern)";
    ASSERT_TRUE(set == dedup_set(ref)) << label << ": Set";
    std::vector<uint64_t> counts;
    m.count(c.view(), counts);
    std::vector<uint64_t> hist(c.pats.size());
    for (auto &x : ref) ++hist[x.pattern];
    ASSERT_TRUE(counts == hist) << label << ": Count";
}

void check_all_modes(const Case &c, const GpuOptions &o, const std::string &label, bool with_hs = true) {
    auto m = GpuMatcher::create(c.pats, o);
    check_all_modes(c, *m, label, with_hs);
}

} // namespace

TEST(GpuMatcher, UsableReportsReason) {
    std::string why;
    bool ok = gpu_usable(0, &why);
    if (!ok) {
        EXPECT_FALSE(why.empty());
        EXPECT_THROW(GpuMatcher::create({Literal{"a"}}, GpuOptions{}), GpuError);
    }
    EXPECT_FALSE(gpu_usable(-1, &why));
}

class GpuRandom : public ::testing::TestWithParam<int> {};

// Sets the dense-budget hook for matchers created in its lifetime (reset
// even if create throws, so later tests keep the default budget).
struct DenseBudgetHook {
    explicit DenseBudgetHook(size_t bytes) { wm::gpu::testing::set_dense_budget_bytes(bytes); }
    ~DenseBudgetHook() { wm::gpu::testing::set_dense_budget_bytes(0); }
};

// Seeds 16 and up give the automaton only the root's dense row, so the
// kernels with the sparse step walk it (with the default budget these sets
// have no sparse state, and the dense-only kernels walk them).
TEST_P(GpuRandom, PositionsSetCountEqualReferences) {
    REQUIRE_GPU();
    const int seed = GetParam();
    CaseSpec s;
    if (seed % 4 == 1) { s.alphabet = "aAbB\x00\xff-"; s.max_len = 12; s.payloads = 200; }
    if (seed % 4 == 2) { s.alphabet = "abcdefghABCDEFGH0123"; s.patterns = 300; s.max_len = 60; s.max_payload = 5000; }
    if (seed % 4 == 3) { s.payloads = 3000; s.max_payload = 8; }
    Case c = random_case(2000 + seed, s);
    const bool sparse = seed >= 16;
    std::unique_ptr<GpuMatcher> m;
    {
        DenseBudgetHook hook(sparse ? 1 : 0);
        m = GpuMatcher::create(c.pats, GpuOptions{});
    }
    EXPECT_NE(m->describe().find(sparse ? "dense 1 states" : "sparse 0 states"), std::string::npos) << m->describe();
    if (s.max_len > 16) { // past a key's 16 bytes the kernels confirm the rest: it must be exercised
        const auto ref = naive_matches(c.pats, c.view());
        EXPECT_TRUE(std::any_of(ref.begin(), ref.end(),
                                [&](const Match &x) { return c.pats[x.pattern].bytes.size() > 16; }))
            << "seed " << seed << ": no long pattern matched";
    }
    check_all_modes(c, *m, "seed " + std::to_string(seed));
}
INSTANTIATE_TEST_SUITE_P(Seeds, GpuRandom, ::testing::Range(0, 24));

// Runs of one byte under periodic patterns (|00| x 3, 5, 8; "aaaa" nocase;
// "AAAAAAAA"): chains of plain states whose outputs grow with depth, the Set
// kernel's plain-repeat skip, tiles, run-outs and tiny payloads; every mode
// against the references.
TEST(GpuMatcher, PeriodicPatternsOverRuns) {
    REQUIRE_GPU();
    Case c;
    c.pats = {{std::string(3, '\0')}, {std::string(5, '\0')}, {std::string(8, '\0')}, {"aaaa", true},
              {"AAAAAAAA"}, {"x"}, {"xax"}, {"abab"}, {"ababab"}, {std::string(16, 'A')}};
    std::vector<std::string> pays = {std::string(300, '\0'), std::string(70, 'a') + std::string(70, 'A'), "x",
                                     std::string(53, '\0') + "x" + std::string(9, '\0'), "",
                                     std::string(1000, 'A') + "xaxax", std::string(51, 'a'),
                                     "abababababababab" + std::string(40, 'b') + "abab"};
    for (int k = 0; k < 200; ++k) pays.push_back(std::string(k % 61, k % 3 ? '\0' : 'A') + (k % 5 ? "" : "xax"));
    for (auto &p : pays) {
        c.data.insert(c.data.end(), p.begin(), p.end());
        c.offs.push_back(static_cast<uint32_t>(c.data.size()));
    }
    auto m = GpuMatcher::create(c.pats, GpuOptions{});
    check_all_modes(c, *m, "periodic");
}

TEST(GpuMatcher, EdgeCases) {
    REQUIRE_GPU();
    Case c;
    c.pats = {{"ab"}, {"b"}, {"abab", true}, {"x"}};
    // empty, 1-byte, matches at start/end, 64 KB payload, tile-straddling
    std::vector<std::string> pays = {"", "b", "x", "abxab", std::string(65536, 'a') + "b", ""};
    std::string big;
    for (int i = 0; i < 65536 / 4; ++i) big += "ABab";
    pays.push_back(big);
    std::string straddle(1000, 'z');
    for (size_t k = 120; k < 1000; k += 124) straddle.replace(k, 4, "abab");
    pays.push_back(straddle);
    for (auto &p : pays) {
        c.data.insert(c.data.end(), p.begin(), p.end());
        c.offs.push_back(static_cast<uint32_t>(c.data.size()));
    }
    check_all_modes(c, GpuOptions{}, "edge");
    Case one;
    one.pats = c.pats;
    one.data = {'a', 'b'};
    one.offs = {0, 2};
    check_all_modes(one, GpuOptions{}, "batch of one");
    Case empty;
    empty.pats = c.pats;
    check_all_modes(empty, GpuOptions{}, "empty batch");
}

TEST(GpuMatcher, BatchLargerThanChunkAndSplitPayloads) {
    REQUIRE_GPU();
    Case c = random_case(77, sized_spec(100, 50, 400, 6000));
    GpuOptions o;
    o.max_batch_bytes = 8192; // many chunks; payloads over 8 KB are split
    o.max_batch_payloads = 7;
    check_all_modes(c, o, "small chunks");
}

// Waits that sleep on blocking events (HostWait::Block) instead of spinning
// give the same results, over many small chunks and outputs that overflow and
// are scanned again (each a wait more).
TEST(GpuMatcher, BlockingWaitsGiveTheSameResults) {
    REQUIRE_GPU();
    Case c = random_case(91, sized_spec(80, 12, 300, 3000));
    GpuOptions o;
    o.wait = HostWait::Block;
    o.max_batch_bytes = 8192;
    check_all_modes(c, o, "blocking waits, small chunks");
    wm::gpu::testing::set_initial_output_capacity(16);
    o.max_batch_bytes = GpuOptions{}.max_batch_bytes;
    auto m = GpuMatcher::create(c.pats, o);
    wm::gpu::testing::set_initial_output_capacity(0);
    EXPECT_NE(m->describe().find("host waits block"), std::string::npos) << m->describe();
    check_all_modes(c, *m, "blocking waits, overflowing outputs", false);
    EXPECT_NE(GpuMatcher::create(c.pats, GpuOptions{})->describe().find("host waits spin"), std::string::npos);
}

TEST(GpuMatcher, OutputOverflowStillExact) {
    REQUIRE_GPU();
    wm::gpu::testing::set_initial_output_capacity(16);
    CaseSpec s;
    s.alphabet = "ab";
    s.patterns = 30;
    s.max_len = 3;
    s.payloads = 100;
    s.max_payload = 1000;
    Case c = random_case(99, s);
    check_all_modes(c, GpuOptions{}, "overflow");
    wm::gpu::testing::set_initial_output_capacity(0);
}

TEST(GpuMatcher, ManyPatternsCountInASharedTable) {
    REQUIRE_GPU();
    // Past 2048 patterns Count sums in a shared (pattern, count) table per
    // unit; with 70k patterns over a small alphabet a unit's distinct
    // patterns overflow it, and the rest go to the global totals directly.
    for (uint32_t patterns : {3000u, 70000u}) {
        CaseSpec s;
        s.alphabet = "abcdefghijklmnop";
        s.patterns = patterns;
        s.min_len = 3;
        s.max_len = 8;
        s.payloads = 50;
        s.max_payload = 3000;
        s.offset_depth = false;
        Case c = random_case(123, s);
        EXPECT_NE(GpuMatcher::create(c.pats, GpuOptions{})->describe().find("count counters in a shared (pattern, count) table"),
                  std::string::npos);
        check_all_modes(c, GpuOptions{}, std::to_string(patterns) + " patterns", false);
    }
    CaseSpec few;
    few.patterns = 100;
    Case c = random_case(5, few);
    EXPECT_NE(GpuMatcher::create(c.pats, GpuOptions{})->describe().find("count counters in shared memory, per pattern"),
              std::string::npos);
}

// Set output comes back sorted by (payload, pattern), Positions output by
// (payload, end, pattern) (all matches, or the firsts of each (payload,
// pattern)), without any sort by the caller: one chunk, many
// chunks with payloads split across them, few payloads per chunk, and the
// grow + rescan path.
TEST(GpuMatcher, OutputSortedAcrossChunks) {
    REQUIRE_GPU();
    for (int seed = 0; seed < 12; ++seed) {
        CaseSpec s;
        s.patterns = 50 + 40 * (seed % 5);
        s.max_len = seed % 2 ? 8 : 40;
        s.payloads = 300;
        s.max_payload = seed % 3 == 0 ? 12000 : 3000;
        s.alphabet = seed % 4 == 0 ? "ab" : "abAB";
        Case c = random_case(4000 + seed, s);
        auto all = naive_matches(c.pats, c.view());
        sort_matches(all);
        const auto want = dedup_set(all);
        GpuOptions o;
        if (seed % 3 != 2) o.max_batch_bytes = seed % 3 == 0 ? 4096 : 16384; // split payloads
        if (seed % 4 == 3) o.max_batch_payloads = 3;
        wm::gpu::testing::set_initial_output_capacity(seed % 5 == 4 ? 16 : 0);
        auto m = GpuMatcher::create(c.pats, o);
        wm::gpu::testing::set_initial_output_capacity(0);
        std::vector<Match> set;
        for (int rep = 0; rep < 2; ++rep) { // the second scan reuses the (maybe regrown) buffers
            m->scan(c.view(), OutputMode::Set, set);
            const std::string label = "seed " + std::to_string(seed) + " rep " + std::to_string(rep);
            ASSERT_TRUE(set_sorted_distinct(set)) << label << ": not sorted by (payload, pattern)";
            ASSERT_EQ(set.size(), want.size()) << label;
            ASSERT_TRUE(set == want) << label;
            std::vector<Match> pos;
            m->scan(c.view(), OutputMode::Positions, pos);
            ASSERT_TRUE(std::is_sorted(pos.begin(), pos.end(), positions_order_less)) << label << ": Positions";
            sort_matches(pos);
            ASSERT_TRUE(pos == all) << label << ": Positions";
            // Each chunk's first per (payload, pattern): in order, every first
            // there, repeats only from a payload split across chunks.
            std::vector<Match> firsts;
            m->scan_positions(c.view(), [&](const PositionsChunk &ch) { ch.append_to(firsts); },
                              PositionsKept::FirstPerPattern);
            ASSERT_TRUE(std::is_sorted(firsts.begin(), firsts.end(), positions_order_less)) << label << ": firsts";
            ASSERT_TRUE(std::includes(all.begin(), all.end(), firsts.begin(), firsts.end(), positions_order_less))
                << label << ": firsts not among the matches";
            ASSERT_TRUE(first_per_pattern(firsts) == first_per_pattern(all)) << label << ": firsts";
            if (seed % 3 == 2) EXPECT_EQ(firsts.size(), want.size()) << label << ": one chunk, no repeat";
            EXPECT_LT(firsts.size(), all.size()) << label << ": repeats were left out";
        }
    }
}
