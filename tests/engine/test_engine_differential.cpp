// Hyperscan engine vs the reference matcher: identical match sets on random
// rules and payloads, and on real rules and captures when the data exists.
#include "compiled_ruleset.h"
#include "hs_engine.h"
#include "random_rules.h"
#include "reference_matcher.h"

#include <gtest/gtest.h>

#include <algorithm>


using namespace wm;

namespace {

struct Case {
    const char *name;
    unsigned seed;
    std::string alphabet;
    size_t rules, max_len, payloads, max_payload;
};

void PrintTo(const Case &c, std::ostream *os) { *os << c.name << " (seed " << c.seed << ")"; }

class EngineDifferential : public ::testing::TestWithParam<Case> {};

std::vector<Match> run(Engine &e, const BatchView &b, wm_output_mode mode) {
    std::vector<Match> out;
    e.scan(b, mode, out);
    sort_matches(out);
    return out;
}

TEST_P(EngineDifferential, HyperscanEqualsReference) {
    const Case &c = GetParam();
    std::mt19937 rng(c.seed);
    CompiledRuleSet rs(test::random_ruleset(rng, c.rules, c.alphabet, c.max_len));
    test::OwnedBatch batch;
    batch.add(""); // empty payloads are legal and match nothing
    for (size_t i = 0; i < c.payloads; ++i) {
        std::string payload = test::random_bytes(rng, rng() % (c.max_payload + 1), c.alphabet);
        test::plant_patterns(rng, rs.rules(), payload);
        batch.add(payload);
    }
    batch.add("");
    HyperscanEngine hs(rs);
    ReferenceMatcher ref(rs.rules());
    for (auto mode : {WM_OUTPUT_POSITIONS, WM_OUTPUT_SET}) {
        auto a = run(hs, batch.view(), mode);
        auto b = run(ref, batch.view(), mode);
        SCOPED_TRACE(testing::Message() << c.name << " seed " << c.seed << " mode " << mode);
        ASSERT_EQ(a.size(), b.size());
        EXPECT_TRUE(a == b);
        if (mode == WM_OUTPUT_POSITIONS) {
            EXPECT_GT(a.size(), 0u) << "case too weak: no matches at all";
            // Patterns past 16 bytes (a GPU key's length) must match too, where the case has them.
            const auto longest = [&](const Match &m) { return rs.rules()[m.rule].pattern.size() > 16; };
            if (c.max_len > 16) EXPECT_TRUE(std::any_of(a.begin(), a.end(), longest)) << "no long pattern matched";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Random, EngineDifferential,
    ::testing::Values(Case{"binary", 1, "ab", 40, 6, 50, 300},
                      Case{"dna_mixed_case", 2, "acgtACGT", 80, 10, 40, 500},
                      Case{"bytes", 3, std::string("\x00\x01\xff Aa", 6), 60, 5, 60, 200},
                      Case{"long_patterns", 4, "xyXY", 30, 64, 20, 2000},
                      Case{"single_byte_patterns", 5, "qQ", 10, 1, 30, 50},
                      Case{"many_rules", 6, "abcdefgh", 1000, 8, 30, 1000}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(EngineDifferential, OffsetAndDepthAreExact) {
    rules::RuleSet rs;
    rules::Rule r;
    r.id = 1;
    r.msg = "m";
    r.pattern = "ab";
    r.offset = 2;
    r.depth = 4; // must start >= 2 and end <= 6
    rs.rules.push_back(r);
    CompiledRuleSet crs(rs);
    test::OwnedBatch b;
    b.add("abababab"); // starts 0,2,4,6 -> only 2 and 4 qualify
    HyperscanEngine hs(crs);
    auto m = run(hs, b.view(), WM_OUTPUT_POSITIONS);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0].start, 2u);
    EXPECT_EQ(m[1].start, 4u);
    EXPECT_EQ(m[1].end, 6u);
}

} // namespace
