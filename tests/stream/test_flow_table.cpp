// Flows through the whole pipeline with crafted frames: RST mid-stream,
// FIN both ways, idle timeouts on capture time, port reuse, bare ACKs, and
// the max_flows / memcap limits with their counters.
#include "stream_test_util.h"

#include <gtest/gtest.h>

namespace wm::stream::test {
namespace {

using build::kAck;
using build::kFin;
using build::kPsh;
using build::kRst;
using build::kSyn;

const std::string kRules = rules_yaml(rule_yaml(1, "attack"));

void handshake(Harness &h, const Conversation &c, uint32_t cisn, uint32_t sisn, int64_t t = 1) {
    h.feed(c.frame(true, cisn, kSyn, ""), t);
    h.feed(c.frame(false, sisn, kSyn | kAck, "", cisn + 1), t);
    h.feed(c.frame(true, cisn + 1, kAck, "", sisn + 1), t);
}

TEST(FlowTable, FinBothWaysClosesTheFlow) {
    Harness h(kRules);
    Conversation c;
    handshake(h, c, 100, 900);
    h.feed(c.frame(true, 101, kAck | kPsh, "att"));
    h.feed(c.frame(true, 104, kAck | kPsh | kFin, "ack"));
    h.feed(c.frame(false, 901, kAck | kFin, ""));
    EXPECT_EQ(h.stats().flows_closed, 1u);
    EXPECT_EQ(h.pipeline().flows(), 0u);
    h.feed(c.frame(true, 108, kAck, "")); // the last ACK: no flow, ignored
    EXPECT_EQ(h.stats().segments_no_flow, 1u);
    h.finish();
    EXPECT_EQ(h.alerts_of(1).size(), 1u);
}

TEST(FlowTable, RstMidStreamEndsTheFlowAndFlushesWhatItHeld) {
    Harness h(kRules);
    Conversation c;
    handshake(h, c, 100, 900);
    h.feed(c.frame(true, 101, kAck | kPsh, "at"));
    h.feed(c.frame(true, 110, kAck | kPsh, "attack")); // after a hole
    h.feed(c.frame(true, 50, kRst, ""));               // out of window: ignored
    EXPECT_EQ(h.stats().rst_ignored, 1u);
    EXPECT_EQ(h.pipeline().flows(), 1u);
    h.feed(c.frame(true, 103, kRst, ""));
    EXPECT_EQ(h.stats().rst_accepted, 1u);
    EXPECT_EQ(h.stats().flows_closed, 1u);
    EXPECT_EQ(h.pipeline().flows(), 0u);
    EXPECT_EQ(h.stats().gaps, 1u); // the buffered segment went out after its hole
    h.feed(c.frame(true, 116, kAck | kPsh, "attack")); // after the RST: a new flow
    EXPECT_EQ(h.stats().flows_created, 2u);
    h.finish();
    EXPECT_EQ(h.alerts_of(1).size(), 2u);
    EXPECT_EQ(h.pipeline().verify_mismatches(), 0u);
}

// Networks reuse addresses across VLANs: one 5-tuple on VLAN 10, on VLAN
// 20 and on QinQ 10/20 is three connections, each its own stream (the
// second SYN would otherwise end the first flow as a port reuse).
TEST(FlowTable, OneFiveTupleOnDifferentVlansIsDifferentFlows) {
    Harness h(kRules);
    Conversation a, b, q;
    a.tags = {{0x8100, 10}};
    b.tags = {{0x8100, 20}};
    q.tags = {{0x88a8, 10}, {0x8100, 20}};
    handshake(h, a, 100, 900);
    handshake(h, b, 5000, 7000);
    handshake(h, q, 300, 400);
    h.feed(a.frame(true, 101, kAck | kPsh, "att"));  // packet 10
    h.feed(b.frame(true, 5001, kAck | kPsh, "ack")); // 11
    h.feed(q.frame(true, 301, kAck | kPsh, "xatt")); // 12
    h.feed(b.frame(true, 5004, kAck | kPsh, "att")); // 13: VLAN 20's stream is "ackatt"
    h.feed(a.frame(true, 104, kAck | kPsh, "ack"));  // 14: VLAN 10's is "attack"
    h.feed(q.frame(true, 305, kAck | kPsh, "ack"));  // 15: QinQ's is "xattack"
    h.finish();
    EXPECT_EQ(h.stats().flows_created, 3u);
    EXPECT_EQ(h.stats().flows_reused, 0u);
    EXPECT_EQ(h.stats().gaps, 0u);
    const auto alerts = h.alerts_of(1);
    ASSERT_EQ(alerts.size(), 2u);
    EXPECT_EQ(alerts[0].packet, 14u);
    EXPECT_EQ(alerts[1].packet, 15u);
    EXPECT_EQ(h.pipeline().verify_mismatches(), 0u);
}

TEST(FlowTable, BareAckOrRstForAnUnknownFlowCreatesNothing) {
    Harness h(kRules);
    Conversation c;
    h.feed(c.frame(true, 5, kAck, ""));
    h.feed(c.frame(true, 5, kRst, ""));
    EXPECT_EQ(h.stats().segments_no_flow, 2u);
    EXPECT_EQ(h.stats().flows_created, 0u);
}

TEST(FlowTable, IdleFlowsTimeOutOnCaptureTime) {
    auto cfg = default_config();
    cfg.idle_timeout_s = 10;
    Harness h(kRules, true, cfg);
    Conversation a, b;
    b.cport = 40001;
    h.feed(a.frame(true, 1, kAck | kPsh, "att"), 100);
    h.feed(b.frame(true, 1, kAck | kPsh, "x"), 105);
    EXPECT_EQ(h.stats().flows_timed_out, 0u);
    h.feed(b.frame(true, 2, kAck | kPsh, "y"), 111); // a idle 11 s > 10
    EXPECT_EQ(h.stats().flows_timed_out, 1u);
    EXPECT_EQ(h.pipeline().flows(), 1u);
    h.feed(a.frame(true, 4, kAck | kPsh, "ack"), 111); // a new flow: no match across
    h.finish();
    EXPECT_EQ(h.alerts_of(1).size(), 0u);
    EXPECT_EQ(h.stats().flows_at_end, 2u);
}

TEST(FlowTable, CaptureTimeGoingBackwardsDoesNotExpireFlows) {
    auto cfg = default_config();
    cfg.idle_timeout_s = 10;
    Harness h(kRules, true, cfg);
    Conversation a;
    h.feed(a.frame(true, 1, kAck | kPsh, "att"), 1000);
    h.feed(a.frame(true, 4, kAck | kPsh, "ack"), 5); // merged capture: time jumps back
    h.finish();
    EXPECT_EQ(h.stats().flows_timed_out, 0u);
    EXPECT_EQ(h.alerts_of(1).size(), 1u);
}

TEST(FlowTable, NewSynOnATrackedFiveTupleStartsANewFlow) {
    Harness h(kRules);
    Conversation c;
    handshake(h, c, 100, 900);
    h.feed(c.frame(true, 101, kAck | kPsh, "att"));
    h.feed(c.frame(true, 100, kSyn, ""));       // retransmitted SYN: same flow
    EXPECT_EQ(h.stats().flows_reused, 0u);
    h.feed(c.frame(true, 7000, kSyn, ""));      // port reuse
    EXPECT_EQ(h.stats().flows_reused, 1u);
    h.feed(c.frame(true, 7001, kAck | kPsh, "ack"));
    h.finish();
    EXPECT_EQ(h.alerts_of(1).size(), 0u); // "att" + "ack" belong to different connections
}

TEST(FlowTable, MaxFlowsEvictsTheLeastRecentlyUsedAndDeliversItsData) {
    auto cfg = default_config();
    cfg.max_flows = 2;
    Harness h(kRules, true, cfg);
    Conversation f[3];
    for (int i = 0; i < 3; ++i) f[i].cport = uint16_t(41000 + i);
    h.feed(f[0].frame(true, 1, kAck | kPsh, "xx"));
    h.feed(f[0].frame(true, 10, kAck | kPsh, "attack")); // buffered after a hole
    h.feed(f[1].frame(true, 1, kAck | kPsh, "b"));
    h.feed(f[2].frame(true, 1, kAck | kPsh, "c"));       // evicts f[0]
    EXPECT_EQ(h.stats().flows_evicted, 1u);
    EXPECT_EQ(h.pipeline().flows(), 2u);
    EXPECT_EQ(h.alerts_of(1).size(), 0u); // not scanned until the batch closes
    h.finish();
    EXPECT_EQ(h.alerts_of(1).size(), 1u); // f[0]'s buffered bytes were not lost
    EXPECT_EQ(h.stats().flows_peak, 2u);
}

TEST(FlowTable, MemcapBoundsBufferedBytesByEvictingOldFlows) {
    auto cfg = default_config();
    cfg.memcap_bytes = 64 * 1024;
    Harness h(kRules, true, cfg, /*verify=*/false);
    const std::string chunk(4000, 'z');
    for (int i = 0; i < 200; ++i) {
        Conversation c;
        c.cport = uint16_t(30000 + i);
        h.feed(c.frame(true, 1, kAck | kPsh, "a"));
        h.feed(c.frame(true, 100, kAck | kPsh, chunk)); // held behind a hole
    }
    EXPECT_GT(h.stats().flows_evicted, 150u);
    // Never more than the cap plus the flow being processed.
    EXPECT_LE(h.stats().memory_peak_bytes, cfg.memcap_bytes + 2 * chunk.size() + 4096);
    h.finish();
    EXPECT_EQ(h.stats().flows_created, 200u);
    EXPECT_EQ(h.stats().flows_evicted + h.stats().flows_at_end, 200u);
    EXPECT_EQ(h.stats().gaps, 200u); // every flow's hole was given up exactly once
}

} // namespace
} // namespace wm::stream::test
