// tests/gpu/test_run_targets.cpp - run targets (kRunStep32, ac_blob.h):
// which states carry the flag and the window they need, ac_run_quiet's
// look-back, and the Set walk over runs of one byte, which skips quiet
// run-target hits yet keeps every distinct pair: on the CPU walk (every
// plan of small tiles and chunks, folded and split groups) and, on a
// device, the GPU matcher's Set mode.
#include "gpu/ac_run_targets.h"
#include "gpu/ac_walk.cuh"
#include "wide_case.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

using namespace wm::gpu;
using namespace wm::gpu::test;

namespace {

// Literals that end in a run of A or B (key 16: longer ones are checked),
// then keys that make the automaton's states 32-bit (the flag's bit) from
// bytes the payloads never hold. The real ones come first: the others never
// match, so the naive reference runs over those alone.
constexpr size_t kRealPatterns = 11;
std::vector<Literal> run_patterns() {
    const std::string a16(16, 'A');
    std::vector<Literal> p = {
        literal(std::string(20, 'A'), false),           // a run, checked
        literal(std::string(40, 'A'), true),            // a longer run, nocase: the window
        literal("xyz" + a16, false),                    // leading bytes before a run of 16
        literal("Q" + std::string(30, 'A'), false),     // ... before a run of 30
        literal("aaaa", false),                         // exact case in a folded group: A^4 on are not plain
        literal(std::string(8, 'A'), false),            // plain
        literal("AAAAa" + std::string(15, 'A'), false), // mixed case, exact
        literal(std::string(24, 'B'), false, 100),      // a run with a lower bound: run_min_end
        literal(std::string(18, 'B'), false, 10, 60),   // and with a depth
        literal("CB" + std::string(20, 'B'), false),
        literal(std::string(17, 'b'), true),
    };
    std::mt19937 rng(7);
    add_wide_state_keys(rng, p); // twice: case and nocase groups apart are each past 16,384 states too
    add_wide_state_keys(rng, p);
    return p;
}

// Payloads of runs of A, a and B (1 to 300 bytes) between the literals'
// other bytes, and a few of one run only.
Case run_case(uint32_t seed) {
    Case c;
    c.pats = run_patterns();
    std::mt19937 rng(seed);
    const std::string other = "xyzQCB.aAb";
    for (int k = 0; k < 40; ++k) {
        const uint32_t len = k < 3 ? 2000 + rng() % 3000 : rng() % 1200;
        const char only = "AaB"[rng() % 3];
        while (c.data.size() - c.offs.back() < len) {
            const uint32_t r = rng() % 10;
            if (k < 3) c.data.push_back(static_cast<uint8_t>(only));
            else if (r < 6) c.data.insert(c.data.end(), 1 + rng() % (r < 3 ? 40 : 300), "AABa"[rng() % 4]);
            else c.data.push_back(static_cast<uint8_t>(other[rng() % other.size()]));
        }
        c.data.resize(c.offs.back() + len);
        c.offs.push_back(static_cast<uint32_t>(c.data.size()));
    }
    return c;
}

std::vector<Match> reference_matches(const Case &c) {
    auto ref = naive_matches(std::vector<Literal>(c.pats.begin(), c.pats.begin() + kRealPatterns), c.view());
    sort_matches(ref);
    return ref;
}

AcBlob run_blob(bool run_steps, CaseGroups groups) {
    AcCompileOptions co;
    co.key_bytes = 16;
    co.case_groups = groups;
    co.run_steps = run_steps;
    AcBlob blob = compile_ac(run_patterns(), co);
    EXPECT_EQ(blob.header().state_bytes, 4u) << "the wide keys must make 32-bit states";
    return blob;
}

// The Set walk of c with run targets (on) and without (off) in every plan:
// both give `want`'s pairs; returns the hits each reported, over all plans.
std::pair<size_t, size_t> expect_set_walks(const AcBlob &on, const AcBlob &off, const Case &c,
                                           const std::vector<std::pair<uint32_t, uint32_t>> &want,
                                           const std::string &label) {
    size_t quiet_hits = 0, all_hits = 0;
    for_each_walk_config([&](CpuWalkOptions o, const std::string &config) {
        o.set_semantics = true;
        std::vector<Match> quiet, all;
        cpu_walk_scan(on, c.view(), quiet, o);
        cpu_walk_scan(off, c.view(), all, o);
        EXPECT_EQ(distinct_pairs(quiet), want) << label << " " << config;
        EXPECT_EQ(distinct_pairs(all), want) << label << " " << config;
        quiet_hits += quiet.size(), all_hits += all.size();
    });
    return {quiet_hits, all_hits};
}

} // namespace

