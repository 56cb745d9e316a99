// IPv4 and IPv6 fragment reassembly: order, overlaps (a partial overlap
// drops the datagram, a duplicate is dropped alone), caps, timeouts, bad fragments; and a pattern
// split across fragments found by the pipeline.
#include "stream_test_util.h"
#include "stream/ip_defrag.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace wm::stream::test {
namespace {

const build::Ip4 kSrc = build::ip4(192, 0, 2, 1), kDst = build::ip4(192, 0, 2, 2);

// A UDP datagram's L4 bytes (header + payload, checksum filled).
build::Bytes udp_l4(const std::string &payload) {
    build::Ipv4Spec s{kSrc, kDst};
    auto whole = build::ipv4(s, build::kProtoUdp, build::udp(5000, 53, build::bytes(payload)));
    return build::Bytes(whole.begin() + 20, whole.end());
}

// IPv4 fragment carrying l4[off, off+len).
build::Bytes frag4(const build::Bytes &l4, size_t off, size_t len, bool more, uint16_t id = 7,
                   uint8_t proto = build::kProtoUdp, build::Ip4 src = kSrc, build::Ip4 dst = kDst) {
    build::Ipv4Spec s{src, dst};
    s.id = id;
    s.frag = uint16_t((more ? 0x2000 : 0) | (off / 8));
    return build::ipv4(s, proto, build::Bytes(l4.begin() + off, l4.begin() + off + len));
}

// IPv6 fragment built by hand (the builder would checksum each piece).
build::Bytes frag6(const build::Bytes &l4, size_t off, size_t len, bool more, uint32_t id = 9) {
    build::Ipv6Spec s;
    s.src = build::ip6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 1});
    s.dst = build::ip6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 2});
    s.ext = {build::fragment_header(uint16_t(off / 8), more, id)};
    auto pkt = build::ipv6(s, build::kProtoUdp, build::Bytes(len, 0));
    std::copy(l4.begin() + off, l4.begin() + off + len, pkt.end() - len);
    return pkt;
}

struct Defrag {
    wm_stream_config_t cfg = default_config();
    wm_stream_stats_t st = zero_stats();
    std::unique_ptr<IpDefrag> d;
    std::vector<uint8_t> out;
    explicit Defrag(wm_stream_config_t c = default_config()) : cfg(c) {
        d = std::make_unique<IpDefrag>(cfg, st);
    }
    bool add(const build::Bytes &ip, int64_t t = 1, uint32_t vlans = 0) {
        IpInfo info;
        EXPECT_TRUE(parse_ip(ip.data(), ip.size(), &info));
        EXPECT_TRUE(info.fragment);
        return d->add(ip.data(), ip.size(), info, vlans, t, &out);
    }
    // The reassembled datagram's UDP payload, via the real decoder.
    std::string payload() {
        wm_packet_t p{};
        EXPECT_EQ(capture::decode_frame(capture::kDltRaw, out.data(), uint32_t(out.size()), &p),
                  capture::kDecodedPayload);
        return p.payload ? std::string(reinterpret_cast<const char *>(p.payload), p.payload_len)
                         : std::string();
    }
};

TEST(IpDefrag, Ipv4FragmentsInAnyOrderMakeTheDatagram) {
    const std::string msg = "fragmented datagram carrying a signature over the boundary";
    auto l4 = udp_l4(msg);
    Defrag d;
    EXPECT_FALSE(d.add(frag4(l4, 48, l4.size() - 48, false)));
    EXPECT_FALSE(d.add(frag4(l4, 0, 24, true)));
    EXPECT_TRUE(d.add(frag4(l4, 24, 24, true)));
    EXPECT_EQ(d.payload(), msg);
    EXPECT_EQ(d.st.frag_reassembled, 1u);
    EXPECT_EQ(d.st.frag_fragments, 3u);
    EXPECT_EQ(d.d->datagrams(), 0u);
    EXPECT_EQ(d.d->memory_bytes(), 0u);
}

