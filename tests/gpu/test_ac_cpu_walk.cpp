// tests/gpu/test_ac_cpu_walk.cpp - the kernels' walk logic, run on the CPU
// (same plan, tiles, overlap and ownership) vs the naive reference, and
// Hyperscan vs the naive reference; the Set walk (repeats skipped) vs the
// naive distinct pairs.
#include "gpu/ac_cpu_walk.h"
#include "gpu/ac_plan.h"
#include "gpu/ac_walk.cuh"
#include "reference.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace wm::gpu;
using namespace wm::gpu::test;

namespace {

struct WalkConfig {
    const char *name;
    uint32_t tile;
    size_t chunk_bytes, chunk_payloads, dense_budget;
    uint32_t key_bytes;
    bool whole_runs = false; // the GPU matcher's plan: whole-payload runs, segments built apart
    size_t chunk_capacity = 0; // a batch's last chunk may hold this many bytes (ChunkPlanner)
};

// Small tiles and chunks force tile/chunk boundaries, payload splitting, the
// sparse path (dense_budget 0) and key verification (key_bytes < pattern length);
// keys longer than the case history (kCaseHistoryBytes) verify case byte by byte.
const WalkConfig kConfigs[] = {
    {"default", tuning::kTileBytes, 64u << 20, 1u << 20, 24u << 20, 32},
    {"tiny_tiles", 3, 64u << 20, 1u << 20, 24u << 20, 32},
    {"tiny_chunks", 5, 97, 3, 24u << 20, 32},
    {"sparse", 7, 1 << 12, 64, 0, 32},
    {"short_keys", 4, 211, 5, 24u << 20, 2},
    {"short_keys_sparse", 9, 150, 2, 0, 3},
    {"runs_default", tuning::kTileBytes, 64u << 20, 1u << 20, 24u << 20, 32, true},
    {"runs_tiny_chunks", 5, 97, 3, 24u << 20, 32, true},
    {"runs_short_keys_sparse", 9, 150, 2, 0, 3, true},
    {"runs_tiny_chunks_tail_slack", 5, 97, 3, 24u << 20, 32, true, 160},
    {"tiny_chunks_tail_slack", 5, 97, 7, 24u << 20, 32, false, 300},
    {"keys_past_case_history", 7, 1 << 12, 64, 24u << 20, UINT32_MAX}, // exact case: every byte compared
};

const CaseGroups kCaseGroups[] = {CaseGroups::Folded, CaseGroups::Split};
const char *name(CaseGroups g) { return g == CaseGroups::Folded ? "folded" : "split"; }

// The walk's plan of a config.
CpuWalkOptions plan_of(const WalkConfig &w) {
    CpuWalkOptions o;
    o.tile_bytes = w.tile;
    o.max_chunk_bytes = w.chunk_bytes;
    o.max_chunk_payloads = w.chunk_payloads;
    o.whole_runs = w.whole_runs;
    o.chunk_capacity_bytes = w.chunk_capacity;
    return o;
}

std::vector<Match> walk(const Case &c, const WalkConfig &w, bool set_semantics = false,
                        CaseGroups groups = CaseGroups::Folded) {
    AcCompileOptions co;
    co.dense_budget_bytes = w.dense_budget;
    co.key_bytes = w.key_bytes;
    co.case_groups = groups;
    AcBlob blob = compile_ac(c.pats, co);
    CpuWalkOptions o = plan_of(w);
    o.set_semantics = set_semantics;
    std::vector<Match> out;
    cpu_walk_scan(blob, c.view(), out, o);
    sort_matches(out);
    return out;
}

} // namespace

class CpuWalkRandom : public ::testing::TestWithParam<int> {};