TEST(RunTargets, RunStringStatesAreOneClassRepeated) {
    // 0 -1-> 1 (a) -1-> 3 (aa) -1-> 7 (aaa); 1 -2-> 4 (ab); 0 -2-> 2 (b) -2-> 5 (bb); 2 -1-> 6 (ba)
    const std::vector<std::vector<std::pair<uint8_t, uint32_t>>> kids = {
        {{1, 1}, {2, 2}}, {{1, 3}, {2, 4}}, {{1, 6}, {2, 5}}, {{1, 7}}, {}, {}, {}, {}};
    const std::vector<bool> want = {false, true, true, true, false, true, false, true};
    EXPECT_EQ(run_string_states(kids), want);
}

TEST(RunTargets, FlagTheRunStatesWithCheckedOutputsAndSizeTheWindow) {
    const auto pats = run_patterns();
    for (bool on : {true, false}) {
        AcCompileOptions co;
        co.key_bytes = 16;
        co.run_steps = on;
        const AcBlob blob = compile_ac(pats, co);
        ASSERT_EQ(blob.header().state_bytes, 4u);
        const AcView v = blob.host_view();
        EXPECT_EQ(v.run_window, on ? 41u : 0u) << "the longest run-target output (40 A's) + 1";
        EXPECT_EQ(v.run_min_end, on ? 124u : 0u) << "24 B's at offset 100";
        const AcGroupView &g = v.groups[0];
        // A^d for d = 1..17: A^4 on (outputs with "aaaa", exact) are run targets; A^16 steps to itself.
        uint32_t t = 0;
        for (uint32_t d = 1; d <= 17; ++d) {
            t = ac_step<uint32_t>(g, t & ~state_flags<uint32_t>(), g.class_map['A']);
            const bool run = (t & kRunStep32) != 0;
            EXPECT_EQ(run, on && d >= 4) << d << " A's";
            if (d >= 4) EXPECT_EQ(t & (kOutFlag32 | kOutPlain32), kOutFlag32) << d << " A's: outputs, not plain";
        }
        EXPECT_EQ(blob.groups[0].run_targets > 0, on) << blob.describe();
    }
}

TEST(RunTargets, QuietOnceTheRunReachesTheWindowAndTheBound) {
    AcView v{};
    v.run_window = 4;
    v.run_min_end = 0;
    const std::string s = "xAAAAAAAAB" "AAAAA";
    auto text = [&](uint32_t i) { return static_cast<uint8_t>(s[i]); };
    RunTrack r;
    std::string got;
    for (uint32_t i = 1; i <= 8; ++i) got += ac_run_quiet(v, text, 0, 0, i, r) ? 'q' : '-';
    EXPECT_EQ(got, "----qqqq") << "A's at 1..8: quiet from 5";
    EXPECT_TRUE(ac_run_quiet(v, text, 0, 0, 8, r)) << "a second group at the same byte";
    EXPECT_FALSE(ac_run_quiet(v, text, 0, 0, 10, r)) << "a new run after B";
    RunTrack fresh; // looks back from byte 14: 10..14 are A
    EXPECT_TRUE(ac_run_quiet(v, text, 0, 0, 14, fresh));
    RunTrack inside; // the segment starts at 11: 3 bytes of run in it
    EXPECT_FALSE(ac_run_quiet(v, text, 11, 0, 14, inside));
    v.run_min_end = 100; // ends count from the payload: byte 14 ends at 14 + 1 + pos_delta
    RunTrack low, high;
    EXPECT_FALSE(ac_run_quiet(v, text, 0, 85, 14, low));
    EXPECT_TRUE(ac_run_quiet(v, text, 0, 86, 14, high));
}

