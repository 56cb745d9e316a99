// gpu_patterns(): the literal rules as the GPU matcher takes them. Rules that
// share (bytes, nocase, offset, depth) share one device pattern, each rule
// keeps its own scope entry in rule order, and the pattern -> rules index
// lists every literal rule once. Runs without a GPU (no matcher is built).
#include "gpu_engine.h"
#include "random_rules.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

using namespace wm;

namespace {

rules::Rule literal(uint32_t id, const std::string &bytes, bool nocase = false, uint32_t offset = 0,
                    uint32_t depth = 0) {
    rules::Rule r;
    r.id = id;
    r.msg = "rule " + std::to_string(id);
    r.pattern = bytes;
    r.nocase = nocase;
    r.offset = offset;
    r.depth = depth;
    return r;
}

} // namespace

TEST(GpuPatterns, RulesSharingALiteralShareItsDevicePattern) {
    rules::RuleSet rs;
    rs.rules = {literal(10, "abc"), literal(11, "abc", true), literal(12, "abc"), literal(13, "abc", false, 2),
                literal(14, "xyz"), literal(15, "abc", false, 0, 0)};
    rs.rules[2].protocol = rules::Protocol::Udp;
    rs.rules[5].ports = {{80, 80}};
    const GpuPatterns g = gpu_patterns(CompiledRuleSet(rs));
    ASSERT_EQ(g.literals.size(), 4u); // abc, abc nocase, abc at offset 2, xyz
    EXPECT_EQ(g.literals[0].bytes, "abc");
    EXPECT_TRUE(g.literals[1].nocase);
    EXPECT_EQ(g.literals[2].offset, 2u);
    EXPECT_EQ(g.literals[3].bytes, "xyz");
    ASSERT_EQ(g.scopes.size(), 6u);
    const uint32_t want_pattern[] = {0, 1, 0, 2, 3, 0};
    for (size_t k = 0; k < 6; ++k) {
        EXPECT_EQ(g.scopes[k].id, rs.rules[k].id) << k;
        EXPECT_EQ(g.scopes[k].pattern, want_pattern[k]) << k;
    }
    EXPECT_EQ(g.scopes[2].proto, WM_PROTO_UDP); // scopes stay per rule
    ASSERT_EQ(g.scopes[5].ports.size(), 1u);
    EXPECT_EQ(g.rule_begin, (std::vector<uint32_t>{0, 3, 4, 5, 6}));
    EXPECT_EQ(g.rules, (std::vector<uint32_t>{0, 2, 5, 1, 3, 4}));
}

// Random rule sets (a quarter repeat an earlier pattern): every literal rule
// appears once in the index, under the pattern equal to its literal, and
// patterns are distinct.
TEST(GpuPatterns, IndexCoversEveryLiteralRuleOnce) {
    for (uint32_t seed = 1; seed <= 5; ++seed) {
        std::mt19937 rng(seed);
        rules::RuleSet rs = test::random_ruleset(rng, 300, "ab", 3);
        for (size_t i = 1; i < rs.rules.size(); i += 5) { // exact copies under new ids
            const uint32_t id = rs.rules[i].id;
            rs.rules[i] = rs.rules[rng() % i];
            rs.rules[i].id = id;
        }
        const CompiledRuleSet crs(rs);
        const GpuPatterns g = gpu_patterns(crs);
        using Key = std::tuple<std::string, bool, uint32_t, uint32_t>;
        std::set<Key> distinct;
        for (const auto &l : g.literals) distinct.insert({l.bytes, l.nocase, l.offset, l.depth});
        EXPECT_EQ(distinct.size(), g.literals.size()) << "seed " << seed;
        EXPECT_LT(g.literals.size(), crs.rules().size()) << "seed " << seed;
        std::multiset<uint32_t> seen;
        for (uint32_t p = 0; p + 1 < g.rule_begin.size(); ++p)
            for (uint32_t i = g.rule_begin[p]; i < g.rule_begin[p + 1]; ++i) {
                const auto &r = crs.rules()[g.rules[i]];
                const auto &l = g.literals[p];
                EXPECT_EQ(Key(r.pattern, r.nocase, r.offset, r.depth), Key(l.bytes, l.nocase, l.offset, l.depth));
                if (i > g.rule_begin[p]) EXPECT_LT(g.rules[i - 1], g.rules[i]);
                seen.insert(g.rules[i]);
            }
        EXPECT_EQ(seen.size(), crs.rules().size()) << "seed " << seed;
        EXPECT_EQ(std::set<uint32_t>(seen.begin(), seen.end()).size(), seen.size()) << "seed " << seed;
    }
}