// Linux (4.19 on) drops an IPv4 datagram on a partial overlap, as RFC 5722
// has IPv6 do: a first-wins datagram no host accepts would otherwise stand,
// at the TCP level, for the real bytes of a later retransmission.
TEST(IpDefrag, Ipv4PartialOverlapDropsTheDatagram) {
    const std::string msg(40, 'a');
    auto l4 = udp_l4(msg);
    auto evil = l4;
    for (size_t i = 16; i < 32; ++i) evil[i] = 'E';
    Defrag d;
    EXPECT_FALSE(d.add(frag4(l4, 0, 24, true)));
    EXPECT_FALSE(d.add(frag4(evil, 16, 16, true))); // overlaps 16..24: the datagram goes
    EXPECT_EQ(d.st.frag_overlap_drops, 1u);
    EXPECT_EQ(d.d->datagrams(), 0u);
    EXPECT_FALSE(d.add(frag4(l4, 32, l4.size() - 32, false))); // the start is gone with it
    EXPECT_FALSE(d.add(frag4(l4, 0, 16, true)));
    EXPECT_FALSE(d.add(frag4(l4, 0, 16, true))); // a duplicate: dropped alone
    EXPECT_EQ(d.st.frag_overlap_bytes, 16u);
    EXPECT_TRUE(d.add(frag4(l4, 16, 16, true)));
    EXPECT_EQ(d.payload(), msg);
    EXPECT_EQ(d.st.frag_overlap_drops, 1u);
}

// Random IPv4 fragments (any order, overlapping, each with bytes of its
// own) against a model of Linux's policy: fragments arriving in order, each
// at the last one's end, make a run; a fragment wholly inside one run is
// dropped alone, any other overlap drops the datagram (a later fragment
// starts a new one), any other fragment is kept. The datagram completes with the fragment
// that covers its last missing byte once the last fragment is in, and holds
// at every offset the byte of the fragment that covered it.
TEST(IpDefrag, RandomIpv4FragmentsEqualTheDropOnOverlapModel) {
    std::mt19937 rng(2027);
    auto pick = [&](size_t lo, size_t hi) { return lo + size_t(rng() % (hi - lo + 1)); };
    for (int round = 0; round < 300; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        const size_t total = 8 * pick(2, 40) + pick(1, 8); // data bytes; the last fragment is not a multiple of 8
        const size_t units = (total + 7) / 8;
        std::vector<int> model(total, -1), run_of(total, -1);
        int runs = 0, tail_run = -1;
        size_t tail_end = 0;
        bool last_in = false;
        auto covered = [&] { return last_in && std::all_of(model.begin(), model.end(), [](int b) { return b >= 0; }); };
        Defrag d;
        auto send = [&](size_t unit, size_t n_units) { // units [unit, unit + n_units), clipped at the end
            const size_t off = 8 * unit, len = std::min(8 * n_units, total - off);
            const bool last = off + len == total;
            build::Bytes bytes(total);
            for (auto &b : bytes) b = uint8_t(rng());
            const auto held =
                std::count_if(model.begin() + off, model.begin() + off + len, [](int b) { return b >= 0; });
            const bool one_run = std::all_of(run_of.begin() + off, run_of.begin() + off + len,
                                             [&](int r) { return r == run_of[off]; });
            if (held > 0 && (size_t(held) < len || !one_run)) { // an overlap, not inside one run: dropped
                std::fill(model.begin(), model.end(), -1);
                std::fill(run_of.begin(), run_of.end(), -1);
                tail_run = -1, tail_end = 0, last_in = false;
            } else if (held == 0) { // a run goes on when a fragment starts at the last one's end
                const int run = tail_run >= 0 && off == tail_end ? tail_run : runs++;
                if (off + len > tail_end || tail_run < 0) tail_run = run, tail_end = off + len;
                for (size_t k = 0; k < len; ++k) model[off + k] = bytes[off + k], run_of[off + k] = run;
                last_in |= last;
            }
            return d.add(frag4(bytes, off, len, !last));
        };
        for (size_t n = pick(0, 12); n > 0; --n) {
            const size_t unit = pick(0, units - 1);
            // (the whole datagram in one piece would be no fragment)
            const bool done = send(unit, pick(1, units - unit - (unit == 0)));
            ASSERT_EQ(done, covered());
            if (done) break;
        }
        std::vector<size_t> order(units); // then every unit once, in random order, until complete
        for (size_t u = 0; u < units; ++u) order[u] = u;
        std::shuffle(order.begin(), order.end(), rng);
        for (size_t u : order) {
            if (covered()) break;
            const bool done = send(u, 1);
            ASSERT_EQ(done, covered());
        }
        ASSERT_TRUE(covered());
        ASSERT_EQ(d.out.size(), 20 + total);
        for (size_t k = 0; k < total; ++k) ASSERT_EQ(d.out[20 + k], model[k]) << "byte " << k;
        EXPECT_EQ(d.d->datagrams(), 0u);
    }
}

