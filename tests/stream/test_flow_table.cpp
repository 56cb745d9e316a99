// Flows through the whole pipeline with crafted frames: RST mid-stream (and
// data after it),
// FIN both ways, idle timeouts on capture time, port reuse, bare ACKs, and
// the max_flows / memcap limits with their counters; and the forged SYN,
// FIN, RST and over-long segment that used to hide a stream's bytes.
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

// An accepted RST closes the flow once but keeps it. Its own direction
// delivers what it buffered, the hole a gap: a new connection on the tuple
// whose SYN was missed sends there, and its bytes over the held ones would
// lose to them (first wins); behind the stream they are scanned on their
// own. The peer's buffered bytes stay, so its fill after the RST joins the
// stream and a signature across the hole's edge is found (flushed, the
// fill was scanned alone).
TEST(FlowTable, RstMidStreamClosesTheFlowFlushesItsDirectionAndKeepsThePeers) {
    Harness h(rules_yaml(rule_yaml(1, "attack") + rule_yaml(2, "EVILPAYLOAD")));
    Conversation c;
    handshake(h, c, 100, 900);
    h.feed(c.frame(true, 101, kAck | kPsh, "xx"));
    h.feed(c.frame(true, 110, kAck | kPsh, std::string(20, 'B'))); // the client's, after a hole
    h.feed(c.frame(false, 901, kAck | kPsh, "zz"));
    h.feed(c.frame(false, 910, kAck | kPsh, "ack yy")); // the server's, after a hole
    h.feed(c.frame(true, 50, kRst, ""));                // out of window: ignored
    EXPECT_EQ(h.stats().rst_ignored, 1u);
    h.feed(c.frame(true, 103, kRst, ""));
    EXPECT_EQ(h.stats().rst_accepted, 1u);
    EXPECT_EQ(h.stats().flows_closed, 1u);
    EXPECT_EQ(h.stats().gaps, 1u) << "the client's hole, not the server's";
    EXPECT_EQ(h.pipeline().flows(), 1u) << "kept: data may follow a RST the host never got";
    h.feed(c.frame(false, 903, kAck | kPsh, "yyyyatt")); // the server's hole, filled after the RST
    // A new connection on the tuple, its handshake missed, over the client's flushed bytes.
    h.feed(c.frame(true, 103, kAck | kPsh, "yyyyyyyEVILPAYLOADzzzzzzzzzzzzzzzzzz"));
    h.finish();
    EXPECT_EQ(h.stats().flows_closed, 1u);
    EXPECT_EQ(h.stats().flows_at_end, 0u) << "counted once, at its RST";
    EXPECT_EQ(h.stats().gaps, 1u);
    EXPECT_EQ(h.alerts_of(1).size(), 1u) << "\"att\" + \"ack\" across the server's hole";
    EXPECT_EQ(h.alerts_of(2).size(), 1u) << "the new connection's bytes, scanned on their own";
    EXPECT_EQ(h.pipeline().verify_mismatches(), 0u);
}

// After a RST, bytes behind its direction's stream are scanned on their own
// until the stream goes on, also when the segment that takes it on starts
// behind it: later retransmissions are that again, not alerted twice (the
// rescanning had gone on until a segment started exactly at the next byte).
TEST(FlowTable, AfterARstTheStreamGoingOnFromBehindEndsTheRescanning) {
    Harness h(kRules);
    Conversation c;
    handshake(h, c, 100, 900);
    h.feed(c.frame(true, 101, kAck | kPsh, "xxxx"));
    h.feed(c.frame(true, 105, kRst, ""));
    h.feed(c.frame(true, 103, kAck | kPsh, "xxattack")); // from 2 bytes behind: the stream goes on
    h.feed(c.frame(true, 103, kAck | kPsh, "xxattack")); // a retransmission
    h.finish();
    EXPECT_EQ(h.alerts_of(1).size(), 1u);
    EXPECT_EQ(h.pipeline().verify_mismatches(), 0u);
}

