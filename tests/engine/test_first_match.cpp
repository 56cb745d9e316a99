// FirstMatchPerRule (first_match.h): replay's and the stream pipeline's one
// alert per (payload, rule), against a plain set of the (payload, rule)
// pairs seen, however a batch's matches are split into spans and across the
// stamp counter's wrap.
#include "first_match.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <tuple>
#include <vector>

using namespace wm;

namespace {

// A batch's matches in canonical order (payload, end, rule, start): dense
// repeats of few rules, payloads skipped now and then.
std::vector<Match> random_batch(std::mt19937 &rng, uint32_t rules) {
    std::vector<Match> v;
    const uint32_t payloads = 1 + rng() % 40;
    for (uint32_t p = 0; p < payloads; ++p) {
        if (rng() % 5 == 0) continue;
        const uint32_t n = rng() % 30;
        for (uint32_t k = 0; k < n; ++k) {
            Match m{};
            m.payload = p;
            m.rule = rng() % rules;
            m.end = rng() % 50;
            m.start = m.end - std::min<uint32_t>(m.end, rng() % 4);
            v.push_back(m);
        }
    }
    std::sort(v.begin(), v.end(), [](const Match &a, const Match &b) {
        return std::tie(a.payload, a.end, a.rule, a.start) < std::tie(b.payload, b.end, b.rule, b.start);
    });
    return v;
}

// Indices of the first match of each (payload, rule), by a set.
std::vector<size_t> reference_firsts(const std::vector<Match> &v) {
    std::set<std::pair<uint32_t, uint32_t>> seen;
    std::vector<size_t> firsts;
    for (size_t i = 0; i < v.size(); ++i)
        if (seen.emplace(v[i].payload, v[i].rule).second) firsts.push_back(i);
    return firsts;
}

void expect_batches_match_reference(uint32_t start_stamp) {
    std::mt19937 rng(start_stamp ^ 0x5eed);
    constexpr uint32_t kRules = 12;
    FirstMatchPerRule first(kRules, start_stamp);
    size_t firsts_total = 0;
    for (int batch = 0; batch < 200; ++batch) {
        const std::vector<Match> v = random_batch(rng, kRules);
        const std::vector<size_t> want = reference_firsts(v);
        // One batch, delivered in spans of random length (some empty).
        first.new_batch();
        std::vector<size_t> got;
        for (size_t at = 0; at < v.size();) {
            const size_t n = std::min(v.size() - at, size_t(rng() % 7));
            for (size_t i = at; i < at + n; ++i)
                if (first.first(v[i])) got.push_back(i);
            at += n;
        }
        ASSERT_EQ(got, want) << "batch " << batch << " of start stamp " << start_stamp;
        firsts_total += want.size();
    }
    EXPECT_GT(firsts_total, 1000u); // the batches were not all empty
}

TEST(FirstMatchPerRule, FirstOfEachPayloadAndRuleAcrossSpansAndBatches) { expect_batches_match_reference(0); }

// 200 batches of up to 40 payloads pass the 32-bit stamp's wrap from here:
// a rule stamped just before it must not read as matched after it.
TEST(FirstMatchPerRule, StampWrapForgetsNothingAndInventsNothing) {
    expect_batches_match_reference(UINT32_MAX - 700);
}

// The payload whose stamp wraps to 0 must not see the rules never stamped
// (stamp 0) as matched.
TEST(FirstMatchPerRule, WrappedStampIsNotTheNeverStampedOne) {
    FirstMatchPerRule first(2, UINT32_MAX - 1);
    Match a{}, b{};
    b.payload = 1;
    b.rule = 1;
    EXPECT_TRUE(first.first(a)); // stamp UINT32_MAX
    EXPECT_TRUE(first.first(b)); // the wrap
    EXPECT_FALSE(first.first(b));
    Match c = a;
    c.payload = 2;
    EXPECT_TRUE(first.first(c));
}

// Payload 0 of a new batch is a new payload, even right after payload 0.
TEST(FirstMatchPerRule, NewBatchStartsAFreshPayload) {
    FirstMatchPerRule first(3);
    Match m{};
    m.rule = 2;
    EXPECT_TRUE(first.first(m));
    EXPECT_FALSE(first.first(m));
    first.new_batch();
    EXPECT_TRUE(first.first(m));
}

} // namespace