TEST_P(CpuWalkRandom, EqualsNaive) {
    const int seed = GetParam();
    CaseSpec s;
    if (seed % 3 == 1) { s.alphabet = "aAbB\x00\xff-"; s.max_len = 12; }
    if (seed % 3 == 2) { s.alphabet = "abcdefghABCDEFGH0123"; s.patterns = 200; s.max_len = 40; s.max_payload = 2000; }
    Case c = random_case(1000 + seed, s);
    auto ref = naive_matches(c.pats, c.view());
    sort_matches(ref);
    if (s.max_len > 16) // past a key's 16 bytes the walk confirms the rest: it must be exercised
        EXPECT_TRUE(std::any_of(ref.begin(), ref.end(),
                                [&](const Match &m) { return c.pats[m.pattern].bytes.size() > 16; }))
            << "seed " << seed << ": no long pattern matched";
    for (CaseGroups cg : kCaseGroups)
        for (const auto &w : kConfigs) {
            auto got = walk(c, w, false, cg);
            ASSERT_EQ(got.size(), ref.size()) << "seed " << seed << " config " << w.name << " " << name(cg);
            EXPECT_TRUE(got == ref) << "seed " << seed << " config " << w.name << " " << name(cg);
        }
}

// Payloads left in place (a replay window's file bytes, BatchView::sources):
// each chunk gathered as the device gathers it (ac_gather.h) walks exactly
// as the packed batch, in every plan: split payloads, tiny chunks, runs.
TEST_P(CpuWalkRandom, PayloadsLeftInPlaceWalkAsPacked) {
    const int seed = GetParam();
    CaseSpec s;
    if (seed % 2) { s.alphabet = "abcdAB"; s.patterns = 60; s.max_len = 9; s.max_payload = 700; }
    const Case c = random_case(5000 + seed, s);
    const InPlace p = left_in_place(c, 77 + seed);
    AcBlob blob = compile_ac(c.pats);
    for (const auto &w : kConfigs) {
        const CpuWalkOptions o = plan_of(w);
        std::vector<Match> packed, in_place;
        cpu_walk_scan(blob, c.view(), packed, o);
        cpu_walk_scan(blob, p.view(c), in_place, o);
        ASSERT_FALSE(packed.empty()) << "a case without matches tests little";
        EXPECT_TRUE(in_place == packed) << "seed " << seed << " config " << w.name;
    }
}

// The Set kernel's walk (repeated plain states report nothing) loses no
// distinct (payload, pattern): offsets, depths and verified leading bytes
// included (the random cases have them; short_keys configs verify).
TEST_P(CpuWalkRandom, SetSemanticsKeepEveryDistinctPair) {
    const int seed = GetParam();
    CaseSpec s;
    if (seed % 2) { s.alphabet = "ab"; s.max_len = 10; s.max_payload = 900; }
    Case c = random_case(3000 + seed, s);
    const auto want = distinct_pairs(naive_matches(c.pats, c.view()));
    for (CaseGroups cg : kCaseGroups)
        for (const auto &w : kConfigs) {
            const auto got = walk(c, w, true, cg);
            EXPECT_EQ(distinct_pairs(got), want) << "seed " << seed << " config " << w.name << " " << name(cg);
            EXPECT_LE(got.size(), walk(c, w, false, cg).size()) << "seed " << seed << " config " << w.name;
        }
}

TEST(CpuWalk, SetSemanticsSkipOnlyUncheckedRepeats) {
    // "ab" (no checks) is reported once per tile; "ba" with an offset bound
    // is checked, so every hit is reported and the bound decides.
    Case c;
    c.pats = {Literal{"ab"}, Literal{"ba"}};
    c.pats[1].offset = 5;
    c.data.clear();
    for (int i = 0; i < 8; ++i) c.data.push_back('a'), c.data.push_back('b');
    c.offs = {0, static_cast<uint32_t>(c.data.size())};
    const WalkConfig w{"one_tile", 64, 64u << 20, 1u << 20, 24u << 20, 32};
    const auto all = walk(c, w), set = walk(c, w, true);
    auto count = [](const std::vector<Match> &m, uint32_t p) {
        return std::count_if(m.begin(), m.end(), [p](const Match &x) { return x.pattern == p; });
    };
    EXPECT_EQ(count(all, 0), 8);
    EXPECT_EQ(count(set, 0), 1);
    EXPECT_EQ(count(set, 1), count(all, 1)); // ends 7, 9, ..., 15 (at or past offset + length)
    EXPECT_EQ(count(all, 1), 5);
}

