// tests/gpu/test_covered_steps.cpp - covered steps (kCovered32, ac_blob.h):
// a dense entry whose plain target reports nothing its source state did not
// report is no Set hit. The flags must be exactly those, absent where a step
// can fall back to another state's row (sparse states) or has no spare bit
// (16-bit states); the CPU walk (shared with the kernels) and, with a
// device, the GPU matcher must still give the naive matcher's results, with
// fewer Set hits than the same rows without the flag.
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
#include <set>

using namespace wm::gpu;
using namespace wm::gpu::test;

namespace {

// Runs of |00| x 3 / 5 / 8 (the ET set's hottest chain), "aaaa" exact case
// (checked: never covered), nocase "ab", a one-byte literal "1" that the
// register reports, and "x1" and bounded "|0d 0a|" among them; over 16,384
// states (32-bit states) from long keys of letters the text never holds.
// Payloads are runs of 1-40 bytes of |00|, a, A, b, 1, x, |0d| and |0a|.
Case run_case(uint32_t seed) {
    std::mt19937 rng(seed);
    Case c;
    const std::string text("\0aAb1x\r\n", 8);
    add_wide_state_keys(rng, c.pats);
    for (uint32_t k : {3u, 5u, 8u}) c.pats.push_back(literal(std::string(k, '\0'), false));
    c.pats.push_back(literal("AAAA", false));
    c.pats.push_back(literal("ab", true));
    c.pats.push_back(literal("1", false));
    c.pats.push_back(literal("x1", true));
    c.pats.push_back(literal("\r\n", false, 0, 30));
    c.pats.push_back(literal(std::string("\0\0b", 3), true));
    for (uint32_t i = 0; i < 60; ++i) {
        std::string p;
        for (uint32_t n = 0; n < 200 + rng() % 600;) {
            const uint32_t run = 1 + rng() % 40;
            p.append(run, text[rng() % text.size()]);
            n += run;
        }
        c.data.insert(c.data.end(), p.begin(), p.end());
        c.offs.push_back(static_cast<uint32_t>(c.data.size()));
    }
    return c;
}

// The pattern ids of state s, the register's one-byte literals left out.
std::set<uint32_t> reported(const AcGroupView &g, uint32_t s) {
    std::set<uint32_t> o;
    for (uint32_t k = g.out_off[s]; k < g.out_off[s + 1]; ++k)
        if (!(g.out_ids[k] & kOutOneByte)) o.insert(g.out_ids[k] & kOutIdMask);
    return o;
}

} // namespace

TEST(CoveredSteps, FlagExactlyTheStepsWhoseSourceReportedEveryOutput) {
    const Case c = run_case(1);
    const AcBlob blob = compile_wide(c);
    const AcView v = blob.host_view();
    ASSERT_EQ(v.num_groups, 1u);
    ASSERT_EQ(v.state_bytes, 4u) << blob.describe();
    const AcGroupView &g = v.groups[0];
    ASSERT_EQ(g.num_dense, g.num_states);
    ASSERT_GT(g.byte_classes, 0u) << "\"1\" is reported by the register";
    const auto *rows = static_cast<const uint32_t *>(g.dense);
    uint64_t flagged = 0;
    for (uint32_t p = 0; p < g.num_states; ++p) {
        const std::set<uint32_t> from = reported(g, p);
        for (uint32_t cl = 0; cl < g.num_classes; ++cl) {
            const uint32_t t = rows[uint64_t{p} * g.num_classes + cl], s = t & ~state_flags<uint32_t>();
            const std::set<uint32_t> to = reported(g, s);
            const bool plain = (t & (kOutPlain32 | kCovered32)) != 0; // a covered step loses its plain flag
            if (t & kCovered32) ASSERT_EQ(t & (kOutFlag32 | kOutPlain32), kOutFlag32) << "state " << p;
            const bool want = plain && !from.empty() && std::includes(from.begin(), from.end(), to.begin(), to.end());
            ASSERT_EQ((t & kCovered32) != 0, want) << "state " << p << " class " << cl << " -> " << s;
            flagged += want;
        }
    }
    EXPECT_EQ(flagged, blob.groups[0].covered_steps);
    // Along a run of |00|: no outputs, none, {3}, {3} (covered), {3, 5},
    // {3, 5} twice (covered), {3, 5, 8}, then its repeats (covered).
    const std::vector<bool> zeros = {false, false, false, true, false, true, true, false, true, true};
    uint32_t s = 0;
    for (size_t k = 0; k < zeros.size(); ++k) {
        const uint32_t t = ac_step<uint32_t, false>(g, s, g.class_map[0]);
        EXPECT_EQ((t & kCovered32) != 0, zeros[k]) << (k + 1) << " bytes of |00|";
        s = t & ~state_flags<uint32_t>();
    }
    // "aaaa" is checked (exact case): its state is never covered, not even by itself.
    s = 0;
    for (int k = 0; k < 8; ++k) {
        const uint32_t t = ac_step<uint32_t, false>(g, s, g.class_map['a']);
        EXPECT_EQ(t & kCovered32, 0u) << (k + 1) << " bytes of a";
        s = t & ~state_flags<uint32_t>();
    }
}

