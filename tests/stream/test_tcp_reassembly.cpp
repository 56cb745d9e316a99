// One TCP direction reassembled from crafted segments: order, overlaps
// (first wins), holes and the out-of-order cap, wraparound, FIN, snap
// length cuts, mid-stream pickup, RST window.
#include "stream_test_util.h"

#include <gtest/gtest.h>

#include <random>

namespace wm::stream::test {
namespace {

struct Dir {
    wm_stream_stats_t st = zero_stats();
    TcpDirection d;
    Recorder rec;
    explicit Dir(uint64_t max_ooo = 1 << 20) : d(max_ooo, st) {}
    void seg(uint32_t seq, const std::string &s, bool fin = false) {
        d.segment(seq, u8(s), s.size(), s.size(), fin, rec);
    }
};

TEST(TcpReassembly, InOrderSegmentsAreDeliveredAtOnce) {
    Dir t;
    t.d.syn(1000);
    t.seg(1001, "GET /");
    t.seg(1006, "index");
    EXPECT_EQ(t.rec.bytes, "GET /index");
    EXPECT_EQ(t.rec.offsets, (std::vector<uint64_t>{0, 5}));
    EXPECT_EQ(t.st.segments_in_order, 2u);
    EXPECT_TRUE(t.rec.contiguous);
}

TEST(TcpReassembly, OutOfOrderSegmentsWaitForTheHoleThenGoOutInOnePiece) {
    Dir t;
    t.d.syn(1000);
    t.seg(1007, "ghi");
    t.seg(1004, "def");
    EXPECT_EQ(t.rec.bytes, "");
    EXPECT_EQ(t.d.buffered_bytes(), 6u);
    t.seg(1001, "abc");
    EXPECT_EQ(t.rec.bytes, "abcdefghi");
    EXPECT_EQ(t.rec.offsets, (std::vector<uint64_t>{0})); // one delivery, one window
    EXPECT_EQ(t.st.segments_out_of_order, 2u);
    EXPECT_EQ(t.d.buffered_bytes(), 0u);
}

TEST(TcpReassembly, RetransmissionOfDeliveredBytesIsIgnoredEvenWithOtherContent) {
    Dir t;
    t.d.syn(1000);
    t.seg(1001, "abcdef");
    t.seg(1001, "XXXXXXghi"); // first six bytes differ: the first copy stays
    EXPECT_EQ(t.rec.bytes, "abcdefghi");
    EXPECT_EQ(t.st.retransmitted_bytes, 6u);
    t.seg(1001, "abc"); // wholly old
    EXPECT_EQ(t.st.retransmitted_bytes, 9u);
    EXPECT_TRUE(t.rec.late_bytes.empty()); // delivered bytes are never late
}

// A hole given up on (here the out-of-order cap of 8 bytes) was never
// scanned: the segment that fills it later goes out as late bytes, once,
// and only its part inside the hole.
TEST(TcpReassembly, BytesFillingAHoleGivenUpOnGoOutLateOnce) {
    Dir t(8);
    t.d.syn(0);
    t.seg(1, "ab");
    t.seg(10, "0123456789"); // offsets 9..19, over the cap: the hole 2..9 is given up
    ASSERT_EQ(t.rec.gaps.size(), 1u);
    EXPECT_EQ(t.rec.bytes, "ab0123456789");
    t.seg(2, "xcdefghi01"); // offsets 1..11: 'x' and "01" delivered before, "cdefghi" the hole
    ASSERT_EQ(t.rec.late_bytes.size(), 1u);
    EXPECT_EQ(t.rec.late_bytes[0], std::make_pair(int64_t{2}, std::string("cdefghi")));
    t.seg(3, "defg"); // the hole's bytes again: scanned already
    EXPECT_EQ(t.rec.late_bytes.size(), 1u);
    EXPECT_EQ(t.rec.bytes, "ab0123456789");
    EXPECT_TRUE(t.rec.contiguous);
}

// Picked up mid-connection: the first byte seen is offset 0, so an earlier
// segment arriving after it has negative offsets; its bytes were never
// scanned. Bytes before a SYN's ISN likewise (a real sender has none).
// More holes than are remembered: the two closest merge, so the first hole
// is still scanned when its bytes come (dropping the oldest let 64 tiny
// holes hide it); and 1-byte segments that split the ranges again and
// again do not grow them past the cap.
TEST(TcpReassembly, RememberedHolesAreCappedWithoutLosingOne) {
    Dir t(4); // a cap of 4 buffered bytes: every hole below is given up at once
    t.d.syn(0);
    t.seg(1, "ab");
    uint32_t at = 1 + 2 + 100; // a 100-byte hole first, then 80 holes of 1 byte
    for (int i = 0; i < 81; ++i, at += 3) t.seg(at, "xy");
    EXPECT_GT(t.st.gaps, 70u); // more holes than are remembered
    EXPECT_LE(t.d.unscanned_ranges(), 64u);
    t.seg(3, std::string(100, 'h'));
    ASSERT_FALSE(t.rec.late_bytes.empty());
    EXPECT_EQ(t.rec.late_bytes.back(), std::make_pair(int64_t{2}, std::string(100, 'h')));
    Dir mid;
    mid.seg(100000, "now");
    for (uint32_t s = 99998; s > 90000; s -= 2) mid.seg(s, "o"); // every other byte before the start
    EXPECT_LE(mid.d.unscanned_ranges(), 64u);
    EXPECT_EQ(mid.rec.late_bytes.size(), 4999u);
}

// After its FIN a sender's RST comes at the FIN's number + 1 (the FIN takes
// one); the FIN's own number stays acceptable too.
TEST(TcpReassembly, RstAfterTheFinIsAcceptedAtTheFinPlusOne) {
    Dir t;
    t.d.syn(1000);
    t.seg(1001, "abc", /*fin=*/true); // FIN at 1004
    ASSERT_TRUE(t.d.finished());
    EXPECT_TRUE(t.d.rst_acceptable(1004));
    EXPECT_TRUE(t.d.rst_acceptable(1005));
    EXPECT_FALSE(t.d.rst_acceptable(1006));
    Dir open;
    open.d.syn(1000);
    open.seg(1001, "abc");
    EXPECT_FALSE(open.d.rst_acceptable(1005)); // no FIN: only the next byte
}

TEST(TcpReassembly, BytesBeforeTheStreamsFirstByteGoOutLate) {
    Dir mid;
    mid.seg(1010, "second");
    mid.seg(1000, "the first.");
    ASSERT_EQ(mid.rec.late_bytes.size(), 1u);
    EXPECT_EQ(mid.rec.late_bytes[0], std::make_pair(int64_t{-10}, std::string("the first.")));
    mid.seg(1000, "the first.");
    EXPECT_EQ(mid.rec.late_bytes.size(), 1u);
    EXPECT_EQ(mid.rec.bytes, "second");
    Dir syn;
    syn.d.syn(1000);
    syn.seg(995, "before"); // offsets -6..0
    ASSERT_EQ(syn.rec.late_bytes.size(), 1u);
    EXPECT_EQ(syn.rec.late_bytes[0].first, -6);
    EXPECT_EQ(syn.rec.bytes, "");
}

TEST(TcpReassembly, OverlapsAmongBufferedSegmentsKeepTheFirstBytes) {
    Dir t;
    t.d.syn(1000);
    t.seg(1005, "efgh");        // buffered at offset 4
    t.seg(1003, "CDEFGHij");    // offsets 2..10: "EFGH" overlaps "efgh" and differs
    t.seg(1001, "ab");
    EXPECT_EQ(t.rec.bytes, "abCDefghij");
    EXPECT_EQ(t.st.overlap_bytes, 4u);
    EXPECT_EQ(t.st.overlap_conflicts, 1u);
    t.seg(1011, "k");
    EXPECT_EQ(t.rec.bytes, "abCDefghijk");
}

TEST(TcpReassembly, SameBytesOverlappingAreNotAConflict) {
    Dir t;
    t.d.syn(0);
    t.seg(5, "efgh");
    t.seg(3, "cdef");
    t.seg(1, "ab");
    EXPECT_EQ(t.rec.bytes, "abcdefgh");
    EXPECT_EQ(t.st.overlap_bytes, 2u);
    EXPECT_EQ(t.st.overlap_conflicts, 0u);
}

TEST(TcpReassembly, OutOfOrderCapSkipsTheHoleAsAGap) {
    Dir t(8);
    t.d.syn(1000);
    t.seg(1001, "ab");
    t.seg(1011, "0123");  // hole [2, 10), 4 bytes buffered: under the cap
    EXPECT_EQ(t.rec.bytes, "ab");
    t.seg(1015, "45678"); // 9 buffered > 8: give up on the hole
    EXPECT_EQ(t.rec.bytes, "ab012345678");
    ASSERT_EQ(t.rec.gaps.size(), 1u);
    EXPECT_EQ(t.rec.gaps[0], (std::pair<uint64_t, uint64_t>{2, 10}));
    EXPECT_EQ(t.st.gaps, 1u);
    EXPECT_EQ(t.st.gap_bytes, 8u);
    EXPECT_TRUE(t.rec.contiguous);
    t.seg(1003, "late"); // fills the old hole: too late, counted as old
    EXPECT_EQ(t.rec.bytes, "ab012345678");
    EXPECT_EQ(t.st.retransmitted_bytes, 4u);
}

TEST(TcpReassembly, SequenceNumbersWrapAroundTwoToThe32) {
    Dir t;
    t.d.syn(0xfffffff0u);
    const std::string a(10, 'A'), b(10, 'B'), c(10, 'C');
    t.seg(0xfffffffbu, b);        // offsets 10..20, crosses 2^32: buffered
    t.seg(0x00000005u, c);        // offsets 20..30, after the wrap
    t.seg(0xfffffff1u, a);        // offsets 0..10 fill the hole
    EXPECT_EQ(t.rec.bytes, a + b + c);
    EXPECT_EQ(t.d.next_offset(), 30u);
    t.seg(0xfffffff1u, a);        // an old retransmission from before the wrap
    EXPECT_EQ(t.st.retransmitted_bytes, 10u);
    EXPECT_EQ(t.rec.bytes.size(), 30u);
}

// A FIN ends the stream once every byte before it is in. Data at the FIN's
// own sequence number afterwards means the host never got that FIN (a
// sender writes nothing after one that arrived; a forged or TTL-limited FIN
// would otherwise hide the rest): the FIN is void and the data scanned.
TEST(TcpReassembly, FinEndsTheStreamUntilDataPastItVoidsIt) {
    Dir t;
    t.d.syn(0);
    t.seg(6, "world", /*fin=*/true); // out of order FIN: not finished yet
    EXPECT_FALSE(t.d.finished());
    t.seg(1, "hello");
    EXPECT_TRUE(t.d.finished());
    EXPECT_EQ(t.rec.bytes, "helloworld");
    t.seg(11, "more");
    EXPECT_FALSE(t.d.finished());
    EXPECT_EQ(t.rec.bytes, "helloworldmore");
    EXPECT_EQ(t.st.bytes_after_fin, 4u);
    EXPECT_EQ(t.st.retransmitted_bytes, 0u);
    t.seg(15, "!", /*fin=*/true); // a later FIN ends it again
    EXPECT_TRUE(t.d.finished());
    EXPECT_EQ(t.rec.bytes, "helloworldmore!");
}

TEST(TcpReassembly, BufferedDataPastTheFinIsScannedAfterAGap) {
    Dir t;
    t.d.syn(0);
    t.seg(20, "beyond");
    t.seg(1, "short", /*fin=*/true);
    EXPECT_TRUE(t.d.finished());
    t.d.flush(t.rec);
    EXPECT_EQ(t.rec.bytes, "shortbeyond");
    ASSERT_EQ(t.rec.gaps.size(), 1u);
    EXPECT_EQ(t.st.bytes_after_fin, 6u);
}

// A FIN behind the bytes delivered is old; one ahead of them that data then
// covers is void (the receiver takes the data): neither ends the stream.
TEST(TcpReassembly, OldAndCoveredFinsDoNotEndTheStream) {
    Dir t;
    t.d.syn(0);
    t.seg(1, "abcde");
    t.d.segment(5, nullptr, 0, 0, true, t.rec); // FIN at offset 4, behind the 5 bytes in
    t.seg(6, "fgh");
    EXPECT_FALSE(t.d.finished());
    t.d.segment(12, nullptr, 0, 0, true, t.rec); // FIN at offset 11: ahead, pending
    t.seg(9, "ijklmn");                          // covers it
    EXPECT_FALSE(t.d.finished());
    EXPECT_EQ(t.rec.bytes, "abcdefghijklmn");
    t.d.segment(15, nullptr, 0, 0, true, t.rec); // in order: the end
    EXPECT_TRUE(t.d.finished());
    EXPECT_EQ(t.rec.bytes, "abcdefghijklmn");
    t.seg(15, "zz"); // data at the FIN reached: the FIN never arrived, the data goes on
    EXPECT_FALSE(t.d.finished());
    EXPECT_EQ(t.rec.bytes, "abcdefghijklmnzz");
    EXPECT_EQ(t.st.bytes_after_fin, 2u);
}

// A FIN that comes on a retransmission (the first FIN lost) ends the
// stream; a pending FIN that a gap skips over (a snap-length cut segment
// covering it) is void, and the real FIN after it still ends the stream.
TEST(TcpReassembly, FinsOnRetransmissionsAndSkippedOverFinsSettle) {
    Dir t;
    t.d.syn(0);
    t.seg(1, "0123456789");
    t.seg(1, "0123456789", /*fin=*/true);
    EXPECT_TRUE(t.d.finished());
    Dir cut;
    cut.d.syn(0);
    cut.d.segment(6, nullptr, 0, 0, true, cut.rec); // a FIN at offset 5, ahead
    const std::string s = "0123456789";
    cut.d.segment(1, u8(s), 3, 10, false, cut.rec); // 3 of 10 bytes captured: a gap to 10
    EXPECT_FALSE(cut.d.finished());
    cut.d.segment(11, u8("abc"), 3, 3, true, cut.rec); // the real FIN at 13
    EXPECT_TRUE(cut.d.finished());
    EXPECT_EQ(cut.rec.bytes, "012abc");
}

// A pending FIN inside a hole that is given up on ends the stream there;
// what was buffered past it is data past a FIN, which voids it: scanned
// after a second gap.
TEST(TcpReassembly, FlushReachesAPendingFinInsideTheHoleThenTheDataPastIt) {
    Dir t;
    t.d.syn(0);
    t.seg(1, "ab");
    t.d.segment(6, nullptr, 0, 0, true, t.rec); // FIN at offset 5, bytes 2-4 missing
    t.seg(9, "past");
    t.d.flush(t.rec);
    EXPECT_EQ(t.rec.bytes, "abpast");
    EXPECT_EQ(t.st.bytes_after_fin, 4u);
    EXPECT_EQ(t.st.gap_bytes, 6u);
    EXPECT_EQ(t.rec.gaps.size(), 2u);
}

TEST(TcpReassembly, SegmentCutBySnapLengthLeavesAGapNotAStall) {
    Dir t;
    t.d.syn(0);
    const std::string s = "0123456789";
    t.d.segment(1, u8(s), 4, 10, false, t.rec); // only 4 of 10 bytes captured
    t.seg(11, "next");
    EXPECT_EQ(t.rec.bytes, "0123next");
    ASSERT_EQ(t.rec.gaps.size(), 1u);
    EXPECT_EQ(t.rec.gaps[0], (std::pair<uint64_t, uint64_t>{4, 10}));
    EXPECT_EQ(t.rec.offsets.back(), 10u);
}

TEST(TcpReassembly, MidStreamPickupStartsAtTheFirstByteSeen) {
    Dir t;
    t.seg(5000, "middle");
    EXPECT_EQ(t.rec.bytes, "middle");
    EXPECT_EQ(t.rec.offsets, (std::vector<uint64_t>{0}));
    t.seg(4990, "0123456789"); // before the pickup point: treated as old
    EXPECT_EQ(t.st.retransmitted_bytes, 10u);
    t.d.syn(4000);             // a late SYN cannot move the stream any more
    t.seg(5006, "end");
    EXPECT_EQ(t.rec.bytes, "middleend");
}

TEST(TcpReassembly, FlushDeliversEverythingBufferedWithGaps) {
    Dir t;
    t.d.syn(0);
    t.seg(11, "x");
    t.seg(21, "y");
    t.d.flush(t.rec);
    EXPECT_EQ(t.rec.bytes, "xy");
    EXPECT_EQ(t.rec.gaps.size(), 2u);
    EXPECT_EQ(t.st.gap_bytes, 19u);
    EXPECT_EQ(t.d.buffered_bytes(), 0u);
}

// RFC 5961 as Linux has it: a RST ends the connection only at exactly the
// next expected sequence number; one elsewhere in the window (what a blind
// injector sends) draws a challenge ACK, and the connection goes on.
TEST(TcpReassembly, RstIsAcceptedOnlyAtTheNextExpectedByte) {
    Dir t;
    t.d.syn(1000);
    t.seg(1001, "abc");
    EXPECT_TRUE(t.d.rst_acceptable(1004));
    EXPECT_FALSE(t.d.rst_acceptable(1005)); // in the window, not exact
    EXPECT_FALSE(t.d.rst_acceptable(1004 + 1000));
    EXPECT_FALSE(t.d.rst_acceptable(1003)); // behind the data already seen
    Dir unseen;
    EXPECT_TRUE(unseen.d.rst_acceptable(7));   // nothing seen or acknowledged: accepted
    EXPECT_TRUE(unseen.d.rst_acceptable(7, 7)); // where the peer's ACK says it is
    EXPECT_FALSE(unseen.d.rst_acceptable(8, 7));
}

// Random segments (any order, overlapping, each retransmission with other
// bytes, sequence numbers wrapping) against a model of the first-wins
// policy: the stream holds, at every offset, the byte of the first segment
// that covered it, delivered in order, with a gap for each run of offsets no
// segment covered; nothing is lost when the out-of-order cap is not reached.
TEST(TcpReassembly, RandomSegmentsEqualTheFirstWinsModel) {
    std::mt19937 rng(2026);
    auto pick = [&](uint32_t lo, uint32_t hi) { return lo + uint32_t(rng() % (hi - lo + 1)); };
    for (int round = 0; round < 300; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        Dir t;
        const uint32_t isn = uint32_t(rng()), span = pick(1, 400);
        std::vector<int> model(span, -1); // the first byte seen at each offset
        t.d.syn(isn);
        for (uint32_t n = pick(1, 60); n > 0; --n) {
            const uint32_t off = pick(0, span - 1), len = pick(1, std::min<uint32_t>(30, span - off));
            std::string s(len, ' ');
            for (char &c : s) c = char('a' + pick(0, 25));
            for (uint32_t k = 0; k < len; ++k)
                if (model[off + k] < 0) model[off + k] = static_cast<uint8_t>(s[k]);
            t.seg(isn + 1 + off, s);
        }
        t.d.flush(t.rec);
        std::string want;
        std::vector<std::pair<uint64_t, uint64_t>> want_gaps;
        uint32_t end = span;
        while (end > 0 && model[end - 1] < 0) --end; // nothing after the last byte seen
        for (uint32_t k = 0; k < end;) {
            if (model[k] >= 0) {
                want += char(model[k++]);
                continue;
            }
            const uint32_t from = k;
            while (model[k] < 0) ++k;
            want_gaps.emplace_back(from, k);
        }
        EXPECT_EQ(t.rec.bytes, want);
        EXPECT_EQ(t.rec.gaps, want_gaps);
        EXPECT_TRUE(t.rec.contiguous);
        EXPECT_EQ(t.d.buffered_bytes(), 0u);
    }
}

} // namespace
} // namespace wm::stream::test