TEST(CpuWalk, SetReportsAPlainTargetOnceUntilAnotherPlainOne) {
    // Targets as the walk sees them: plain (outputs, none checked), checked
    // (outputs, some checked) and none (no outputs).
    const uint32_t plain_a = 7 | kOutFlag32 | kOutPlain32, plain_b = 9 | kOutFlag32 | kOutPlain32;
    const uint32_t checked = 11 | kOutFlag32, none = 3;
    const std::vector<uint32_t> steps = {none, plain_a, plain_a, checked, plain_a, none, plain_b, plain_a, checked};
    const std::vector<bool> want = {false, true, false, true, false, false, true, true, true};
    uint32_t last = 0;
    for (size_t k = 0; k < steps.size(); ++k) EXPECT_EQ(set_reports_hit<uint32_t>(steps[k], last), want[k]) << "step " << k;
    uint32_t last16 = 0; // 16-bit ids carry their flags in bits 15 and 14
    const uint32_t p16 = 5 | kOutFlag16 | kOutPlain16;
    EXPECT_TRUE(set_reports_hit<uint16_t>(p16, last16));
    EXPECT_FALSE(set_reports_hit<uint16_t>(p16, last16));
    EXPECT_TRUE(set_reports_hit<uint16_t>(5 | kOutFlag16, last16));
}

TEST_P(CpuWalkRandom, HyperscanEqualsNaive) {
    const int seed = GetParam();
    CaseSpec s;
    if (seed % 2) { s.alphabet = "abcXYZ"; s.max_len = 8; }
    Case c = random_case(5000 + seed, s);
    auto ref = naive_matches(c.pats, c.view());
    auto hs = hyperscan_matches(c.pats, c.view());
    sort_matches(ref);
    sort_matches(hs);
    ASSERT_EQ(hs.size(), ref.size()) << "seed " << seed;
    EXPECT_TRUE(hs == ref) << "seed " << seed;
}

INSTANTIATE_TEST_SUITE_P(Seeds, CpuWalkRandom, ::testing::Range(0, 24));

TEST(CpuWalk, LongPatternsAcrossTilesAndChunks) {
    Case c;
    std::mt19937 rng(9);
    std::string longp;
    for (int i = 0; i < 700; ++i) longp.push_back("ab"[rng() % 2]);
    c.pats = {{longp}, {longp.substr(100, 300), true}, {"ab"}, {longp.substr(650)}};
    c.pats[3].offset = 1000;
    for (int k = 0; k < 3; ++k) {
        std::string pay;
        for (int i = 0; i < 500; ++i) pay.push_back("ab"[rng() % 2]);
        pay += longp + longp.substr(0, 350);
        for (char ch : pay) c.data.push_back(static_cast<uint8_t>(ch));
        c.offs.push_back(static_cast<uint32_t>(c.data.size()));
    }
    auto ref = naive_matches(c.pats, c.view());
    sort_matches(ref);
    for (const auto &w : kConfigs) {
        WalkConfig x = w;
        if (x.chunk_bytes < 1000) x.chunk_bytes = 1000; // chunks must exceed longest - 1
        EXPECT_TRUE(walk(c, x) == ref) << w.name;
    }
}

// A tile's walk runs past its end only while a key that started inside it
// is still open: "xyz" straddles the first tile's end, so that walk steps two
// bytes more ("z" completes the key, then "a" brings it back to the root);
// the second tile's walk stops at its own end.
TEST(CpuWalk, RunsOutPastItsTileOnlyWhileAKeyIsOpen) {
    Case c;
    c.pats = {{"xyz"}, {"aa"}};
    const std::string pay = "aaxyzaaa"; // tiles of 4: "aaxy" "zaaa"
    c.data.assign(pay.begin(), pay.end());
    c.offs = {0, 8};
    AcBlob blob = compile_ac(c.pats);
    CpuWalkOptions o;
    o.tile_bytes = 4;
    uint64_t steps = 0;
    o.steps = &steps;
    std::vector<Match> got;
    cpu_walk_scan(blob, c.view(), got, o);
    sort_matches(got);
    auto ref = naive_matches(c.pats, c.view());
    sort_matches(ref);
    EXPECT_TRUE(got == ref);
    EXPECT_EQ(ref.size(), 4u); // aa at 2, xyz at 5, aa at 7 and 8
    EXPECT_EQ(steps, 4u + 2u + 4u);
}

