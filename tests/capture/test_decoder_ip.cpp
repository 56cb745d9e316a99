// tests/capture/test_decoder_ip.cpp - IPv4/IPv6/TCP/UDP header paths:
// options, extension headers, fragments, lengths, other protocols.
#include "capture_test_util.h"

namespace wm::capture::test {
namespace {

namespace b = build;

const Bytes kData = b::bytes("payload-bytes-0123456789");

// Raw IP frames keep offsets easy to read.
Decoded raw(const Bytes &ip) { return decode(kDltRaw, ip); }

TEST(DecoderIpv4, OptionsShiftThePayload) {
    b::Ipv4Spec s = v4();
    s.options = {7, 11, 4, 0, 0, 0, 0, 0, 0, 0, 0}; // record route, 2 slots (+1 EOL pad)
    const Decoded d = raw(b::ipv4(s, b::kProtoTcp, b::tcp(tcp_ports(1, 2), kData)));
    ASSERT_EQ(d.rc, kDecodedPayload);
    EXPECT_EQ(d.pkt.payload_offset, 32u + 20u);
    EXPECT_EQ(d.payload(), kData);
    EXPECT_EQ(d.pkt.src_port, 1);
    EXPECT_EQ(d.pkt.dst_port, 2);
}

TEST(DecoderIpv4, MaximumOptions) {
    b::Ipv4Spec s = v4();
    s.options = Bytes(40, 1); // NOPs, IHL 15
    const Decoded d = raw(b::ipv4(s, b::kProtoUdp, b::udp(9, 10, kData)));
    ASSERT_EQ(d.rc, kDecodedPayload);
    EXPECT_EQ(d.pkt.payload_offset, 60u + 8u);
    EXPECT_EQ(d.payload(), kData);
}

TEST(DecoderIpv4, BadHeaderLengths) {
    const Bytes good = b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(1, 2), kData));
    Bytes ihl4 = good;
    ihl4[0] = 0x44;
    EXPECT_EQ(raw(ihl4).rc, WM_SKIP_MALFORMED);
    Bytes total_below_ihl = good;
    total_below_ihl[2] = 0;
    total_below_ihl[3] = 19;
    EXPECT_EQ(raw(total_below_ihl).rc, WM_SKIP_MALFORMED);
    // Total length too short for the TCP header: impossible, not truncated.
    Bytes short_total = good;
    short_total[3] = 30;
    EXPECT_EQ(raw(short_total).rc, WM_SKIP_MALFORMED);
}

// Sender-side captures before TCP segmentation offload carry total length 0
// (seen in the shared LDAP trace): the packet runs to the end of the frame.
TEST(DecoderIpv4, ZeroTotalLengthMeansWholeFrame) {
    Bytes ip = b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(389, 50000), kData));
    ip[2] = ip[3] = 0;
    const Decoded d = raw(ip);
    ASSERT_EQ(d.rc, kDecodedPayload);
    EXPECT_EQ(d.payload(), kData);
    EXPECT_EQ(raw(Bytes(ip.begin(), ip.begin() + 30)).rc, WM_SKIP_TRUNCATED); // TCP header cut
    Bytes ip6 = b::ipv6(v6(), b::kProtoUdp, b::udp(1, 2, kData));
    ip6[4] = ip6[5] = 0;
    const Decoded d6 = raw(ip6);
    ASSERT_EQ(d6.rc, kDecodedPayload);
    EXPECT_EQ(d6.payload(), kData);
}

TEST(DecoderIpv4, TotalLengthBeyondCaptureClipsPayload) {
    const Bytes ip = b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(1, 2), kData));
    const Decoded d = decode(kDltRaw, ip, ip.size() - 4);
    ASSERT_EQ(d.rc, kDecodedPayload);
    EXPECT_EQ(d.payload(), Bytes(kData.begin(), kData.end() - 4));
}

TEST(DecoderIpv4, Fragments) {
    const Bytes l4 = b::udp(53, 53, kData);
    b::Ipv4Spec s = v4();
    s.frag = 0x2000; // MF, offset 0: first fragment
    Decoded d = raw(b::ipv4(s, b::kProtoUdp, l4));
    EXPECT_EQ(d.rc, WM_SKIP_FRAGMENT);
    EXPECT_EQ(d.pkt.ip_version, 4); // addresses were read before stopping
    EXPECT_EQ(0, std::memcmp(d.pkt.src_ip, kClient4.data(), 4));
    s.frag = 0x0003; // last fragment, offset 24 bytes
    EXPECT_EQ(raw(b::ipv4(s, b::kProtoUdp, l4)).rc, WM_SKIP_FRAGMENT);
    s.frag = 0x2001; // middle
    EXPECT_EQ(raw(b::ipv4(s, b::kProtoUdp, l4)).rc, WM_SKIP_FRAGMENT);
    s.frag = 0x4000; // DF only: a whole packet
    EXPECT_EQ(raw(b::ipv4(s, b::kProtoUdp, l4)).rc, kDecodedPayload);
    s.frag = 0x0000;
    EXPECT_EQ(raw(b::ipv4(s, b::kProtoUdp, l4)).rc, kDecodedPayload);
}

