// Matching across segments: a split pattern is found exactly once, at the
// packet that completes it; carried bytes are not reported twice;
// offset/depth hold relative to the stream; nothing spans a gap; and random
// streams, segmentations, reorderings and rules give exactly what Hyperscan
// stream mode reports (the pipeline's oracle compares every window).
#include "stream_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace wm::stream::test {
namespace {

using build::kAck;
using build::kPsh;
using build::kSyn;
constexpr uint8_t kData = kAck | kPsh;

TEST(CrossSegment, PatternSplitOverThreeSegmentsIsFoundOnceAtTheLastOne) {
    for (bool streams : {false, true}) {
        Harness h(rules_yaml(rule_yaml(1, "/admin/config.php")), streams);
        Conversation c;
        h.feed(c.frame(true, 1000, kSyn, ""));
        h.feed(c.frame(true, 1001, kData, "GET /adm"));     // packet 2
        h.feed(c.frame(true, 1009, kData, "in/conf"));      // packet 3
        h.feed(c.frame(true, 1016, kData, "ig.php HTTP"));  // packet 4
        h.finish();
        auto a = h.alerts_of(1);
        if (!streams) {
            EXPECT_TRUE(a.empty());
            continue;
        }
        ASSERT_EQ(a.size(), 1u);
        EXPECT_EQ(a[0].packet, 4u);
        // The window is the carried bytes then the new ones.
        EXPECT_EQ(a[0].window.substr(a[0].start, a[0].end - a[0].start), "/admin/config.php");
        EXPECT_EQ(a[0].window.substr(a[0].window.size() - 11), "ig.php HTTP");
        EXPECT_EQ(h.stats().cross_segment_matches, 1u);
        EXPECT_EQ(h.pipeline().verify_mismatches(), 0u);
    }
}

// One alert per (window, rule), at its first match. Without streams the
// scanner leaves a rule's later matches out on its threads (its stats count
// what it delivered); with streams it keeps them all for the carry filter.
TEST(CrossSegment, OneAlertPerRuleAtItsFirstMatchWithOrWithoutStreams) {
    for (bool streams : {false, true}) {
        SCOPED_TRACE(testing::Message() << "streams " << streams);
        Harness h(rules_yaml(rule_yaml(1, "ab") + rule_yaml(2, "b")), streams);
        Conversation c;
        h.feed(c.frame(true, 1000, kSyn, ""));
        h.feed(c.frame(true, 1001, kData, "xabab bab")); // "ab" ends at 3, 5, 9; "b" at 3, 5, 7, 9
        h.finish();
        ASSERT_EQ(h.alerts_of(1).size(), 1u);
        ASSERT_EQ(h.alerts_of(2).size(), 1u);
        EXPECT_EQ(h.alerts_of(1)[0].start, 1u);
        EXPECT_EQ(h.alerts_of(1)[0].end, 3u);
        EXPECT_EQ(h.alerts_of(2)[0].start, 2u);
        EXPECT_EQ(h.alerts_of(2)[0].end, 3u);
        EXPECT_EQ(h.scanner().stats().matches, streams ? 7u : 2u);
    }
}

TEST(CrossSegment, AMatchInsideCarriedBytesIsNotReportedAgain) {
    Harness h(rules_yaml(rule_yaml(1, "attack")));
    Conversation c;
    h.feed(c.frame(true, 1, kData, "an attack"));
    h.feed(c.frame(true, 10, kData, "!"));
    h.feed(c.frame(true, 11, kData, "?"));
    h.finish();
    ASSERT_EQ(h.alerts_of(1).size(), 1u);
    EXPECT_EQ(h.alerts_of(1)[0].packet, 1u);
    EXPECT_GT(h.stats().carried_bytes, 0u);
}

TEST(CrossSegment, OutOfOrderSegmentsMatchOnceReassembled) {
    Harness h(rules_yaml(rule_yaml(1, "reordered")));
    Conversation c;
    h.feed(c.frame(true, 0, kSyn, ""));
    h.feed(c.frame(true, 5, kData, "dered"));
    h.feed(c.frame(true, 1, kData, "reor"));
    h.finish();
    ASSERT_EQ(h.alerts_of(1).size(), 1u);
    EXPECT_EQ(h.alerts_of(1)[0].packet, 3u); // the segment that filled the hole
}

TEST(CrossSegment, DirectionsAreSeparateStreams) {
    Harness h(rules_yaml(rule_yaml(1, "pingpong")));
    Conversation c;
    h.feed(c.frame(true, 1, kData, "ping"));
    h.feed(c.frame(false, 1, kData, "pong"));
    h.finish();
    EXPECT_TRUE(h.alerts_of(1).empty());
}

TEST(CrossSegment, OffsetAndDepthAreRelativeToTheStreamStart) {
    const std::string yaml = rules_yaml(rule_yaml(1, "GET ", 0, 4) + rule_yaml(2, "needle", 10, 0) +
                                        rule_yaml(3, "late", 0, 12));
    Harness h(yaml);
    Conversation c;
    h.feed(c.frame(true, 1, kData, "GET /a HTTP/1.1\r\n\r\n")); // rule 1 at 0; rule 3 no
    h.feed(c.frame(true, 20, kData, "GET /b"));                  // offset 19: rule 1 must not
    h.finish();
    EXPECT_EQ(h.alerts_of(1).size(), 1u);

    Harness g(yaml);
    g.feed(c.frame(true, 1, kData, "0123456ne"));  // "needle" starts at 7 < 10: no
    g.feed(c.frame(true, 10, kData, "edle needle")); // second "needle" at 14, straddles nothing
    g.feed(c.frame(true, 21, kData, ""));
    g.finish();
    ASSERT_EQ(g.alerts_of(2).size(), 1u);
    EXPECT_EQ(g.pipeline().verify_mismatches(), 0u);

    Harness k(yaml);
    k.feed(c.frame(true, 1, kData, "1234567la"));  // "late" at 7..11 <= 12: yes, across segments
    k.feed(c.frame(true, 10, kData, "te late"));   // at 12..16: past the depth
    k.finish();
    ASSERT_EQ(k.alerts_of(3).size(), 1u);
    EXPECT_EQ(k.alerts_of(3)[0].packet, 2u);
    EXPECT_EQ(k.pipeline().verify_mismatches(), 0u);
}

TEST(CrossSegment, NoMatchSpansAGapAndOffsetsStayStreamRelativeAfterIt) {
    auto cfg = default_config();
    cfg.max_ooo_bytes = 4;
    Harness h(rules_yaml(rule_yaml(1, "gapped") + rule_yaml(2, "after", 30, 0)), true, cfg);
    Conversation c;
    h.feed(c.frame(true, 1, kData, "gap"));
    h.feed(c.frame(true, 30, kData, "ped after")); // hole [3, 29), over the cap -> gap
    h.finish();
    EXPECT_TRUE(h.alerts_of(1).empty());           // "gap" + "ped" never met
    ASSERT_EQ(h.alerts_of(2).size(), 1u);           // "after" at stream offset 33 >= 30
    EXPECT_EQ(h.stats().gaps, 1u);
    EXPECT_EQ(h.pipeline().verify_mismatches(), 0u);
}

// Random streams over a small alphabet (many overlapping matches), random
// rules with offsets and depths, random segment sizes, reordering,
// duplicates and a small out-of-order cap (gaps): every window must equal
// Hyperscan stream mode.
TEST(CrossSegment, RandomStreamsEqualHyperscanStreamMode) {
    std::mt19937 rng(12345);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (int round = 0; round < 40; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        std::string body;
        for (int r = 0; r < 30; ++r) {
            std::string p;
            for (int n = pick(1, 9); n > 0; --n) p += char('a' + pick(0, 2));
            const bool constrained = pick(0, 2) == 0;
            const int len = int(p.size());
            body += rule_yaml(100 + r, p, constrained ? pick(0, 40) : 0,
                              constrained && pick(0, 1) ? pick(len, 60) : 0);
        }
        auto cfg = default_config();
        cfg.max_ooo_bytes = round % 3 == 0 ? 64 : 1 << 20;
        Harness h(rules_yaml(body), true, cfg);
        for (int flow = 0; flow < 4; ++flow) {
            Conversation c;
            c.cport = uint16_t(50000 + flow);
            std::string stream;
            for (int n = pick(50, 600); n > 0; --n) stream += char('a' + pick(0, 2));
            const uint32_t isn = uint32_t(rng()); // wraps now and then
            std::vector<std::pair<uint32_t, std::string>> segs;
            for (size_t off = 0; off < stream.size();) {
                const size_t n = std::min<size_t>(pick(1, 40), stream.size() - off);
                segs.emplace_back(isn + 1 + uint32_t(off), stream.substr(off, n));
                off += n;
            }
            for (size_t i = 0; i + 1 < segs.size(); ++i) // local reordering
                if (pick(0, 3) == 0) std::swap(segs[i], segs[i + 1]);
            h.feed(c.frame(true, isn, kSyn, ""));
            for (const auto &s : segs) {
                h.feed(c.frame(true, s.first, kData, s.second));
                if (pick(0, 9) == 0) h.feed(c.frame(true, s.first, kData, s.second)); // duplicate
            }
        }
        h.finish();
        EXPECT_GT(h.stats().oracle_windows, 0u);
        EXPECT_GT(h.stats().cross_segment_matches, 0u);
        EXPECT_EQ(h.stats().oracle_mismatches, 0u);
        for (const auto &l : h.pipeline().mismatch_lines()) ADD_FAILURE() << l;
    }
}

} // namespace
} // namespace wm::stream::test