TEST(CpuWalk, EmptyBatchAndPayloads) {
    Case c;
    c.pats = {{"a"}};
    EXPECT_TRUE(walk(c, kConfigs[0]).empty());
    c.offs = {0, 0, 0, 1, 1};
    c.data = {'a'};
    auto got = walk(c, kConfigs[0]);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].payload, 2u);
    EXPECT_EQ(got[0].end, 1u);
}

TEST(CpuWalk, OffsetDepthBounds) {
    Case c;
    c.pats = {{"ab"}, {"ab"}, {"ab"}};
    c.pats[1].offset = 2;               // start >= 2
    c.pats[2].offset = 1, c.pats[2].depth = 3; // start >= 1, end <= 4
    std::string pay = "ababab";
    c.data.assign(pay.begin(), pay.end());
    c.offs = {0, 6};
    auto got = walk(c, kConfigs[1]);
    auto ref = naive_matches(c.pats, c.view());
    sort_matches(ref);
    EXPECT_TRUE(got == ref);
    EXPECT_EQ(ref.size(), 3u + 2u + 1u);
}

// With a capacity above max_bytes, only a batch's last chunk may use it, and
// only when it takes the whole rest; a batch of twice max_bytes (small
// payloads) is two chunks, where without the capacity a sliver came third.
TEST(ChunkPlanner, LastChunkTakesTheRestWithinCapacity) {
    std::mt19937 rng(9);
    for (int round = 0; round < 40; ++round) {
        std::vector<uint32_t> offs{0};
        const uint32_t want = 2 * 4096 - rng() % 64;
        while (offs.back() < want) offs.push_back(std::min(want, offs.back() + 1 + static_cast<uint32_t>(rng() % 90)));
        std::vector<uint8_t> data(offs.back() + 64);
        const BatchView b{data.data(), offs.data(), static_cast<uint32_t>(offs.size() - 1)};
        for (bool runs : {false, true}) {
            auto chunks = [&](size_t capacity) {
                ChunkPlanner plan(b, 4096, 1u << 20, 13, 8, runs, capacity);
                std::vector<Chunk> out;
                Chunk c;
                while (plan.next(c)) out.push_back(c);
                return out;
            };
            const auto tight = chunks(0), slack = chunks(4096 + 128);
            ASSERT_EQ(slack.size(), 2u) << "round " << round << (runs ? " runs" : "");
            EXPECT_LE(slack[0].bytes, 4096u);
            EXPECT_LE(slack[1].bytes, 4096u + 128);
            EXPECT_EQ(slack[0].src_begin + slack[0].bytes, slack[1].src_begin); // whole payloads: no context
            EXPECT_EQ(slack[1].src_begin + slack[1].bytes, offs.back());
            EXPECT_GE(tight.size(), 2u);
            for (const Chunk &c : tight) EXPECT_LE(c.bytes, 4096u);
        }
    }
}