TEST(DecoderIpv4, OtherProtocols) {
    Decoded d = raw(b::ipv4(v4(), b::kProtoIcmp, b::icmp_echo(true, 1, 1, kData)));
    EXPECT_EQ(d.rc, WM_SKIP_OTHER_PROTO);
    EXPECT_EQ(d.pkt.proto, WM_PROTO_ANY);
    EXPECT_EQ(raw(b::ipv4(v4(), b::kProtoGre, Bytes(24, 0))).rc, WM_SKIP_OTHER_PROTO);
    EXPECT_EQ(raw(b::ipv4(v4(), 50 /* ESP */, Bytes(24, 0))).rc, WM_SKIP_OTHER_PROTO);
}

TEST(DecoderTcp, OptionsAndDataOffset) {
    b::TcpSpec t = tcp_ports(443, 50000);
    t.options = b::tcp_syn_options(1460, 99); // 20 bytes of options
    const Decoded d = raw(b::ipv4(v4(), b::kProtoTcp, b::tcp(t, kData)));
    ASSERT_EQ(d.rc, kDecodedPayload);
    EXPECT_EQ(d.pkt.payload_offset, 20u + 40u);
    EXPECT_EQ(d.payload(), kData);
    EXPECT_EQ(d.pkt.src_port, 443);
    EXPECT_EQ(d.pkt.dst_port, 50000);
}

TEST(DecoderTcp, BadDataOffsets) {
    Bytes ip = b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(1, 2), kData));
    ip[20 + 12] = 0x40; // 16-byte header
    EXPECT_EQ(raw(ip).rc, WM_SKIP_MALFORMED);
    ip[20 + 12] = 0xf0; // 60-byte header, but only 44 bytes of TCP in the packet
    EXPECT_EQ(raw(ip).rc, WM_SKIP_MALFORMED);
}

TEST(DecoderTcp, EmptySegmentsHaveNoPayload) {
    b::TcpSpec t = tcp_ports(1, 2);
    t.flags = b::kSyn;
    t.options = b::tcp_syn_options(1460, 1);
    const Decoded d = raw(b::ipv4(v4(), b::kProtoTcp, b::tcp(t, {})));
    EXPECT_EQ(d.rc, WM_SKIP_NO_PAYLOAD);
    EXPECT_EQ(d.pkt.proto, WM_PROTO_TCP); // ports known, only the payload is missing
    EXPECT_EQ(d.pkt.src_port, 1);
    // A bare ACK in a padded Ethernet frame: padding is not payload.
    t.flags = b::kAck;
    t.options.clear();
    const Bytes f = b::ethernet_ip(b::ipv4(v4(), b::kProtoTcp, b::tcp(t, {})));
    EXPECT_EQ(f.size(), 60u);
    EXPECT_EQ(decode(kDltEthernet, f).rc, WM_SKIP_NO_PAYLOAD);
}

TEST(DecoderUdp, LengthFieldIsRespected) {
    Bytes ip = b::ipv4(v4(), b::kProtoUdp, b::udp(1, 2, kData));
    ip[20 + 5] = 8 + 5; // UDP says 5 bytes; the rest of the IP packet is trailer
    Decoded d = raw(ip);
    ASSERT_EQ(d.rc, kDecodedPayload);
    EXPECT_EQ(d.payload(), Bytes(kData.begin(), kData.begin() + 5));
    ip[20 + 5] = 7;
    EXPECT_EQ(raw(ip).rc, WM_SKIP_MALFORMED);
    ip[20 + 5] = uint8_t(8 + kData.size() + 1); // past the IP packet
    EXPECT_EQ(raw(ip).rc, WM_SKIP_MALFORMED);
    EXPECT_EQ(raw(b::ipv4(v4(), b::kProtoUdp, b::udp(1, 2, {}))).rc, WM_SKIP_NO_PAYLOAD);
}

TEST(DecoderIpv6, ExtensionHeaderChain) {
    b::Ipv6Spec s = v6();
    s.ext = {b::hop_by_hop(8), b::routing_header(), b::dest_options(16)};
    const Decoded d = raw(b::ipv6(s, b::kProtoTcp, b::tcp(tcp_ports(1234, 80), kData)));
    ASSERT_EQ(d.rc, kDecodedPayload);
    EXPECT_EQ(d.pkt.payload_offset, 40u + 8u + 8u + 16u + 20u);
    EXPECT_EQ(d.payload(), kData);
    EXPECT_EQ(d.pkt.proto, WM_PROTO_TCP);
    EXPECT_EQ(0, std::memcmp(d.pkt.dst_ip, kServer6.data(), 16));
}

