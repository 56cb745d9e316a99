// tests/capture/test_decoder_links.cpp - every link type and VLAN path,
// with the exact decoded fields.
#include "capture_test_util.h"

namespace wm::capture::test {
namespace {

namespace b = build;

const Bytes kHttp = b::bytes("GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n");

Bytes ip4_tcp() { return b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(40000, 80), kHttp)); }
Bytes ip6_udp() { return b::ipv6(v6(), b::kProtoUdp, b::udp(5353, 53, kHttp)); }

void expect_ip4_tcp(const Decoded &d, uint32_t offset) {
    ASSERT_EQ(d.rc, kDecodedPayload);
    expect_client_tcp4(d.pkt);
    EXPECT_EQ(d.pkt.payload_offset, offset);
    EXPECT_EQ(d.payload(), kHttp);
    EXPECT_EQ(d.pkt.payload, d.frame->data() + offset);
    EXPECT_NE(d.pkt.flow_id, 0u);
}

void expect_ip6_udp(const Decoded &d, uint32_t offset) {
    ASSERT_EQ(d.rc, kDecodedPayload);
    EXPECT_EQ(d.pkt.ip_version, 6);
    EXPECT_EQ(d.pkt.proto, WM_PROTO_UDP);
    EXPECT_EQ(0, std::memcmp(d.pkt.src_ip, kClient6.data(), 16));
    EXPECT_EQ(0, std::memcmp(d.pkt.dst_ip, kServer6.data(), 16));
    EXPECT_EQ(d.pkt.src_port, 5353);
    EXPECT_EQ(d.pkt.dst_port, 53);
    EXPECT_EQ(d.pkt.payload_offset, offset);
    EXPECT_EQ(d.payload(), kHttp);
}

TEST(DecoderLinks, EthernetIpv4Tcp) {
    expect_ip4_tcp(decode(kDltEthernet, b::ethernet_ip(ip4_tcp())), 14 + 20 + 20);
}

TEST(DecoderLinks, EthernetIpv6Udp) {
    expect_ip6_udp(decode(kDltEthernet, b::ethernet_ip(ip6_udp())), 14 + 40 + 8);
}

TEST(DecoderLinks, EthernetPaddingIsNotPayload) {
    const Bytes ip = b::ipv4(v4(), b::kProtoUdp, b::udp(1000, 2000, b::bytes("hi")));
    const Bytes frame = b::ethernet_ip(ip);
    ASSERT_EQ(frame.size(), 60u); // 14 + 30, padded by 16 bytes
    const Decoded d = decode(kDltEthernet, frame);
    ASSERT_EQ(d.rc, kDecodedPayload);
    EXPECT_EQ(d.payload(), b::bytes("hi"));
    EXPECT_EQ(d.pkt.payload_offset, 42u);
}

TEST(DecoderLinks, SingleVlanTag) {
    expect_ip4_tcp(decode(kDltEthernet, b::ethernet_ip(ip4_tcp(), {{0x8100, 100}})), 18 + 40);
}

TEST(DecoderLinks, QinQ88a8Over8100) {
    const Bytes f = b::ethernet_ip(ip6_udp(), {{0x88a8, 10}, {0x8100, 20}});
    expect_ip6_udp(decode(kDltEthernet, f), 22 + 48);
}

TEST(DecoderLinks, PreStandardQinQ9100ThreeDeep) {
    const Bytes f = b::ethernet_ip(ip4_tcp(), {{0x9100, 1}, {0x9100, 2}, {0x8100, 3}});
    expect_ip4_tcp(decode(kDltEthernet, f), 26 + 40);
}