TEST(ChunkPlanner, WholeRunsCoverThePayloadsAsSegmentsDo) {
    // Same batch, both plans: the same payload pieces in the same order (empty
    // payloads aside; chunk boundaries may differ), chunks within the limits
    // (empty payloads count against max_segments in both: the Set kernel's
    // one-byte words cover a chunk's payloads, first to last), and every tile
    // of a run found (find_segment) in the segment that owns it.
    std::mt19937 rng(4);
    for (int round = 0; round < 20; ++round) {
        std::vector<uint32_t> offs{0};
        for (int i = 0; i < 300; ++i) {
            const uint32_t len = rng() % 5 == 0 ? 0 : (rng() % 7 == 0 ? 900 + rng() % 400 : rng() % 120);
            offs.push_back(offs.back() + len);
        }
        std::vector<uint8_t> data(offs.back() + 64);
        const BatchView b{data.data(), offs.data(), static_cast<uint32_t>(offs.size() - 1)};
        const size_t max_bytes = 500 + rng() % 1500, max_segs = 1 + rng() % 40;
        struct Piece {
            uint32_t payload;
            uint64_t begin, end; // batch bytes
            bool operator==(const Piece &o) const { return payload == o.payload && begin == o.begin && end == o.end; }
        };
        auto pieces = [&](bool whole_runs, size_t *n_runs) {
            ChunkPlanner plan(b, max_bytes, max_segs, 13, 40, whole_runs);
            std::vector<Piece> out;
            Chunk c;
            while (plan.next(c)) {
                EXPECT_LE(c.last_payload - c.first_payload + 1, max_segs) << "payloads of one chunk";
                // The one-byte words a chunk slot keeps (max_segs of them) hold every payload's.
                EXPECT_LE(one_byte_words(c), max_segs);
                EXPECT_GE(one_byte_words(c), c.last_payload - c.first_payload + 1);
                EXPECT_LE(c.segs.size(), max_segs);
                if (c.whole_run) {
                    ++*n_runs;
                    EXPECT_LE(c.bytes, max_bytes);
                    EXPECT_LE(c.end_payload - c.first_payload, max_segs);
                    c.tiles = whole_run_segments(b, c, 13, c.segs);
                    for (uint32_t t = 0; t < c.tiles; ++t) {
                        const Segment &sg = c.segs[find_segment(c.segs.data(), static_cast<uint32_t>(c.segs.size()), t)];
                        EXPECT_GE(t, sg.tile_begin);
                        EXPECT_LT(t, sg.tile_begin + payload_tiles(sg.data_end - sg.data_begin, 13));
                    }
                }
                uint32_t last = 0;
                for (const Segment &sg : c.segs)
                    if (sg.data_end > sg.data_begin) {
                        out.push_back({sg.payload, c.src_begin + sg.data_begin + sg.skip, c.src_begin + sg.data_end});
                        last = sg.payload;
                    }
                EXPECT_EQ(c.last_payload, last);
            }
            return out;
        };
        size_t n_plain = 0, n_runs = 0;
        const std::vector<Piece> a = pieces(false, &n_plain), r = pieces(true, &n_runs);
        EXPECT_EQ(n_plain, 0u);
        EXPECT_GT(n_runs, 0u);
        EXPECT_TRUE(a == r) << "round " << round;
    }
}

TEST(UnitIndex, EveryTileFoundAmongItsUnitsSegments) {
    // Segments with empty payloads (several segments starting at one tile),
    // payloads of many tiles (units starting inside one segment) and a last
    // unit cut short: the index written segment by segment holds the segment
    // of each unit's first tile (of the last tile at the end), and through it
    // every tile finds the segment a search over all of them finds, for
    // small units and the kernels' 256.
    std::mt19937 rng(11);
    for (int round = 0; round < 30; ++round) {
        std::vector<uint32_t> offs{0};
        const int n = 1 + static_cast<int>(rng() % 400);
        for (int i = 0; i < n; ++i) {
            const uint32_t len = rng() % 4 == 0 ? 0 : (rng() % 9 == 0 ? 2000 + rng() % 9000 : rng() % 90);
            offs.push_back(offs.back() + len);
        }
        std::vector<uint8_t> data(offs.back() + 64);
        const BatchView b{data.data(), offs.data(), static_cast<uint32_t>(offs.size() - 1)};
        ChunkPlanner plan(b, size_t{1} << 30, b.count, 13, 40, true);
        Chunk c;
        ASSERT_TRUE(plan.next(c));
        c.tiles = whole_run_segments(b, c, 13, c.segs);
        if (c.tiles == 0) continue;
        const uint32_t nsegs = static_cast<uint32_t>(c.segs.size());
        for (uint32_t unit_tiles : {1u, 3u, 8u, 256u}) {
            const uint32_t units = (c.tiles + unit_tiles - 1) / unit_tiles;
            std::vector<uint32_t> index(units + 1, ~0u);
            unit_index_of_segments(c.segs.data(), nsegs, c.tiles, unit_tiles, index.data());
            for (uint32_t u = 0; u <= units; ++u)
                ASSERT_EQ(index[u], find_segment(c.segs.data(), nsegs, std::min(u * unit_tiles, c.tiles - 1)))
                    << "round " << round << ", unit " << u << " of " << unit_tiles << " tiles";
            for (uint32_t t = 0; t < c.tiles; ++t)
                ASSERT_EQ(find_segment_of_unit(c.segs.data(), nsegs, index.data(), t / unit_tiles, t),
                          find_segment(c.segs.data(), nsegs, t))
                    << "round " << round << ", unit of " << unit_tiles << " tiles, tile " << t;
        }
    }
}