// The same addresses and IP id on two VLANs (ids as capture::FrameLayers
// gives them) are two datagrams: no byte of one lands in the other.
TEST(IpDefrag, SameIdOnTwoVlansIsTwoDatagrams) {
    const uint32_t v10 = 10, v20 = 20;
    const auto a = udp_l4(std::string(40, 'a')), b = udp_l4(std::string(40, 'b'));
    Defrag d;
    EXPECT_FALSE(d.add(frag4(a, 0, 24, true), 1, v10));
    EXPECT_FALSE(d.add(frag4(b, 0, 24, true), 1, v20));
    EXPECT_EQ(d.d->datagrams(), 2u);
    ASSERT_TRUE(d.add(frag4(b, 24, b.size() - 24, false), 1, v20));
    EXPECT_EQ(d.payload(), std::string(40, 'b'));
    ASSERT_TRUE(d.add(frag4(a, 24, a.size() - 24, false), 1, v10));
    EXPECT_EQ(d.payload(), std::string(40, 'a'));
    EXPECT_EQ(d.st.frag_overlap_bytes, 0u);
    EXPECT_EQ(d.st.frag_reassembled, 2u);
}

// The protocol is part of an IPv4 datagram's key (RFC 791), as a host keys
// it: a UDP fragment with the TCP datagram's id must not lend it its bytes.
// (The protocol byte was overwritten by the id's, so both were one datagram.)
TEST(IpDefrag, SameIdForTwoProtocolsIsTwoDatagrams) {
    const auto udp = udp_l4(std::string(40, 'u')), other = udp_l4(std::string(40, 'o'));
    Defrag d;
    EXPECT_FALSE(d.add(frag4(udp, 0, 24, true, 7, build::kProtoUdp)));
    EXPECT_FALSE(d.add(frag4(other, 0, 24, true, 7, build::kProtoTcp)));
    EXPECT_EQ(d.d->datagrams(), 2u);
    EXPECT_EQ(d.st.frag_overlap_bytes, 0u);
    ASSERT_TRUE(d.add(frag4(udp, 24, udp.size() - 24, false, 7, build::kProtoUdp)));
    EXPECT_EQ(d.payload(), std::string(40, 'u'));
    EXPECT_EQ(d.d->datagrams(), 1u);
}

TEST(IpDefrag, Ipv6FragmentsReassembleAndOverlapsDropTheDatagram) {
    auto l4 = udp_l4(std::string(100, 'q'));
    Defrag d;
    EXPECT_FALSE(d.add(frag6(l4, 56, l4.size() - 56, false)));
    EXPECT_TRUE(d.add(frag6(l4, 0, 56, true)));
    EXPECT_EQ(d.payload(), std::string(100, 'q'));

    EXPECT_FALSE(d.add(frag6(l4, 0, 56, true, 10)));
    EXPECT_FALSE(d.add(frag6(l4, 48, l4.size() - 48, false, 10))); // overlaps 48..56
    EXPECT_EQ(d.st.frag_overlap_drops, 1u);
    EXPECT_EQ(d.d->datagrams(), 0u);
}

// Linux drops a fragment whose bytes it holds already and keeps the
// datagram (IPFRAG_DUP); only a partial overlap kills it. Dropping the
// datagram on a resent fragment would hide what the host reassembles.
TEST(IpDefrag, Ipv6DuplicateFragmentIsDroppedAloneAndTheDatagramCompletes) {
    auto l4 = udp_l4(std::string(100, 'q'));
    auto forged = l4;
    std::fill(forged.begin() + 8, forged.begin() + 56, 'X');
    Defrag d;
    EXPECT_FALSE(d.add(frag6(l4, 0, 56, true)));
    EXPECT_FALSE(d.add(frag6(forged, 0, 56, true))); // same span, other bytes: first wins
    EXPECT_FALSE(d.add(frag6(forged, 8, 40, true))); // inside the held bytes
    EXPECT_EQ(d.st.frag_overlap_drops, 0u);
    EXPECT_EQ(d.st.frag_overlap_bytes, 56u + 40u);
    EXPECT_EQ(d.d->datagrams(), 1u);
    ASSERT_TRUE(d.add(frag6(l4, 56, l4.size() - 56, false)));
    EXPECT_EQ(d.payload(), std::string(100, 'q'));

    // A fragment held in two parts that came in order (one run) is still a
    // duplicate; one reaching past them is not.
    EXPECT_FALSE(d.add(frag6(l4, 0, 24, true, 11)));
    EXPECT_FALSE(d.add(frag6(l4, 24, 24, true, 11)));
    EXPECT_FALSE(d.add(frag6(l4, 16, 32, true, 11)));
    EXPECT_EQ(d.st.frag_overlap_drops, 0u);
    EXPECT_FALSE(d.add(frag6(l4, 40, 16, true, 11)));
    EXPECT_EQ(d.st.frag_overlap_drops, 1u);
    EXPECT_EQ(d.d->datagrams(), 0u);
}

