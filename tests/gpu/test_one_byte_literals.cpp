// tests/gpu/test_one_byte_literals.cpp - one-byte literals in the Set walk
// (ac_blob.h): their classes are numbered first, targets whose outputs are
// all such literals are no Set hit, the literals carry kOutOneByte in other
// output lists, and a lane register reports them instead (the kernel: one
// word per payload, made into keys after it, ac_one_byte_keys.cu). The CPU
// walk (shared with the kernels) and, with a device, the GPU matcher must
// still give the naive matcher's pairs in every mode, across tiles, chunks,
// pinned runs, output rescans and set pairs, dense and sparse states.
#include "gpu/ac_cpu_walk.h"
#include "gpu/ac_walk.cuh"
#include "gpu/gpu_matcher.h"
#include "gpu/gpu_testing.h"
#include "reference.h"
#include "wide_case.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

using namespace wm::gpu;
using namespace wm::gpu::test;

namespace {

constexpr char kText[] = "aAbB1;x\x00-";

// Over 16,384 states (32-bit states: the only kind with the flag) from long
// keys over letters the text never holds; one-byte literals that qualify
// ("a" nocase, "1", ";", |00|) and that do not ("b" exact case in a folded
// group, "x" with a depth, "-" twice, once with an offset); short patterns
// over the text's bytes, some bounded or exact-case.
Case one_byte_case(uint32_t seed) {
    std::mt19937 rng(seed);
    Case c;
    const std::string text(kText, sizeof kText - 1);
    for (uint32_t i = 0; i < 60; ++i) {
        const uint32_t n = 1 + rng() % (i % 7 == 0 ? 700 : 120);
        for (uint32_t j = 0; j < n; ++j) c.data.push_back(static_cast<uint8_t>(text[rng() % text.size()]));
        c.offs.push_back(static_cast<uint32_t>(c.data.size()));
    }
    add_wide_state_keys(rng, c.pats);
    c.pats.push_back(literal("a", true));
    c.pats.push_back(literal("1", false));
    c.pats.push_back(literal(";", false));
    c.pats.push_back(literal(std::string(1, '\0'), false));
    c.pats.push_back(literal("b", false));
    c.pats.push_back(literal("x", true, 0, 5));
    c.pats.push_back(literal("-", false));
    c.pats.push_back(literal("-", false, 4));
    for (uint32_t i = 0; i < 40; ++i) {
        std::string s(2 + rng() % 3, 'a');
        for (char &ch : s) ch = text[rng() % text.size()];
        c.pats.push_back(literal(s, rng() % 2, rng() % 4 == 0 ? rng() % 10 : 0, rng() % 5 == 0 ? 20 : 0));
    }
    return c;
}

} // namespace

// Without case columns (the default; test_case_columns.cpp), "b" in exact case stays checked.
TEST(OneByteLiterals, QualifyingClassesComeFirstAndTheirTargetsAreFlagged) {
    const Case c = one_byte_case(1);
    const AcBlob blob = compile_wide(c);
    const AcView v = blob.host_view();
    ASSERT_EQ(v.num_groups, 1u);
    ASSERT_EQ(v.state_bytes, 4u) << blob.describe();
    const AcGroupView &g = v.groups[0];
    ASSERT_EQ(g.byte_classes, 4u) << "a (nocase), 1, ; and |00| qualify";
    for (uint8_t b : {'a', 'A', '1', ';', '\0'}) EXPECT_LT(g.class_map[b], 4u) << int(b);
    EXPECT_EQ(g.class_map['a'], g.class_map['A']);
    for (uint8_t b : {'b', 'B', 'x', '-'}) EXPECT_GE(g.class_map[b], 4u) << int(b) << ": checked, not registered";
    // The root's target on each one-byte class reports exactly its literals, flagged.
    const auto *rows = static_cast<const uint32_t *>(g.dense);
    for (uint32_t cl = 0; cl < g.byte_classes; ++cl) {
        const uint32_t t = rows[cl], s = t & ~state_flags<uint32_t>();
        EXPECT_EQ(t & (kOutFlag32 | kOutPlain32 | kOneByteOnly32), kOutFlag32 | kOneByteOnly32) << "no hit, not plain";
        std::vector<uint32_t> outs;
        for (uint32_t k = g.out_off[s]; k < g.out_off[s + 1]; ++k) {
            EXPECT_EQ(c.pats[g.out_ids[k] & kOutIdMask].bytes.size(), 1u);
            EXPECT_EQ(g.out_ids[k] & ~kOutIdMask, kOutOneByte);
            outs.push_back(g.out_ids[k] & kOutIdMask);
        }
        std::sort(outs.begin(), outs.end());
        EXPECT_EQ(listed_literals(g, cl), outs) << "class " << cl << ": the key pass's list";
    }
    EXPECT_EQ(rows[g.class_map['b']] & kOneByteOnly32, 0u);
    // Every output entry: kOutOneByte exactly on the qualifying literals,
    // wherever they are listed (states reached by a longer key ending in one).
    size_t flagged = 0;
    for (uint32_t k = 0; k < g.out_off[g.num_states]; ++k) {
        const uint32_t e = g.out_ids[k];
        const Literal &l = c.pats[e & kOutIdMask];
        const bool qualifies = l.bytes.size() == 1 && g.class_map[static_cast<uint8_t>(l.bytes[0])] < 4;
        EXPECT_EQ((e & kOutOneByte) != 0, qualifies) << "entry " << k;
        if (e & kOutOneByte) {
            EXPECT_EQ(e & (kOutCheck | kOutCase), 0u) << "entry " << k;
            ++flagged;
        }
    }
    EXPECT_GT(flagged, 4u) << "the literals are listed beyond the root's targets too";
}