// ... and when the peer's fill never comes, the flow's end delivers what it
// held, the hole a gap: here its idle timeout, which does not count it again.
TEST(FlowTable, WhatARstLeftBufferedGoesOutWhenTheKeptFlowTimesOut) {
    Harness h(kRules);
    Conversation c, other;
    other.cport = 40001;
    handshake(h, c, 100, 900);
    h.feed(c.frame(false, 901, kAck | kPsh, "at"));
    h.feed(c.frame(false, 910, kAck | kPsh, "attack")); // after a hole
    h.feed(c.frame(true, 101, kRst, ""));
    EXPECT_EQ(h.stats().gaps, 0u);
    handshake(h, other, 5000, 6000, 2 + int64_t(default_config().idle_timeout_s)); // time passes
    EXPECT_EQ(h.pipeline().flows(), 1u) << "the kept flow timed out";
    EXPECT_EQ(h.stats().gaps, 1u);
    h.finish();
    EXPECT_EQ(h.stats().flows_closed, 1u);
    EXPECT_EQ(h.stats().flows_timed_out, 0u) << "counted once, at its RST";
    EXPECT_EQ(h.alerts_of(1).size(), 1u);
    EXPECT_EQ(h.pipeline().verify_mismatches(), 0u);
}

// A RST at exactly the next sequence number that never reaches the host
// (TTL-limited, or dropped behind the sensor) used to end the flow, so the
// bytes after it started a new stream and a signature split across the RST
// went unseen while the host received it whole. The flow now goes on, and
// a SYN after the RST still starts a new connection.
TEST(FlowTable, ASignatureSplitAcrossAnExactRstIsFound) {
    Harness h(kRules);
    Conversation c;
    handshake(h, c, 100, 900);
    h.feed(c.frame(true, 101, kAck | kPsh, "xxatt", 901));
    h.feed(c.frame(true, 106, kRst, "")); // exact: accepted
    h.feed(c.frame(true, 106, kAck | kPsh, "ackyy", 901));
    EXPECT_EQ(h.stats().rst_accepted, 1u);
    EXPECT_EQ(h.stats().flows_created, 1u);
    EXPECT_EQ(h.pipeline().flows(), 1u);
    handshake(h, c, 5000, 7000, 2); // the 5-tuple reused after the RST: a new flow, its own stream
    h.feed(c.frame(true, 5001, kAck | kPsh, "attack", 7001), 2);
    h.finish();
    EXPECT_EQ(h.stats().flows_created, 2u);
    EXPECT_EQ(h.stats().flows_closed, 1u);
    EXPECT_EQ(h.stats().gaps, 0u);
    const auto alerts = h.alerts_of(1);
    ASSERT_EQ(alerts.size(), 2u);
    EXPECT_EQ(alerts[0].packet, 6u) << "the segment after the RST completes the first stream's signature";
    EXPECT_EQ(h.pipeline().verify_mismatches(), 0u);
}