// Held in two parts that came out of order (two runs), a fragment spanning
// both is no duplicate to Linux: it drops the datagram. Keeping it would let
// a decoy that completes the datagram stand for the real segment resent
// after it.
TEST(IpDefrag, AFragmentSpanningTwoRunsDropsTheDatagram) {
    auto l4 = udp_l4(std::string(100, 'q'));
    Defrag d;
    EXPECT_FALSE(d.add(frag6(l4, 24, 24, true, 12)));
    EXPECT_FALSE(d.add(frag6(l4, 0, 24, true, 12))); // before it: a run of its own
    EXPECT_FALSE(d.add(frag6(l4, 16, 16, true, 12))); // across the two runs
    EXPECT_EQ(d.st.frag_overlap_drops, 1u);
    EXPECT_EQ(d.d->datagrams(), 0u);
    EXPECT_FALSE(d.add(frag4(l4, 24, 24, true, 13)));
    EXPECT_FALSE(d.add(frag4(l4, 0, 24, true, 13)));
    EXPECT_FALSE(d.add(frag4(l4, 8, 16, true, 13))); // inside the run [0, 24): a duplicate
    EXPECT_EQ(d.st.frag_overlap_drops, 1u);
    EXPECT_FALSE(d.add(frag4(l4, 16, 16, true, 13)));
    EXPECT_EQ(d.st.frag_overlap_drops, 2u);
}

// A "last" fragment that ends inside bytes already held would have made a
// datagram of them, cut short: a decoy in the first fragment then stood for
// the real bytes sent after it. Linux drops such a datagram, and one whose
// fragment reaches past a known end; so do we, IPv4 and IPv6 alike.
TEST(IpDefrag, AnEndBeforeHeldBytesOrPastTheLastFragmentDropsTheDatagram) {
    auto l4 = udp_l4(std::string(100, 'q'));
    for (const bool v6 : {false, true}) {
        SCOPED_TRACE(v6 ? "IPv6" : "IPv4");
        auto frag = [&](size_t off, size_t len, bool more, uint16_t id) {
            return v6 ? frag6(l4, off, len, more, id) : frag4(l4, off, len, more, id);
        };
        Defrag d;
        EXPECT_FALSE(d.add(frag(0, 48, true, 21)));
        EXPECT_FALSE(d.add(frag(8, 16, false, 21))); // ends at 24, inside [0, 48)
        EXPECT_EQ(d.st.frag_invalid, 1u);
        EXPECT_EQ(d.d->datagrams(), 0u);
        EXPECT_FALSE(d.add(frag(56, l4.size() - 56, false, 21))); // the real end starts a datagram of its own
        EXPECT_EQ(d.d->datagrams(), 1u);

        EXPECT_FALSE(d.add(frag(16, 8, false, 22))); // the end: 24
        EXPECT_FALSE(d.add(frag(8, 32, true, 22)));  // reaches 40
        EXPECT_EQ(d.st.frag_invalid, 2u);
        EXPECT_EQ(d.st.frag_reassembled, 0u);
    }
}

