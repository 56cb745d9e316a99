// tests/gpu/test_case_columns.cpp - case columns (ac_case_columns.h): in a
// folded, all-dense group of 32-bit states, a letter class whose one-byte
// patterns are all exact case and unbounded becomes two columns with the
// same transitions, each a one-byte class whose list names only the
// literals of its case. The split must happen exactly then; the CPU walk
// (shared with the kernels) and, with a device, the GPU matcher must give
// the naive matcher's results in every mode.
#include "gpu/ac_case_columns.h"
#include "gpu/ac_cpu_walk.h"
#include "gpu/ac_walk.cuh"
#include "gpu/gpu_matcher.h"
#include "gpu/gpu_testing.h"
#include "reference.h"
#include "wide_case.h"

#include <gtest/gtest.h>

#include <random>

using namespace wm::gpu;
using namespace wm::gpu::test;

namespace {

// `x` and `Z` in exact case (ET Open has `x` and `z`), `1` (an ordinary
// one-byte class), and longer patterns over the same letters in both cases
// and nocase; payloads over x X z Z 1 y.
Case letter_case(uint32_t seed) {
    std::mt19937 rng(seed);
    Case c;
    add_wide_state_keys(rng, c.pats);
    c.pats.push_back(literal("x", false));
    c.pats.push_back(literal("Z", false));
    c.pats.push_back(literal("1", false));
    const std::string text = "xXzZ1y";
    for (uint32_t i = 0; i < 40; ++i) {
        std::string s(2 + rng() % 3, 'x');
        for (char &ch : s) ch = text[rng() % text.size()];
        c.pats.push_back(literal(s, rng() % 2, rng() % 5 == 0 ? rng() % 10 : 0));
    }
    for (uint32_t i = 0; i < 50; ++i) {
        const uint32_t n = rng() % 6 == 0 ? 0 : 1 + rng() % 400;
        for (uint32_t j = 0; j < n; ++j) c.data.push_back(static_cast<uint8_t>(text[rng() % text.size()]));
        c.offs.push_back(static_cast<uint32_t>(c.data.size()));
    }
    return c;
}

uint32_t id_of(const Case &c, const std::string &bytes) {
    for (uint32_t i = 0; i < c.pats.size(); ++i)
        if (c.pats[i].bytes == bytes && c.pats[i].offset == 0 && c.pats[i].depth == 0) return i;
    return UINT32_MAX;
}

} // namespace

TEST(CaseColumns, PlannerSplitsOnlyExactUnboundedLetterClasses) {
    // Classes: 0 = '1' (a one-byte class), 1 = x/X, 2 = z/Z, 3 = q/Q, 4 = y/Y/w/W, 5 = every other byte.
    std::array<uint8_t, 256> map;
    map.fill(5);
    map['1'] = 0, map['x'] = map['X'] = 1, map['z'] = map['Z'] = 2, map['q'] = map['Q'] = 3;
    map['y'] = map['Y'] = map['w'] = map['W'] = 4;
    const std::vector<OneByteLiteral> lits = {{'1', false, false}, {'x', false, false}, {'X', false, false},
                                              {'z', false, false}, {'z', true, false},  {'q', false, true},
                                              {'y', false, false}};
    const ColumnPlan p = plan_case_columns(map, 6, 1, 1, lits);
    EXPECT_EQ(p.split_classes, 1u) << "z has a nocase literal, q a bounded one, y/Y/w/W is no letter's pair";
    EXPECT_EQ(p.one_byte_columns, 3u);
    EXPECT_EQ(p.map['1'], 0u);
    EXPECT_EQ(p.map['x'], 1u);
    EXPECT_EQ(p.map['X'], 2u);
    ASSERT_EQ(p.columns(), 7u);
    EXPECT_EQ(p.col_class, (std::vector<uint8_t>{0, 1, 1, 2, 3, 4, 5}));
    for (uint8_t b : {'z', 'Z', 'q', 'Q', 'y', 'W', '#'}) EXPECT_EQ(p.col_class[p.map[b]], map[b]) << b;
    // The key pass's table holds at most kMaxOneByteLiterals.
    EXPECT_EQ(plan_case_columns(map, 6, 1, kMaxOneByteLiterals - 1, lits).split_classes, 0u) << "x and X: two literals";
}