TEST(OneByteLiterals, NoFlagWithSixteenBitStatesOrTwoGroups) {
    Case small;
    small.pats = {Literal{"a"}, Literal{"1"}, Literal{"bc"}};
    EXPECT_EQ(compile_wide(small).host_view().groups[0].byte_classes, 0u) << "16-bit states have no spare bit";
    const Case c = one_byte_case(2);
    AcCompileOptions co;
    co.key_bytes = 16;
    co.case_groups = CaseGroups::Split;
    const AcView v = compile_ac(c.pats, co).host_view();
    ASSERT_EQ(v.num_groups, 2u);
    EXPECT_EQ(v.groups[0].byte_classes + v.groups[1].byte_classes, 0u) << "the register serves one group";
}

// The key pass holds every registered literal in a shared table of
// kMaxOneByteLiterals: a class whose literals would overflow it stays an
// ordinary output (here "1", listed 300 times), later ones still qualify.
TEST(OneByteLiterals, ClassesStopAtTheLiteralLimit) {
    Case c = one_byte_case(5);
    const size_t at = c.pats.size();
    for (int k = 0; k < 300; ++k) c.pats.push_back(Literal{"1"});
    const AcBlob blob = compile_wide(c);
    const AcView v = blob.host_view();
    const AcGroupView &g = v.groups[0];
    ASSERT_EQ(g.byte_classes, 3u) << "a (nocase), ; and |00|";
    EXPECT_GE(g.class_map['1'], g.byte_classes);
    for (uint8_t b : {'a', ';', '\0'}) EXPECT_LT(g.class_map[b], g.byte_classes) << int(b);
    for (uint32_t k = 0; k < g.out_off[g.num_states]; ++k)
        if ((g.out_ids[k] & kOutIdMask) >= at) EXPECT_EQ(g.out_ids[k] & kOutOneByte, 0u);
    // The CPU walk still reports every copy.
    auto ref = naive_matches(c.pats, c.view());
    CpuWalkOptions o;
    o.set_semantics = true;
    std::vector<Match> set;
    cpu_walk_scan(blob, c.view(), set, o);
    EXPECT_EQ(distinct_pairs(set), distinct_pairs(ref));
}

