// tests/capture/test_tunnel_carrier.cpp - the outermost tunnel's carrier
// (FrameLayers::outer, wm_packet_t::tunnel; Suricata's EVE "tunnel"): the
// packet that carried the first tunnel, whatever is nested inside it, and
// the depth of the decoded packet. Every reader points a tunnelled packet
// at its carrier, and any other packet at nothing.
#include "pcap_files.h"
#include "tunnel_test_util.h"
#include "window_reads.h"

#include <optional>

namespace wm::capture::test {
namespace {

namespace b = build;

const b::Ip4 kOuterSrc = b::ip4(198, 51, 100, 1), kOuterDst = b::ip4(198, 51, 100, 2); // outer4's
constexpr uint8_t kIpip = 4, kIpv6InIp = 41, kUdp = 17;

wm_tunnel_t carrier(uint8_t version, uint8_t proto, wm_tunnel_kind kind, const b::Ip6 &src, const b::Ip6 &dst,
                    uint16_t sport, uint16_t dport, uint8_t depth) {
    wm_tunnel_t t{};
    t.ip_version = version;
    t.proto = proto;
    t.depth = depth;
    t.kind = static_cast<uint8_t>(kind);
    std::copy(src.begin(), src.end(), t.src_ip);
    std::copy(dst.begin(), dst.end(), t.dst_ip);
    t.src_port = sport;
    t.dst_port = dport;
    return t;
}
// outer4's addresses carrying `proto`, opening a tunnel of `kind`.
wm_tunnel_t outer4_carrier(uint8_t proto, wm_tunnel_kind kind, uint8_t depth, uint16_t sport = 0,
                           uint16_t dport = 0) {
    return carrier(4, proto, kind, b::as16(kOuterSrc), b::as16(kOuterDst), sport, dport, depth);
}

void expect_carrier(const Layered &l, const wm_tunnel_t &want) {
    ASSERT_EQ(l.d.rc, kDecodedPayload);
    ASSERT_EQ(l.where.tunnels, want.depth);
    EXPECT_TRUE(same_carrier(tunnel_of(l.where), want));
    EXPECT_EQ(l.d.pkt.tunnel, nullptr); // the decoder keeps no carrier: the readers point at theirs
}

Bytes gre_ip(const Bytes &ip) { return b::concat({0, 0, 0x08, 0x00}, ip); }

TEST(TunnelCarrier, IpInIpAndGreAreCarriedByTheOuterPacket) {
    expect_carrier(decode_layers(kDltRaw, outer4(kIpip, inner4())), outer4_carrier(kIpip, WM_TUNNEL_IP_IN_IP, 1));
    expect_carrier(decode_layers(kDltRaw, outer4(kIpv6InIp, inner6())), outer4_carrier(kIpv6InIp, WM_TUNNEL_IP_IN_IP, 1));
    expect_carrier(decode_layers(kDltRaw, outer4(b::kProtoGre, gre_ip(inner4()))), outer4_carrier(b::kProtoGre, WM_TUNNEL_GRE, 1));
    // IPv4 in IPv6: the carrier's addresses are 16 bytes.
    const Bytes six = b::ethernet_ip(b::ipv6(v6(), kIpip, inner4()));
    expect_carrier(decode_layers(kDltEthernet, six), carrier(6, kIpip, WM_TUNNEL_IP_IN_IP, kClient6, kServer6, 0, 0, 1));
}

TEST(TunnelCarrier, UdpTunnelsCarryTheirPorts) {
    const Bytes f = udp_frame(50000, 4789, vxlan(0x08, b::ethernet_ip(inner4())));
    expect_carrier(decode_layers(kDltEthernet, f), outer4_carrier(kUdp, WM_TUNNEL_VXLAN, 1, 50000, 4789));
    const Bytes mpls = udp_frame(50001, 6635, labels({16}, inner4())); // MPLS over UDP
    expect_carrier(decode_layers(kDltEthernet, mpls), outer4_carrier(kUdp, WM_TUNNEL_MPLS_UDP, 1, 50001, 6635));
}

// Nested: the outermost carrier, whatever carries the packet inside it.
TEST(TunnelCarrier, TheOutermostOfNestedTunnels) {
    const Bytes ipip = b::ipv4(v4(b::ip4(203, 0, 113, 1), b::ip4(203, 0, 113, 2)), kIpip, inner4());
    const Bytes inner_vxlan = outer4(kUdp, b::udp(50002, 4789, vxlan(0x08, b::ethernet_ip(ipip))));
    const Bytes f = udp_frame(50001, 4789, vxlan(0x08, b::ethernet_ip(inner_vxlan)));
    expect_carrier(decode_layers(kDltEthernet, f), outer4_carrier(kUdp, WM_TUNNEL_VXLAN, 3, 50001, 4789));
    const Bytes in_gre = outer4(b::kProtoGre, gre_ip(ipip));
    expect_carrier(decode_layers(kDltRaw, in_gre), outer4_carrier(b::kProtoGre, WM_TUNNEL_GRE, 2));
}

// An MPLS pseudowire on the link has no IP packet around it; in GRE, GRE's
// carrier is the outermost.
TEST(TunnelCarrier, APseudowireOnTheLinkHasNoIpCarrier) {
    const Bytes pw = labels({100}, b::concat(Bytes{0, 0, 0, 1}, b::ethernet_ip(inner4())));
    expect_carrier(decode_layers(kDltEthernet, b::ethernet(0x8847, pw)), carrier(0, 0, WM_TUNNEL_MPLS_PSEUDOWIRE, {}, {}, 0, 0, 1));
    const Bytes gre_mpls = b::concat({0, 0, 0x88, 0x47}, pw);
    expect_carrier(decode_layers(kDltRaw, outer4(b::kProtoGre, gre_mpls)), outer4_carrier(b::kProtoGre, WM_TUNNEL_GRE, 2));
}

TEST(TunnelCarrier, NoTunnelNoCarrier) {
    const wm_tunnel_t stale = outer4_carrier(kIpip, WM_TUNNEL_IP_IN_IP, 1);
    wm_packet_t p{};
    p.tunnel = &stale; // a reused packet: the decoder clears what an earlier frame left
    const Bytes plain = b::ethernet_ip(inner4());
    FrameLayers where;
    ASSERT_EQ(decode_frame(kDltEthernet, plain.data(), uint32_t(plain.size()), &p, &where), kDecodedPayload);
    EXPECT_EQ(where.tunnels, 0);
    EXPECT_EQ(p.tunnel, nullptr);
}

// Record i's frame and its carrier: plain, VXLAN, GRE and IP in IP in turn,
// payloads of several sizes so that windows cut between them.
struct Record {
    Bytes frame;
    std::optional<wm_tunnel_t> carrier;
};
Record record(int i) {
    const std::string text(size_t(1 + i % 97), char('a' + i % 26));
    const Bytes ip = b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(uint16_t(1000 + i), 80), b::bytes(text)));
    switch (i % 4) {
    case 1: return {udp_frame(uint16_t(40000 + i), 4789, vxlan(0x08, b::ethernet_ip(ip))),
                    outer4_carrier(kUdp, WM_TUNNEL_VXLAN, 1, uint16_t(40000 + i), 4789)};
    case 2: return {b::ethernet_ip(outer4(b::kProtoGre, gre_ip(ip))), outer4_carrier(b::kProtoGre, WM_TUNNEL_GRE, 1)};
    case 3: return {b::ethernet_ip(outer4(kIpip, ip)), outer4_carrier(kIpip, WM_TUNNEL_IP_IN_IP, 1)};
    default: return {b::ethernet_ip(ip), std::nullopt};
    }
}