// The flow id carries the first two VLAN ids: one 5-tuple on two VLANs is
// two flows (the stream layer keys them so too), both directions on one
// VLAN one flow; the priority bits and tags past the second do not count.
TEST(DecoderLinks, FlowIdTellsVlansApart) {
    const Bytes rev = b::ipv4(v4(kServer4, kClient4), b::kProtoTcp, b::tcp(tcp_ports(80, 40000), kHttp));
    auto id = [](const Bytes &ip, std::vector<b::VlanTag> tags) {
        const Decoded d = decode(kDltEthernet, b::ethernet_ip(ip, tags));
        EXPECT_EQ(d.rc, kDecodedPayload);
        return d.pkt.flow_id;
    };
    const uint64_t untagged = id(ip4_tcp(), {}), v10 = id(ip4_tcp(), {{0x8100, 10}});
    const uint64_t v20 = id(ip4_tcp(), {{0x8100, 20}}), q = id(ip4_tcp(), {{0x88a8, 10}, {0x8100, 20}});
    EXPECT_EQ(untagged, id(rev, {}));
    EXPECT_NE(untagged, v10);
    EXPECT_NE(v10, v20);
    EXPECT_NE(q, v10);
    EXPECT_NE(q, v20);
    EXPECT_EQ(v10, id(rev, {{0x8100, 10}}));
    EXPECT_EQ(v10, id(ip4_tcp(), {{0x8100, 0xe000 | 10}}));
    EXPECT_EQ(q, id(rev, {{0x88a8, 10}, {0x8100, 20}, {0x8100, 30}}));
    EXPECT_EQ(v10, flow_hash_vlans(untagged, 10));
    EXPECT_EQ(untagged, flow_hash_vlans(untagged, 0));
    // The ids as FrameLayers reports them (the stream layer's flow and fragment keys).
    auto layers = [](std::vector<b::VlanTag> tags) {
        const Bytes f = b::ethernet_ip(ip4_tcp(), tags);
        FrameLayers where;
        wm_packet_t p{};
        EXPECT_EQ(decode_frame(kDltEthernet, f.data(), uint32_t(f.size()), &p, &where), kDecodedPayload);
        EXPECT_EQ(where.ip_offset, int64_t(14 + 4 * tags.size()));
        return where.vlans;
    };
    EXPECT_EQ(layers({}), 0u);
    EXPECT_EQ(layers({{0x8100, 0xe000 | 10}}), 10u);
    EXPECT_EQ(layers({{0x88a8, 10}, {0x8100, 20}, {0x8100, 30}}), (10u << 12) | 20u);
}

// The packet's own VLAN fields (EVE's "vlan"): the first two ids, outermost
// first, a priority tag (id 0) counted as the tag it is; set also when the
// frame has no payload.
TEST(DecoderLinks, PacketCarriesItsVlanIds) {
    auto vlans = [](std::vector<b::VlanTag> tags, const Bytes &ip) {
        const Decoded d = decode(kDltEthernet, b::ethernet_ip(ip, tags));
        return std::vector<uint16_t>(d.pkt.vlan, d.pkt.vlan + d.pkt.vlan_count);
    };
    using Ids = std::vector<uint16_t>;
    EXPECT_EQ(vlans({}, ip4_tcp()), Ids{});
    EXPECT_EQ(vlans({{0x8100, 0xe000 | 10}}, ip4_tcp()), Ids{10});
    EXPECT_EQ(vlans({{0x8100, 0}}, ip4_tcp()), Ids{0});
    EXPECT_EQ(vlans({{0x88a8, 10}, {0x8100, 20}, {0x8100, 30}}, ip4_tcp()), (Ids{10, 20}));
    b::TcpSpec syn = tcp_ports(40000, 80);
    syn.flags = b::kSyn;
    EXPECT_EQ(vlans({{0x8100, 4094}}, b::ipv4(v4(), b::kProtoTcp, b::tcp(syn, {}))), Ids{4094});
    const Decoded d = decode(kDltEthernet, b::ethernet_ip(ip4_tcp(), {{0x8100, 5}}), 30); // cut: fields still reset
    EXPECT_EQ(d.rc, WM_SKIP_TRUNCATED);
    EXPECT_EQ(d.pkt.vlan_count, 1);
}

TEST(DecoderLinks, VlanDepthIsBounded) {
    const std::vector<b::VlanTag> eight(8, b::VlanTag{0x8100, 7});
    expect_ip4_tcp(decode(kDltEthernet, b::ethernet_ip(ip4_tcp(), eight)), 14 + 32 + 40);
    const std::vector<b::VlanTag> nine(9, b::VlanTag{0x8100, 7});
    EXPECT_EQ(decode(kDltEthernet, b::ethernet_ip(ip4_tcp(), nine)).rc, WM_SKIP_MALFORMED);
}

TEST(DecoderLinks, NonIpEthertypes) {
    EXPECT_EQ(decode(kDltEthernet, b::arp_request(b::kMacA, kClient4, kServer4)).rc, WM_SKIP_NOT_IP);
    EXPECT_EQ(decode(kDltEthernet, b::ethernet(0x88cc, Bytes(30, 1))).rc, WM_SKIP_NOT_IP); // LLDP
    // 802.3 length field + LLC (STP): not an ethertype at all.
    EXPECT_EQ(decode(kDltEthernet, b::ethernet(0x0026, Bytes{0x42, 0x42, 0x03})).rc, WM_SKIP_NOT_IP);
    // ARP behind a VLAN tag.
    EXPECT_EQ(decode(kDltEthernet, b::ethernet(0x0806, Bytes(28, 0), {{0x8100, 5}})).rc,
              WM_SKIP_NOT_IP);
}

TEST(DecoderLinks, EthertypeAndVersionMustAgree) {
    // Ethertype says IPv4, the header is IPv6.
    EXPECT_EQ(decode(kDltEthernet, b::ethernet(0x0800, ip6_udp())).rc, WM_SKIP_MALFORMED);
    EXPECT_EQ(decode(kDltEthernet, b::ethernet(0x86dd, ip4_tcp())).rc, WM_SKIP_MALFORMED);
}