// Budget 0 walks sparse states.
TEST(OneByteLiterals, CpuWalkGivesTheNaivePairsAndPositions) {
    for (uint32_t seed = 1; seed <= 3; ++seed) {
        const Case c = one_byte_case(seed);
        auto ref = naive_matches(c.pats, c.view());
        sort_matches(ref);
        const auto want = distinct_pairs(ref);
        for (size_t budget : {size_t{24} << 20, size_t{0}})
        for (bool columns : {false, true}) {
            const AcBlob blob = compile_wide(c, budget, true, columns);
            // With case columns b and B become one-byte classes too, when every state is dense.
            ASSERT_EQ(blob.host_view().groups[0].byte_classes, columns && budget ? 6u : 4u);
            for_each_walk_config([&](CpuWalkOptions o, const std::string &config) {
                std::vector<Match> pos, set;
                cpu_walk_scan(blob, c.view(), pos, o);
                o.set_semantics = true;
                cpu_walk_scan(blob, c.view(), set, o);
                sort_matches(pos);
                const std::string at = "seed " + std::to_string(seed) + " budget " + std::to_string(budget) +
                                       (columns ? " case columns " : " ") + config;
                EXPECT_TRUE(pos == ref) << at;
                EXPECT_EQ(distinct_pairs(set), want) << at;
                if (o.tile_bytes == 52) EXPECT_LT(set.size(), pos.size()) << at; // tiny tiles report a class per tile
            });
        }
    }
}

TEST(OneByteLiterals, GpuMatcherGivesTheNaiveResultInEveryMode) {
    REQUIRE_GPU();
    for (uint32_t seed = 1; seed <= 3; ++seed) {
        const Case c = one_byte_case(seed);
        auto ref = naive_matches(c.pats, c.view());
        sort_matches(ref);
        for (size_t budget : {size_t{0}, size_t{1}}) { // the matcher's budget, then the root's row alone
            wm::gpu::testing::set_dense_budget_bytes(budget);
            auto m = GpuMatcher::create(c.pats, GpuOptions{});
            wm::gpu::testing::set_dense_budget_bytes(0);
            expect_every_mode(*m, c, ref, "seed " + std::to_string(seed) + " budget " + std::to_string(budget));
        }
    }
}

// The segment words and the keys made from them, wherever a payload's
// segment lies: host-planned chunks (payloads split across chunks, few per
// chunk), runs built on the device from a pinned batch, outputs too small
// (the keys after the kernel count towards the rescan), and set pairs.
TEST(OneByteLiterals, GpuSetKeysAcrossChunksRunsRescansAndPairs) {
    REQUIRE_GPU();
    const Case c = one_byte_case(4);
    ASSERT_EQ(compile_wide(c).host_view().groups[0].byte_classes, 4u) << "a, 1, ; and |00|";
    auto ref = naive_matches(c.pats, c.view());
    sort_matches(ref);
    const auto want = dedup_set(ref);
    std::vector<std::pair<uint32_t, uint32_t>> want_pairs;
    for (const Match &x : want) want_pairs.emplace_back(x.pattern, x.payload);
    for (int config = 0; config < 6; ++config) {
        GpuOptions o;
        if (config % 3 == 1) o.max_batch_bytes = 2048; // split payloads
        if (config % 3 == 2) o.max_batch_payloads = 3;
        wm::gpu::testing::set_initial_output_capacity(config >= 3 ? 16 : 0);
        const size_t rescans = wm::gpu::testing::output_rescans();
        auto m = GpuMatcher::create(c.pats, o);
        wm::gpu::testing::set_initial_output_capacity(0);
        uint8_t *pin = m->pinned_buffer(c.data.size() + 1);
        std::memcpy(pin, c.data.data(), c.data.size());
        const std::string label = "config " + std::to_string(config);
        for (const BatchView &b : {c.view(), BatchView{pin, c.offs.data(), c.view().count}}) {
            std::vector<Match> set;
            m->scan(b, OutputMode::Set, set);
            EXPECT_TRUE(set == want) << label << (b.data == pin ? " pinned" : " pageable") << ": " << set.size()
                                     << " keys, want " << want.size();
            const SetPair *got = nullptr;
            const size_t n = m->scan_set_pairs(b, nullptr, &got);
            std::vector<std::pair<uint32_t, uint32_t>> pairs;
            for (size_t k = 0; k < n; ++k) pairs.emplace_back(got[k].id, got[k].payload);
            std::sort(pairs.begin(), pairs.end());
            std::sort(want_pairs.begin(), want_pairs.end());
            EXPECT_TRUE(pairs == want_pairs) << label << ": " << n << " pairs, want " << want_pairs.size();
        }
        if (config >= 3) EXPECT_GT(wm::gpu::testing::output_rescans(), rescans) << label << ": no rescan";
    }
}