TEST(IpDefrag, DatagramCapEvictsTheOldest) {
    auto cfg = default_config();
    cfg.frag_max_datagrams = 2;
    Defrag d(cfg);
    auto l4 = udp_l4(std::string(40, 'x'));
    for (uint16_t id = 1; id <= 3; ++id) d.add(frag4(l4, 0, 24, true, id));
    EXPECT_EQ(d.st.frag_evicted, 1u);
    EXPECT_EQ(d.d->datagrams(), 2u);
    EXPECT_FALSE(d.add(frag4(l4, 24, l4.size() - 24, false, 1))); // id 1 is gone
    EXPECT_TRUE(d.add(frag4(l4, 24, l4.size() - 24, false, 3)));
}

TEST(IpDefrag, ByteCapBoundsAFloodOfFragments) {
    auto cfg = default_config();
    cfg.frag_memcap_bytes = 16 * 1024;
    Defrag d(cfg);
    auto l4 = udp_l4(std::string(1400, 'f'));
    for (uint16_t id = 0; id < 1000; ++id) d.add(frag4(l4, 0, 1000, true, id));
    EXPECT_LE(d.d->memory_bytes(), cfg.frag_memcap_bytes);
    EXPECT_LE(d.st.frag_memory_peak_bytes, cfg.frag_memcap_bytes + 2048);
    EXPECT_GT(d.st.frag_evicted, 900u);
}

TEST(IpDefrag, IncompleteDatagramsTimeOut) {
    auto cfg = default_config();
    cfg.frag_timeout_s = 30;
    Defrag d(cfg);
    auto l4 = udp_l4(std::string(40, 'x'));
    d.add(frag4(l4, 0, 24, true), 100);
    d.d->expire(120);
    EXPECT_EQ(d.d->datagrams(), 1u);
    d.d->expire(131);
    EXPECT_EQ(d.d->datagrams(), 0u);
    EXPECT_EQ(d.st.frag_timeouts, 1u);
}

TEST(IpDefrag, BadFragmentsAreCountedAndIgnored) {
    Defrag d;
    auto l4 = udp_l4(std::string(60, 'x'));
    d.add(frag4(l4, 0, 20, true));                 // not a multiple of 8 with MF set
    auto big = frag4(l4, 0, 24, true);
    big[6] = 0x3f, big[7] = 0xff;                  // offset 65528 + 24 > 65535
    IpInfo info;
    ASSERT_TRUE(parse_ip(big.data(), big.size(), &info));
    EXPECT_FALSE(d.d->add(big.data(), big.size(), info, 0, 1, &d.out));
    EXPECT_EQ(d.st.frag_invalid, 2u);
    EXPECT_EQ(d.d->datagrams(), 0u);
}

TEST(IpDefrag, PipelineFindsAPatternSplitAcrossFragments) {
    const std::string msg = "....evil-c2 split right here....";
    auto l4 = udp_l4(msg);
    for (bool streams : {false, true}) {
        Harness h(rules_yaml(rule_yaml(3, "evil-c2 split")), streams);
        h.feed(build::ethernet_ip(frag4(l4, 0, 16, true)));
        h.feed(build::ethernet_ip(frag4(l4, 16, l4.size() - 16, false)));
        h.finish();
        EXPECT_EQ(h.alerts_of(3).size(), streams ? 1u : 0u) << "streams " << streams;
        EXPECT_EQ(h.pipeline().capture_stats().skipped[WM_SKIP_FRAGMENT], 2u);
    }
}

TEST(IpDefrag, TcpOverFragmentedIpv4JoinsItsFlow) {
    Conversation c;
    Harness h(rules_yaml(rule_yaml(4, "segment-and-fragment")));
    h.feed(c.frame(true, 1, build::kAck | build::kPsh, "xx segment-"));
    auto whole = c.frame(true, 12, build::kAck | build::kPsh, "and-fragment xx");
    build::Bytes ip(whole.begin() + 14, whole.end());
    build::Bytes l4(ip.begin() + 20, ip.end());
    const auto a = build::ip4(10, 0, 0, 1), b = build::ip4(10, 0, 0, 2);
    h.feed(build::ethernet_ip(frag4(l4, 16, l4.size() - 16, false, 77, build::kProtoTcp, a, b)));
    h.feed(build::ethernet_ip(frag4(l4, 0, 16, true, 77, build::kProtoTcp, a, b)));
    h.finish();
    ASSERT_EQ(h.alerts_of(4).size(), 1u);
    EXPECT_EQ(h.stats().frag_reassembled, 1u);
    EXPECT_EQ(h.pipeline().verify_mismatches(), 0u);
}

} // namespace
} // namespace wm::stream::test