// After its RST a flow takes data within the out-of-order window of where
// its stream goes on: a keep-alive or a reordering after a TTL-limited RST
// no longer cuts the stream. Bytes behind the stream are scanned on their
// own (a new connection whose SYN the sensor missed may reuse them); data
// far off starts a new flow. A forged SYN after the RST does not end the
// flow (the rules of a SYN mid-connection), and kept flows are evicted
// before live ones.
TEST(FlowTable, AfterARstDataNearWhereTheStreamGoesOnContinuesIt) {
    Harness h(kRules);
    Conversation c;
    handshake(h, c, 100, 900);
    h.feed(c.frame(true, 101, kAck | kPsh, std::string(2000, 'z'), 901));
    h.feed(c.frame(true, 2101, kRst, ""));
    h.feed(c.frame(true, 501, kAck | kPsh, "xxattackyy", 5001)); // a new connection, its SYN not seen
    EXPECT_EQ(h.stats().flows_created, 1u) << "within the window: kept";
    h.feed(c.frame(true, 9000000, kAck | kPsh, "xxattackyy", 5001)); // far off: a new flow
    EXPECT_EQ(h.stats().flows_created, 2u);
    h.finish();
    EXPECT_EQ(h.alerts_of(1).size(), 2u) << "the bytes behind the stream were scanned on their own";

    Harness quirks(kRules); // a keep-alive, then the continuation's two segments swapped
    handshake(quirks, c, 100, 900);
    quirks.feed(c.frame(true, 101, kAck | kPsh, "xxatt", 901));
    quirks.feed(c.frame(true, 106, kRst, ""));
    quirks.feed(c.frame(true, 105, kAck, "t", 901));
    quirks.feed(c.frame(true, 108, kAck | kPsh, "kyy", 901));
    quirks.feed(c.frame(true, 106, kAck | kPsh, "ac", 901));
    quirks.finish();
    EXPECT_EQ(quirks.stats().flows_created, 1u);
    EXPECT_EQ(quirks.alerts_of(1).size(), 1u);

    Harness reused(kRules); // the new connection's SYN missed, its SYN-ACK seen: a new flow, its own stream
    handshake(reused, c, 100, 900);
    reused.feed(c.frame(true, 101, kAck | kPsh, "hello", 901));
    reused.feed(c.frame(true, 106, kRst, ""));
    reused.feed(c.frame(false, 7000, kSyn | kAck, "", 50));
    reused.feed(c.frame(true, 50, kAck | kPsh, "xxatt", 7001)); // behind the old stream
    reused.feed(c.frame(true, 55, kAck | kPsh, "ackyy", 7001));
    reused.finish();
    EXPECT_EQ(reused.stats().flows_created, 2u);
    EXPECT_EQ(reused.alerts_of(1).size(), 1u);

    Harness forged(kRules);
    handshake(forged, c, 100, 900);
    forged.feed(c.frame(true, 101, kAck | kPsh, "xxatt", 901));
    forged.feed(c.frame(true, 106, kRst, ""));
    forged.feed(c.frame(true, 50000, kSyn, "")); // forged, like the RST
    forged.feed(c.frame(true, 106, kAck | kPsh, "ackyy", 901));
    forged.finish();
    EXPECT_EQ(forged.stats().flows_created, 1u);
    EXPECT_EQ(forged.alerts_of(1).size(), 1u);

    auto cfg = default_config();
    cfg.max_flows = 8;
    Harness full(kRules, true, cfg);
    Conversation live;
    live.cport = 40000;
    full.feed(live.frame(true, 1, kAck | kPsh, "att")); // the oldest flow, quiet from here
    for (int i = 1; i <= 8; ++i) { // eight connections with data, each ended by its RST
        Conversation r;
        r.cport = uint16_t(40000 + i);
        full.feed(r.frame(true, 1, kAck | kPsh, "data"));
        full.feed(r.frame(true, 5, kRst, ""));
    }
    full.feed(live.frame(true, 4, kAck | kPsh, "ack"));
    full.finish();
    EXPECT_EQ(full.stats().flows_evicted, 0u) << "reset flows go first and count once, at their RST";
    EXPECT_EQ(full.alerts_of(1).size(), 1u) << "the live flow kept its stream";
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

TEST(FlowTable, NewSynOnATrackedFiveTupleStartsANewFlowOnceTheOldOneCloses) {
    Harness h(kRules);
    Conversation c;
    handshake(h, c, 100, 900);
    h.feed(c.frame(true, 101, kAck | kPsh, "att"));
    h.feed(c.frame(true, 100, kSyn, ""));       // retransmitted SYN: same flow
    EXPECT_EQ(h.stats().flows_reused, 0u);
    h.feed(c.frame(true, 104, kAck | kFin, "")); // the client closes its side
    h.feed(c.frame(true, 7000, kSyn, ""));      // port reuse
    EXPECT_EQ(h.stats().flows_reused, 1u);
    h.feed(c.frame(true, 7001, kAck | kPsh, "ack"));
    h.finish();
    EXPECT_EQ(h.alerts_of(1).size(), 0u); // "att" + "ack" belong to different connections
}

// A SYN with another ISN in the middle of a connection carrying data (no
// FIN yet) is ignored, as the receiver ignores it: it used to start a new
// flow at its ISN, and every real byte after it counted as retransmitted.
TEST(FlowTable, ASynWithAnotherIsnMidConnectionDoesNotRestartTheStream) {
    Harness h(kRules);
    Conversation c;
    handshake(h, c, 100, 900);
    h.feed(c.frame(true, 101, kAck | kPsh, "xxatt"));
    h.feed(c.frame(true, 100101, kSyn, "")); // forged
    h.feed(c.frame(true, 106, kAck | kPsh, "ackyy"));
    h.finish();
    EXPECT_EQ(h.stats().flows_reused, 0u);
    EXPECT_EQ(h.stats().flows_created, 1u);
    EXPECT_EQ(h.stats().retransmitted_bytes, 0u);
    EXPECT_EQ(h.alerts_of(1).size(), 1u);
    // Only the server sends (an FTP data channel): a forged client SYN with
    // another ISN must not end the flow either.
    Harness one_way(kRules);
    handshake(one_way, c, 100, 900);
    one_way.feed(c.frame(false, 901, kAck | kPsh, "xxatt"));
    one_way.feed(c.frame(true, 100101, kSyn, "")); // forged
    one_way.feed(c.frame(false, 906, kAck | kPsh, "ackyy"));
    one_way.finish();
    EXPECT_EQ(one_way.stats().flows_reused, 0u);
    EXPECT_EQ(one_way.alerts_of(1).size(), 1u);
    // The old connection's FINs not captured: the peer's SYN-ACK to the new
    // SYN shows a real new connection, which replaces the flow.
    Harness missed(kRules);
    handshake(missed, c, 100, 900);
    missed.feed(c.frame(true, 101, kAck | kPsh, "xxxxxxxxxxx"));
    missed.feed(c.frame(true, 500, kSyn, ""));
    missed.feed(c.frame(false, 7000, kSyn | kAck, "", 501));
    missed.feed(c.frame(true, 501, kAck | kPsh, "xxattackyy", 7001));
    missed.finish();
    EXPECT_EQ(missed.stats().flows_reused, 1u);
    EXPECT_EQ(missed.stats().retransmitted_bytes, 0u);
    EXPECT_EQ(missed.alerts_of(1).size(), 1u);
    // Before any data from its side, a new ISN is a new connection attempt.
    Harness retry(kRules);
    retry.feed(c.frame(true, 100, kSyn, ""));
    retry.feed(c.frame(true, 5000, kSyn, ""));
    retry.feed(c.frame(true, 5001, kAck | kPsh, "attack"));
    retry.finish();
    EXPECT_EQ(retry.stats().flows_reused, 1u);
    EXPECT_EQ(retry.alerts_of(1).size(), 1u);
}

// A FIN behind the bytes delivered, or ahead of them and then covered by
// data, does not end the stream: the receiver takes the data after it.
TEST(FlowTable, AForgedFinDoesNotHideTheBytesAfterIt) {
    for (const uint32_t fin_seq : {105u, 103u}) { // one behind the next byte (106); one ahead, covered later
        SCOPED_TRACE(fin_seq);
        Harness h(kRules);
        Conversation c;
        handshake(h, c, 100, 900);
        if (fin_seq > 101 && fin_seq < 106) {
            h.feed(c.frame(true, fin_seq, kAck | kFin, "")); // before any data: ahead of it
            h.feed(c.frame(true, 101, kAck | kPsh, "xxattackyy"));
        } else {
            h.feed(c.frame(true, 101, kAck | kPsh, "xxatt"));
            h.feed(c.frame(true, fin_seq, kAck | kFin, ""));
            h.feed(c.frame(true, 106, kAck | kPsh, "ackyy"));
        }
        h.finish();
        EXPECT_EQ(h.stats().bytes_after_fin, 0u);
        EXPECT_EQ(h.alerts_of(1).size(), 1u);
    }
}

// A capture that picked the connection up late sees the second segment
// before the first, which holds the whole signature: it is scanned late, as
// packet mode would, and named by its own packet.
TEST(FlowTable, AnEarlierSegmentAfterAMidConnectionPickupIsScanned) {
    Harness h(kRules);
    Conversation c;
    h.feed(c.frame(true, 1020, kAck | kPsh, "and then"));
    h.feed(c.frame(true, 1000, kAck | kPsh, "xx attack here xxxxx"));
    h.finish();
    EXPECT_EQ(h.stats().flows_created, 1u);
    ASSERT_EQ(h.alerts_of(1).size(), 1u);
    EXPECT_EQ(h.alerts_of(1)[0].packet, 2u);
}

// A late segment is scanned whole, keeping the matches that touch its late
// bytes: a signature that runs from them into bytes the stream had (here
// across the first byte seen) is found, once.
TEST(FlowTable, ASignatureAcrossTheEdgeOfLateBytesIsFound) {
    Harness h(kRules);
    Conversation c;
    h.feed(c.frame(true, 1010, kAck | kPsh, "ck and then some"));
    h.feed(c.frame(true, 1004, kAck | kPsh, "attack and")); // offsets -6..4: "attack" across 0
    h.finish();
    ASSERT_EQ(h.alerts_of(1).size(), 1u);
    EXPECT_EQ(h.alerts_of(1)[0].packet, 2u);
}

// A FIN at exactly the next byte that never reached the host (its TTL ran
// out on the way): the host ACKs the data sent after it at the same sequence
// number, so the stream goes on through it.
TEST(FlowTable, DataAtAFinAlreadyReachedVoidsIt) {
    Harness h(kRules);
    Conversation c;
    handshake(h, c, 100, 900);
    h.feed(c.frame(true, 101, kAck | kPsh, "xxatt"));
    h.feed(c.frame(true, 106, kAck | kFin, ""));
    h.feed(c.frame(true, 106, kAck | kPsh, "ackyy"));
    h.feed(c.frame(false, 901, kAck, ""));
    h.finish();
    EXPECT_EQ(h.stats().bytes_after_fin, 5u);
    EXPECT_EQ(h.stats().retransmitted_bytes, 0u);
    EXPECT_EQ(h.alerts_of(1).size(), 1u);
}

// A RST for a direction not seen yet (a one-sided tap, or before the
// server's first packet) is checked against what the client acknowledged
// of it: a forged one with any sequence number no longer ends the flow.
TEST(FlowTable, ARstFromAnUnseenSideIsCheckedAgainstThePeersAck) {
    Harness h(kRules);
    Conversation c;
    h.feed(c.frame(true, 100, kSyn, ""));
    h.feed(c.frame(true, 101, kAck | kPsh, "xxatt", 5000)); // the client has seen the server up to 5000
    h.feed(c.frame(false, 4000, kRst | kAck, ""));                         // behind it
    h.feed(c.frame(false, 5001, kRst | kAck, ""));                         // past it
    EXPECT_EQ(h.stats().rst_ignored, 2u);
    h.feed(c.frame(true, 106, kAck | kPsh, "ackyy", 5000));
    h.feed(c.frame(false, 5000, kRst | kAck, "")); // where the client expects it: accepted
    EXPECT_EQ(h.stats().rst_accepted, 1u);
    h.finish();
    EXPECT_EQ(h.stats().flows_created, 1u);
    EXPECT_EQ(h.alerts_of(1).size(), 1u);
    // Nothing acknowledged (a refused SYN): the RST ends the attempt, and
    // with no data either way the flow goes at once (FlowTable keeps only
    // flows with data after their RST).
    Harness refused(kRules);
    refused.feed(c.frame(true, 100, kSyn, ""));
    refused.feed(c.frame(false, 0, kRst | kAck, "", 101));
    EXPECT_EQ(refused.stats().rst_accepted, 1u);
    EXPECT_EQ(refused.stats().flows_closed, 1u);
    EXPECT_EQ(refused.pipeline().flows(), 0u);
}

// A segment whose IP length runs past the frame on the wire is dropped by
// a host; its claimed bytes must not become a gap before the real ones.
TEST(FlowTable, ASegmentLongerThanItsFrameIsNotTaken) {
    Harness h(kRules);
    Conversation c;
    handshake(h, c, 100, 900);
    auto bogus = c.frame(true, 101, kAck | kPsh, "xxattXXXyy");
    const size_t ip = 14, total = size_t(bogus[ip + 2]) << 8 | bogus[ip + 3];
    bogus[ip + 2] = uint8_t((total + 100) >> 8), bogus[ip + 3] = uint8_t(total + 100);
    h.feed(bogus);
    h.feed(c.frame(true, 101, kAck | kPsh, "xxattackyy"));
    h.finish();
    EXPECT_EQ(h.stats().gaps, 0u);
    EXPECT_EQ(h.stats().retransmitted_bytes, 0u);
    EXPECT_EQ(h.alerts_of(1).size(), 1u);
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