TEST(CaseColumns, SplitColumnsStepAlikeAndListTheirCaseOnly) {
    const Case c = letter_case(1);
    const AcBlob blob = compile_wide(c, 24u << 20, true, true);
    const AcView v = blob.host_view();
    ASSERT_EQ(v.state_bytes, 4u);
    const AcGroupView &g = v.groups[0];
    ASSERT_EQ(g.num_dense, g.num_states);
    EXPECT_EQ(blob.groups[0].case_split_classes, 2u) << blob.describe();
    ASSERT_EQ(g.byte_classes, 5u) << "1, then x, X, z, Z";
    const uint32_t x = g.class_map['x'], X = g.class_map['X'], z = g.class_map['z'], Z = g.class_map['Z'];
    for (uint32_t col : {x, X, z, Z}) EXPECT_LT(col, g.byte_classes);
    EXPECT_NE(x, X);
    EXPECT_NE(z, Z);
    const auto *rows = static_cast<const uint32_t *>(g.dense);
    for (uint32_t s = 0; s < g.num_states; ++s) {
        const uint32_t *row = rows + uint64_t{s} * g.num_classes;
        ASSERT_EQ(row[x], row[X]) << "state " << s;
        ASSERT_EQ(row[z], row[Z]) << "state " << s;
    }
    EXPECT_EQ(listed_literals(g, x), std::vector<uint32_t>{id_of(c, "x")});
    EXPECT_TRUE(listed_literals(g, X).empty());
    EXPECT_TRUE(listed_literals(g, z).empty());
    EXPECT_EQ(listed_literals(g, Z), std::vector<uint32_t>{id_of(c, "Z")});
    // The literals keep kOutCase for Count and Positions.
    for (uint32_t k = 0; k < g.out_off[g.num_states]; ++k)
        if ((g.out_ids[k] & kOutIdMask) == id_of(c, "x")) EXPECT_EQ(g.out_ids[k] & (kOutOneByte | kOutCase), kOutOneByte | kOutCase);
}

TEST(CaseColumns, NoSplitWhenSparseNarrowOffOrALiteralNeedsItsCheck) {
    const Case c = letter_case(2);
    EXPECT_EQ(compile_wide(c, 0, true, true).groups[0].case_split_classes, 0u) << "sparse records list classes";
    EXPECT_EQ(compile_wide(c).groups[0].case_split_classes, 0u) << "off (the default)";
    Case nocase = c;
    nocase.pats.push_back(literal("X", true));
    EXPECT_EQ(compile_wide(nocase, 24u << 20, true, true).groups[0].case_split_classes, 1u) << "x/X has a nocase literal: only z/Z";
    Case bounded = c;
    bounded.pats.push_back(literal("z", false, 3));
    EXPECT_EQ(compile_wide(bounded, 24u << 20, true, true).groups[0].case_split_classes, 1u) << "z/Z has a bounded literal: only x/X";
    Case small;
    small.pats = {literal("x", false), literal("ab", true)};
    EXPECT_EQ(compile_wide(small, 24u << 20, true, true).groups[0].case_split_classes, 0u) << "16-bit states: no one-byte register";
}

TEST(CaseColumns, CpuWalkGivesTheNaiveResultInEveryMode) {
    for (uint32_t seed = 1; seed <= 3; ++seed) {
        const Case c = letter_case(seed);
        auto ref = naive_matches(c.pats, c.view());
        sort_matches(ref);
        const AcBlob blob = compile_wide(c, 24u << 20, true, true);
        ASSERT_EQ(blob.groups[0].case_split_classes, 2u);
        expect_cpu_walk_gives(blob, c, ref, "seed " + std::to_string(seed));
    }
}

// The layout study's knobs (bench_ac_kernel --column-shift, --pad-columns):
// the same automaton, its columns rotated past the one-byte ones and the
// rows widened, still walks to the naive matcher's results.
TEST(CaseColumns, ShiftedAndPaddedColumnsWalkAlike) {
    const Case c = letter_case(4);
    auto ref = naive_matches(c.pats, c.view());
    sort_matches(ref);
    const AcBlob plain = compile_wide(c);
    AcCompileOptions co;
    co.key_bytes = 16;
    co.dense_budget_bytes = 24u << 20;
    co.column_shift = 3;
    co.pad_columns = 5;
    const AcBlob moved = compile_ac(c.pats, co);
    const AcGroupView &g0 = plain.host_view().groups[0], &g1 = moved.host_view().groups[0];
    ASSERT_EQ(g1.num_classes, g0.num_classes + 5);
    ASSERT_EQ(g1.byte_classes, g0.byte_classes);
    uint32_t moved_bytes = 0;
    for (uint32_t b = 0; b < 256; ++b) {
        EXPECT_EQ(g1.class_map[b] < g1.byte_classes, g0.class_map[b] < g0.byte_classes) << b;
        moved_bytes += g1.class_map[b] != g0.class_map[b];
        EXPECT_LT(g1.class_map[b], g0.num_classes) << "no byte maps to a pad column";
    }
    EXPECT_GT(moved_bytes, 0u);
    expect_cpu_walk_gives(moved, c, ref, "shifted 3, padded 5");
    co.dense_budget_bytes = 0;
    EXPECT_THROW(compile_ac(c.pats, co), std::invalid_argument) << "sparse records list classes, not columns";
}

TEST(CaseColumns, GpuMatcherGivesTheNaiveResultInEveryMode) {
    REQUIRE_GPU();
    for (uint32_t seed = 1; seed <= 3; ++seed) {
        const Case c = letter_case(seed);
        auto ref = naive_matches(c.pats, c.view());
        sort_matches(ref);
        for (int config = 0; config < 2; ++config) {
            GpuOptions o;
            if (config == 1) o.max_batch_bytes = 2048; // payloads split across chunks
            wm::gpu::testing::set_case_columns(true);
            auto m = GpuMatcher::create(c.pats, o);
            wm::gpu::testing::set_case_columns(false);
            const std::string at = "seed " + std::to_string(seed) + " config " + std::to_string(config);
            EXPECT_NE(m->describe().find("(2 classes split by case)"), std::string::npos) << m->describe();
            expect_every_mode(*m, c, ref, at);
        }
    }
}