TEST(RunTargets, SetWalkOverRunsKeepsEveryPairWithFewerHits) {
    for (CaseGroups groups : {CaseGroups::Folded, CaseGroups::Split}) {
        const AcBlob on = run_blob(true, groups), off = run_blob(false, groups);
        for (uint32_t seed = 1; seed <= 6; ++seed) {
            const Case c = run_case(seed);
            const auto want = distinct_pairs(reference_matches(c));
            ASSERT_FALSE(want.empty());
            const auto [quiet, all] = expect_set_walks(on, off, c, want, "seed " + std::to_string(seed) +
                                                           (groups == CaseGroups::Folded ? " folded" : " split"));
            EXPECT_LT(quiet * 2, all) << "seed " << seed << ": quiet run targets report less";
        }
    }
}

// Random literal sets of runs of A, a, B or b (1-45 bytes, some with other
// bytes around them, a third nocase, some with offsets and depths) over
// payloads of runs: every plan, both group layouts, with and without the flag.
TEST(RunTargets, RandomRunLiteralsKeepEveryPair) {
    for (uint32_t seed = 1; seed <= 12; ++seed) {
        std::mt19937 rng(seed * 7919);
        const std::string other = "AaBbxQ.";
        Case c;
        const size_t real = 6 + rng() % 10;
        while (c.pats.size() < real) {
            std::string s;
            if (rng() % 2)
                for (uint32_t k = rng() % 4; k; --k) s += other[rng() % other.size()];
            s += std::string(1 + rng() % 45, "AaBb"[rng() % 4]);
            if (rng() % 3 == 0) s += other[rng() % other.size()];
            const uint32_t offset = rng() % 4 == 0 ? rng() % 120 : 0;
            const uint32_t depth = rng() % 5 == 0 ? static_cast<uint32_t>(s.size() + rng() % 200) : 0;
            c.pats.push_back(literal(s, rng() % 3 == 0, offset, depth));
        }
        add_wide_state_keys(rng, c.pats);
        add_wide_state_keys(rng, c.pats);
        for (int k = 0; k < 12; ++k) {
            const uint32_t len = rng() % 1500;
            while (c.data.size() - c.offs.back() < len) {
                if (rng() % 3) c.data.insert(c.data.end(), 1 + rng() % 200, "AaBbA"[rng() % 5]);
                else c.data.push_back(static_cast<uint8_t>(other[rng() % other.size()]));
            }
            c.data.resize(c.offs.back() + len);
            c.offs.push_back(static_cast<uint32_t>(c.data.size()));
        }
        const auto want =
            distinct_pairs(naive_matches(std::vector<Literal>(c.pats.begin(), c.pats.begin() + real), c.view()));
        for (CaseGroups groups : {CaseGroups::Folded, CaseGroups::Split}) {
            AcCompileOptions co;
            co.key_bytes = 16;
            co.case_groups = groups;
            const AcBlob on = compile_ac(c.pats, co);
            co.run_steps = false;
            const AcBlob off = compile_ac(c.pats, co);
            ASSERT_EQ(on.header().state_bytes, 4u);
            expect_set_walks(on, off, c, want, "seed " + std::to_string(seed));
        }
    }
}

TEST(RunTargets, PositionsAndCountIgnoreTheFlag) {
    const Case c = run_case(21);
    expect_cpu_walk_gives(run_blob(true, CaseGroups::Folded), c, reference_matches(c), "run targets");
}

TEST(RunTargets, GpuEveryModeOverRunsEqualsReference) {
    REQUIRE_GPU();
    for (uint32_t seed = 11; seed <= 13; ++seed) {
        const Case c = run_case(seed);
        auto m = GpuMatcher::create(c.pats, GpuOptions{});
        expect_every_mode(*m, c, reference_matches(c), "seed " + std::to_string(seed));
    }
}
