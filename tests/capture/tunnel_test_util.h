// tests/capture/tunnel_test_util.h - the packets the tunnel tests carry and
// what they expect of the innermost one (test_decoder_tunnels.cpp,
// test_decoder_udp_tunnels.cpp, test_decoder_link_carriers.cpp).
#pragma once

#include "capture_test_util.h"

namespace wm::capture::test {

inline const Bytes kHttp = build::bytes("GET /tunnelled HTTP/1.1\r\n\r\n");

// The innermost packet of every test: 10.1.2.3:40000 -> 192.0.2.80:80, HTTP.
inline Bytes inner4() { return build::ipv4(v4(), build::kProtoTcp, build::tcp(tcp_ports(40000, 80), kHttp)); }
inline Bytes inner6() { return build::ipv6(v6(), build::kProtoUdp, build::udp(5353, 53, kHttp)); }
// The outer packet: 198.51.100.1 -> 198.51.100.2 carrying `proto`.
inline Bytes outer4(uint8_t proto, const Bytes &l4) {
    return build::ipv4(v4(build::ip4(198, 51, 100, 1), build::ip4(198, 51, 100, 2)), proto, l4);
}

// An Ethernet frame 198.51.100.1:sport -> 198.51.100.2:dport carrying `payload` in UDP.
inline Bytes udp_frame(uint16_t sport, uint16_t dport, const Bytes &payload) {
    return build::ethernet_ip(outer4(build::kProtoUdp, build::udp(sport, dport, payload)));
}
// A VXLAN header (flags, VNI 0x1234) and the frame it carries.
inline Bytes vxlan(uint8_t flags, const Bytes &frame) {
    return build::concat({flags, 0, 0, 0, 0, 0x12, 0x34, 0}, frame);
}

// An MPLS label stack entry: label, traffic class 0, bottom-of-stack bit, TTL 64.
inline Bytes mpls_label(uint32_t value, bool bottom) {
    return {uint8_t(value >> 12), uint8_t(value >> 4), uint8_t((value & 0xf) << 4 | (bottom ? 1 : 0)), 64};
}
// A label stack, its last entry the bottom, then what it carries.
inline Bytes labels(std::initializer_list<uint32_t> stack, const Bytes &payload) {
    Bytes out;
    size_t k = 0;
    for (uint32_t v : stack) out = build::concat(out, mpls_label(v, ++k == stack.size()));
    return build::concat(out, payload);
}

struct Layered {
    Decoded d;
    FrameLayers where;
};
inline Layered decode_layers(int dlt, const Bytes &frame, size_t caplen = SIZE_MAX) {
    Layered l;
    l.d = decode(dlt, frame, caplen);
    wm_packet_t p{};
    decode_frame(dlt, l.d.frame->data(), uint32_t(l.d.frame->size()), &p, &l.where);
    return l;
}

// The inner TCP packet decoded at inner_ip (offset of its IP header in the frame).
inline void expect_inner4(const Layered &l, int64_t inner_ip, int tunnels) {
    const Decoded &d = l.d;
    ASSERT_EQ(d.rc, kDecodedPayload);
    expect_client_tcp4(d.pkt);
    EXPECT_EQ(d.payload(), kHttp);
    EXPECT_EQ(d.pkt.payload_offset, uint64_t(inner_ip) + 40);
    EXPECT_EQ(d.pkt.flow_id, flow_hash_vlans(flow_hash(4, WM_PROTO_TCP, d.pkt.src_ip, 40000, d.pkt.dst_ip, 80),
                                             l.where.vlans));
    EXPECT_EQ(l.where.ip_offset, inner_ip);
    EXPECT_EQ(l.where.tunnels, tunnels);
}

} // namespace wm::capture::test