TEST(DecoderIpv6, AuthenticationHeaderIsWalked) {
    b::Ipv6Spec s = v6();
    // AH: length 4 -> (4 + 2) * 4 = 24 bytes.
    s.ext = {b::ExtHeader{51, Bytes{4, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}};
    const Decoded d = raw(b::ipv6(s, b::kProtoUdp, b::udp(1, 2, kData)));
    ASSERT_EQ(d.rc, kDecodedPayload);
    EXPECT_EQ(d.pkt.payload_offset, 40u + 24u + 8u);
}

TEST(DecoderIpv6, Fragments) {
    const Bytes l4 = b::udp(1, 2, kData);
    b::Ipv6Spec s = v6();
    s.ext = {b::fragment_header(0, true, 7)};
    EXPECT_EQ(raw(b::ipv6(s, b::kProtoUdp, l4)).rc, WM_SKIP_FRAGMENT);
    s.ext = {b::fragment_header(185, false, 7)};
    EXPECT_EQ(raw(b::ipv6(s, b::kProtoUdp, l4)).rc, WM_SKIP_FRAGMENT);
    s.ext = {b::hop_by_hop(), b::fragment_header(3, true, 7)};
    EXPECT_EQ(raw(b::ipv6(s, b::kProtoUdp, l4)).rc, WM_SKIP_FRAGMENT);
    // Atomic fragment (offset 0, no M): the whole packet follows.
    s.ext = {b::fragment_header(0, false, 7)};
    const Decoded d = raw(b::ipv6(s, b::kProtoUdp, l4));
    ASSERT_EQ(d.rc, kDecodedPayload);
    EXPECT_EQ(d.pkt.payload_offset, 40u + 8u + 8u);
}

TEST(DecoderIpv6, PayloadLengthIsRespected) {
    const Bytes ip = b::ipv6(v6(), b::kProtoTcp, b::tcp(tcp_ports(1, 2), kData));
    const Decoded d = raw(b::concat(ip, Bytes(10, 0xee))); // trailer after the packet
    ASSERT_EQ(d.rc, kDecodedPayload);
    EXPECT_EQ(d.payload(), kData);
    Bytes short_len = ip;
    short_len[5] = 10; // payload length 10 < TCP header
    EXPECT_EQ(raw(short_len).rc, WM_SKIP_MALFORMED);
    b::Ipv6Spec s = v6();
    s.ext = {b::dest_options(64)};
    Bytes ext_past_end = b::ipv6(s, b::kProtoUdp, b::udp(1, 2, kData));
    ext_past_end[5] = 16; // the 64-byte options header does not fit
    EXPECT_EQ(raw(ext_past_end).rc, WM_SKIP_MALFORMED);
}

TEST(DecoderIpv6, OtherProtocolsAndLimits) {
    EXPECT_EQ(raw(b::ipv6(v6(), 58 /* ICMPv6 */, Bytes(8, 0))).rc, WM_SKIP_OTHER_PROTO);
    EXPECT_EQ(raw(b::ipv6(v6(), 59 /* no next header */, {})).rc, WM_SKIP_OTHER_PROTO);
    EXPECT_EQ(raw(b::ipv6(v6(), 50 /* ESP */, Bytes(16, 0))).rc, WM_SKIP_OTHER_PROTO);
    b::Ipv6Spec s = v6();
    s.ext.assign(16, b::dest_options());
    EXPECT_EQ(raw(b::ipv6(s, b::kProtoUdp, b::udp(1, 2, kData))).rc, WM_SKIP_MALFORMED);
    s.ext.assign(15, b::dest_options());
    EXPECT_EQ(raw(b::ipv6(s, b::kProtoUdp, b::udp(1, 2, kData))).rc, kDecodedPayload);
}

TEST(FlowId, SymmetricAcrossDirections) {
    const Bytes fwd = b::ipv4(v4(kClient4, kServer4), b::kProtoTcp, b::tcp(tcp_ports(40000, 80), kData));
    const Bytes rev = b::ipv4(v4(kServer4, kClient4), b::kProtoTcp, b::tcp(tcp_ports(80, 40000), kData));
    const Decoded a = raw(fwd), r = raw(rev);
    ASSERT_EQ(a.rc, kDecodedPayload);
    ASSERT_EQ(r.rc, kDecodedPayload);
    EXPECT_EQ(a.pkt.flow_id, r.pkt.flow_id);

    const Bytes f6 = b::ipv6(v6(kClient6, kServer6), b::kProtoUdp, b::udp(5000, 53, kData));
    const Bytes r6 = b::ipv6(v6(kServer6, kClient6), b::kProtoUdp, b::udp(53, 5000, kData));
    EXPECT_EQ(raw(f6).pkt.flow_id, raw(r6).pkt.flow_id);
    // Same addresses, ports swapped between the two sides only.
    const uint8_t ip[16] = {1};
    EXPECT_EQ(flow_hash(4, 6, ip, 1, ip, 2), flow_hash(4, 6, ip, 2, ip, 1));
}

// The decoder hashes the addresses as it reads them from the frame: the same
// id as flow_hash() of the fields it wrote, for IPv4 and IPv6, either order.
TEST(FlowId, DecodedIdIsFlowHashOfTheDecodedFields) {
    auto check = [](const Bytes &ip) {
        const Decoded x = raw(ip);
        ASSERT_EQ(x.rc, kDecodedPayload);
        const wm_packet_t &p = x.pkt;
        EXPECT_EQ(p.flow_id, flow_hash(p.ip_version, p.proto, p.src_ip, p.src_port, p.dst_ip, p.dst_port));
    };
    check(b::ipv4(v4(kClient4, kServer4), b::kProtoTcp, b::tcp(tcp_ports(40000, 80), kData)));
    check(b::ipv4(v4(kServer4, kClient4), b::kProtoUdp, b::udp(53, 5000, kData)));
    check(b::ipv4(v4(b::ip4(255, 255, 255, 254), b::ip4(0, 0, 0, 1)), b::kProtoTcp, b::tcp(tcp_ports(1, 65535), kData)));
    check(b::ipv6(v6(kClient6, kServer6), b::kProtoUdp, b::udp(5000, 53, kData)));
    check(b::ipv6(v6(kServer6, kClient6), b::kProtoTcp, b::tcp(tcp_ports(80, 40000), kData)));
}

TEST(FlowId, DistinctForDifferentTuples) {
    auto id = [](b::Ip4 s, b::Ip4 d, uint8_t proto, uint16_t sp, uint16_t dp) {
        const Bytes l4 = proto == b::kProtoTcp ? b::tcp(tcp_ports(sp, dp), kData) : b::udp(sp, dp, kData);
        const Decoded x = raw(b::ipv4(v4(s, d), proto, l4));
        EXPECT_EQ(x.rc, kDecodedPayload);
        return x.pkt.flow_id;
    };
    const uint64_t base = id(kClient4, kServer4, b::kProtoTcp, 40000, 80);
    EXPECT_NE(base, id(kClient4, kServer4, b::kProtoTcp, 40001, 80));
    EXPECT_NE(base, id(kClient4, kServer4, b::kProtoTcp, 40000, 81));
    EXPECT_NE(base, id(kClient4, kServer4, b::kProtoUdp, 40000, 80));
    EXPECT_NE(base, id(b::ip4(10, 1, 2, 4), kServer4, b::kProtoTcp, 40000, 80));
    EXPECT_NE(base, id(kClient4, b::ip4(192, 0, 2, 81), b::kProtoTcp, 40000, 80));
    // Not symmetric in the wrong way: (A:1 -> B:2) differs from (A:2 -> B:1).
    EXPECT_NE(id(kClient4, kServer4, b::kProtoTcp, 1, 2), id(kClient4, kServer4, b::kProtoTcp, 2, 1));
    // IPv4 vs IPv6 with the same leading bytes.
    const uint8_t a[16] = {10, 1, 2, 3}, z[16] = {192, 0, 2, 80};
    EXPECT_NE(flow_hash(4, 6, a, 1, z, 2), flow_hash(6, 6, a, 1, z, 2));
    // 1000 client ports: no collisions.
    std::set<uint64_t> ids;
    for (uint16_t p = 1000; p < 2000; ++p) ids.insert(flow_hash(4, 6, a, p, z, 80));
    EXPECT_EQ(ids.size(), 1000u);
}

TEST(Builder, ChecksumsVerify) {
    const Bytes ip = b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(1, 2), kData));
    EXPECT_EQ(b::internet_checksum(ip.data(), 20), 0); // header checksum
    // TCP: pseudo header (src, dst, proto, length) + segment sums to 0xffff.
    Bytes pseudo(ip.begin() + 12, ip.begin() + 20);
    pseudo.insert(pseudo.end(), {0, 6, 0, uint8_t(ip.size() - 20)});
    pseudo.insert(pseudo.end(), ip.begin() + 20, ip.end());
    EXPECT_EQ(b::internet_checksum(pseudo.data(), pseudo.size()), 0);
    const Bytes icmp = b::icmp_echo(true, 1, 2, kData);
    EXPECT_EQ(b::internet_checksum(icmp.data(), icmp.size()), 0);
}

} // namespace
} // namespace wm::capture::test