// The plain read, then the window reader in every configuration, packed
// and in place: each tunnelled packet points at its own carrier.
TEST(TunnelCarrier, EveryReaderPointsTunnelledPacketsAtTheirCarrier) {
    const std::string path = temp_path("tunnels.pcap");
    constexpr int kRecords = 400;
    {
        PcapWriter w(path, kLinktypeEthernet);
        for (int i = 1; i <= kRecords; ++i) w.write(record(i).frame, uint32_t(i), 0);
        w.close();
    }
    const Seen want = read_plain(path);
    ASSERT_EQ(want.packets.size(), size_t(kRecords));
    for (int i = 1; i <= kRecords; ++i) {
        const std::optional<wm_tunnel_t> &got = want.tunnels[size_t(i - 1)], expected = record(i).carrier;
        ASSERT_EQ(got.has_value(), expected.has_value()) << "record " << i;
        if (expected) EXPECT_TRUE(same_carrier(*got, *expected)) << "record " << i;
    }
    for (const Config &c : kConfigs)
        for (const Layout layout : {Layout::Packed, Layout::InPlace}) {
            SCOPED_TRACE(std::to_string(c.window) + " bytes, " + std::to_string(c.threads) + " threads");
            expect_same(want, read_windows(path, c.window, c.threads, {}, nullptr, layout));
        }
}

} // namespace
} // namespace wm::capture::test