TEST(DecoderLinks, LinuxSll) {
    expect_ip4_tcp(decode(kDltLinuxSll, b::sll(0x0800, ip4_tcp())), 16 + 40);
    expect_ip6_udp(decode(kDltLinuxSll, b::sll(0x86dd, ip6_udp())), 16 + 48);
    EXPECT_EQ(decode(kDltLinuxSll, b::sll(0x0806, Bytes(28, 0))).rc, WM_SKIP_NOT_IP);
    // A VLAN tag the kernel did not strip.
    const Bytes tagged = b::concat(Bytes{0x00, 0x64, 0x08, 0x00}, ip4_tcp());
    expect_ip4_tcp(decode(kDltLinuxSll, b::sll(0x8100, tagged)), 20 + 40);
}

TEST(DecoderLinks, LinuxSll2) {
    expect_ip4_tcp(decode(kDltLinuxSll2, b::sll2(0x0800, ip4_tcp())), 20 + 40);
    expect_ip6_udp(decode(kDltLinuxSll2, b::sll2(0x86dd, ip6_udp())), 20 + 48);
    EXPECT_EQ(decode(kDltLinuxSll2, b::sll2(0x0806, Bytes(28, 0))).rc, WM_SKIP_NOT_IP);
}

TEST(DecoderLinks, RawIpAllSpellings) {
    for (int dlt : {kDltRaw, kDltRawOpenBsd, kDltLinktypeRaw}) {
        SCOPED_TRACE(dlt);
        expect_ip4_tcp(decode(dlt, ip4_tcp()), 40);
        expect_ip6_udp(decode(dlt, ip6_udp()), 48);
    }
    expect_ip4_tcp(decode(kDltIpv4, ip4_tcp()), 40);
    expect_ip6_udp(decode(kDltIpv6, ip6_udp()), 48);
}

TEST(DecoderLinks, RawIpVersionChecks) {
    EXPECT_EQ(decode(kDltIpv4, ip6_udp()).rc, WM_SKIP_MALFORMED);
    EXPECT_EQ(decode(kDltIpv6, ip4_tcp()).rc, WM_SKIP_MALFORMED);
    Bytes v5 = ip4_tcp();
    v5[0] = 0x55;
    EXPECT_EQ(decode(kDltRaw, v5).rc, WM_SKIP_MALFORMED);
}

TEST(DecoderLinks, BsdLoopbackBothByteOrders) {
    for (int dlt : {kDltNull, kDltLoop}) {
        for (bool net : {false, true}) {
            SCOPED_TRACE(std::to_string(dlt) + (net ? " network order" : " host order"));
            expect_ip4_tcp(decode(dlt, b::loopback(2, ip4_tcp(), net)), 4 + 40);
            for (uint32_t af6 : {24u, 28u, 30u})
                expect_ip6_udp(decode(dlt, b::loopback(af6, ip6_udp(), net)), 4 + 48);
            EXPECT_EQ(decode(dlt, b::loopback(7, ip4_tcp(), net)).rc, WM_SKIP_NOT_IP);
        }
    }
    // AF_INET whose header is not IPv4.
    EXPECT_EQ(decode(kDltNull, b::loopback(2, ip6_udp(), false)).rc, WM_SKIP_MALFORMED);
}

TEST(DecoderLinks, UnsupportedLinkTypes) {
    for (int dlt : {6 /* token ring */, 192 /* PPI */, 147 /* user0 */, -1}) {
        SCOPED_TRACE(dlt);
        const Decoded d = decode(dlt, b::ethernet_ip(ip4_tcp()));
        EXPECT_EQ(d.rc, WM_SKIP_UNSUPPORTED_LINK);
        EXPECT_EQ(d.pkt.payload, nullptr);
    }
}

TEST(DecoderLinks, ShortLinkHeadersAreTruncated) {
    EXPECT_EQ(decode(kDltEthernet, Bytes(13, 0)).rc, WM_SKIP_TRUNCATED);
    EXPECT_EQ(decode(kDltLinuxSll, Bytes(15, 0)).rc, WM_SKIP_TRUNCATED);
    EXPECT_EQ(decode(kDltLinuxSll2, Bytes(19, 0)).rc, WM_SKIP_TRUNCATED);
    EXPECT_EQ(decode(kDltNull, Bytes(3, 2)).rc, WM_SKIP_TRUNCATED);
    EXPECT_EQ(decode(kDltRaw, Bytes{}).rc, WM_SKIP_TRUNCATED);
    wm_packet_t p{};
    EXPECT_EQ(decode_frame(kDltEthernet, nullptr, 0, &p), WM_SKIP_TRUNCATED);
}

} // namespace
} // namespace wm::capture::test
