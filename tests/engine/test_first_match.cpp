// FirstMatchPerRule (first_match.h): replay's and the stream pipeline's one
// alert per (payload, rule), against a plain set of the (payload, rule)
// pairs seen, however a batch's matches are split into spans and across the
// stamp counter's wrap.
#include "first_alerts.h"
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

// FirstAlerts (first_alerts.h): the same firsts, each as an alert with its
// rule's id (not its index), its packet and offsets, and a score only for an
// align rule.
TEST(FirstAlerts, AlertsCarryTheRulesIdKindAndOffsets) {
    std::vector<rules::Rule> rules(3);
    rules[0].id = 700, rules[0].pattern = "abc";
    rules[1].id = 9, rules[1].align = rules::AlignSpec{};
    rules[2].id = 41, rules[2].pattern = "x";
    const std::vector<uint32_t> ids = {700, 9, 41};
    wm_packet_t packets[2] = {};
    for (bool positions : {false, true}) {
        FirstAlerts fa(rules, ids, positions);
        fa.new_batch();
        Match m{};
        m.payload = 1, m.rule = 1, m.start = 3, m.end = 20, m.score = 77;
        const wm_alert_t *a = fa.first(m, &packets[1]);
        ASSERT_NE(a, nullptr);
        EXPECT_EQ(a->struct_size, sizeof(wm_alert_t));
        EXPECT_EQ(a->packet, &packets[1]);
        EXPECT_EQ(a->rule_id, 9u);
        EXPECT_EQ(a->has_score, 1);
        EXPECT_EQ(a->score, 77);
        EXPECT_EQ(a->has_offset, 1); // an align region is always known
        EXPECT_EQ(a->start, 3u);
        EXPECT_EQ(a->end, 20u);
        m.rule = 0, m.start = 21, m.end = 24, m.score = 0;
        a = fa.first(m, &packets[1]);
        ASSERT_NE(a, nullptr);
        EXPECT_EQ(a->rule_id, 700u);
        EXPECT_EQ(a->has_score, 0);
        EXPECT_EQ(a->has_offset, positions ? 1 : 0);
        m.start = 30, m.end = 33; // a repeat of (payload 1, rule 0)
        EXPECT_EQ(fa.first(m, &packets[1]), nullptr);
    }
    // Without align rules no alert has a score, whatever the match says.
    rules[1].align.reset();
    FirstAlerts plain(rules, ids, true);
    Match m{};
    m.rule = 1, m.score = 5, m.end = 1;
    const wm_alert_t *a = plain.first(m, &packets[0]);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->has_score, 0);
}