TEST(CoveredSteps, NoneWithSparseStatesOrSixteenBitStates) {
    const Case c = run_case(2);
    const AcBlob sparse = compile_wide(c, 0);
    EXPECT_LT(sparse.host_view().groups[0].num_dense, sparse.host_view().groups[0].num_states);
    EXPECT_EQ(sparse.groups[0].covered_steps, 0u) << "a sparse step falls back to another state's row";
    // Off (bench_ac_kernel --covered-steps 0): the same blob but the flags.
    const AcBlob on = compile_wide(c), off = compile_wide(c, 24u << 20, false);
    EXPECT_GT(on.groups[0].covered_steps, 0u);
    EXPECT_EQ(off.groups[0].covered_steps, 0u);
    ASSERT_EQ(on.bytes.size(), off.bytes.size());
    uint64_t differ = 0;
    for (size_t k = 0; k + 4 <= on.bytes.size(); k += 4) {
        uint32_t a, b;
        std::memcpy(&a, on.bytes.data() + k, 4);
        std::memcpy(&b, off.bytes.data() + k, 4);
        ASSERT_TRUE(a == b || (a ^ b) == (kCovered32 | kOutPlain32)) << "word " << k / 4;
        differ += a != b;
    }
    EXPECT_EQ(differ, on.groups[0].covered_steps);
    Case small;
    small.pats = {literal(std::string(3, '\0'), false), literal(std::string(5, '\0'), false)};
    const AcBlob narrow = compile_wide(small);
    ASSERT_EQ(narrow.host_view().state_bytes, 2u);
    EXPECT_EQ(narrow.groups[0].covered_steps, 0u) << "16-bit states have no spare bit";
}

// A continuation's first step follows its warm-up, which reports nothing.
TEST(CoveredSteps, CpuWalkGivesTheNaiveResultWithFewerSetHits) {
    for (uint32_t seed = 1; seed <= 3; ++seed) {
        const Case c = run_case(seed);
        auto ref = naive_matches(c.pats, c.view());
        sort_matches(ref);
        const auto want = distinct_pairs(ref);
        const AcBlob blob = compile_wide(c);
        const AcBlob plain_rows = compile_wide(c, 24u << 20, false); // the same rows without the flag
        for_each_walk_config([&](CpuWalkOptions o, const std::string &config) {
            const std::string at = "seed " + std::to_string(seed) + " " + config;
            std::vector<Match> pos;
            cpu_walk_scan(blob, c.view(), pos, o);
            sort_matches(pos);
            EXPECT_TRUE(pos == ref) << at << ": Positions ignore the flag";
            o.set_semantics = true;
            std::vector<Match> set, set_unflagged;
            cpu_walk_scan(blob, c.view(), set, o);
            cpu_walk_scan(plain_rows, c.view(), set_unflagged, o);
            EXPECT_EQ(distinct_pairs(set), want) << at;
            EXPECT_EQ(distinct_pairs(set_unflagged), want) << at;
            if (o.tile_bytes > 1) EXPECT_LT(set.size(), set_unflagged.size()) << at;
        });
    }
}

TEST(CoveredSteps, GpuMatcherGivesTheNaiveResult) {
    REQUIRE_GPU();
    for (uint32_t seed = 1; seed <= 3; ++seed) {
        const Case c = run_case(seed);
        auto ref = naive_matches(c.pats, c.view());
        sort_matches(ref);
        for (int config = 0; config < 3; ++config) {
            GpuOptions o;
            if (config == 1) o.max_batch_bytes = 2048; // payloads split across chunks
            if (config == 2) o.max_batch_payloads = 3;
            auto m = GpuMatcher::create(c.pats, o);
            const std::string at = "seed " + std::to_string(seed) + " config " + std::to_string(config);
            ASSERT_EQ(m->describe().find(" 0 covered steps"), std::string::npos) << m->describe();
            expect_every_mode(*m, c, ref, at);
        }
    }
}
