// tests/capture/test_decoder_tunnels.cpp - IP in IP and GRE: the decoder
// enters each tunnel and decodes the innermost packet, with its bounds,
// depth limit and what it reports on the way (capture::FrameLayers).
#include "tunnel_test_util.h"

namespace wm::capture::test {
namespace {

namespace b = build;

constexpr uint8_t kProtoIpip = 4, kProtoIpv6InIp = 41;

// A GRE header (flags and version, protocol type, the optional words
// already in `fields`) and what it carries.
Bytes gre(uint16_t flags, uint16_t type, const Bytes &fields, const Bytes &payload) {
    Bytes g{uint8_t(flags >> 8), uint8_t(flags), uint8_t(type >> 8), uint8_t(type)};
    g.insert(g.end(), fields.begin(), fields.end());
    g.insert(g.end(), payload.begin(), payload.end());
    return g;
}

TEST(DecoderTunnels, IpInIp) {
    expect_inner4(decode_layers(kDltRaw, outer4(kProtoIpip, inner4())), 20, 1);
    const Layered six = decode_layers(kDltRaw, outer4(kProtoIpv6InIp, inner6())); // 6in4
    ASSERT_EQ(six.d.rc, kDecodedPayload);
    EXPECT_EQ(six.d.pkt.ip_version, 6);
    EXPECT_EQ(six.d.pkt.dst_port, 53);
    EXPECT_EQ(six.d.payload(), kHttp);
    EXPECT_EQ(six.where.ip_offset, 20);
    // IPv4 in IPv6, in an Ethernet frame
    const Bytes f = b::ethernet_ip(b::ipv6(v6(), kProtoIpip, inner4()));
    expect_inner4(decode_layers(kDltEthernet, f), 14 + 40, 1);
}

TEST(DecoderTunnels, GreCarryingIp) {
    const Bytes key_seq{0, 0, 0, 7, 0, 0, 0, 1};
    expect_inner4(decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0, 0x0800, {}, inner4()))), 24, 1);
    expect_inner4(decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0x3000, 0x0800, key_seq, inner4()))), 32, 1);
    const Bytes checksum{0, 0, 0, 0};
    const Layered six = decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0x8000, 0x86dd, checksum, inner6())));
    ASSERT_EQ(six.d.rc, kDecodedPayload);
    EXPECT_EQ(six.d.pkt.ip_version, 6);
    EXPECT_EQ(six.d.payload(), kHttp);
    EXPECT_EQ(six.where.ip_offset, 28);
}

// Transparent Ethernet bridging and ERSPAN carry a whole frame. The flow
// id takes the outer frame's VLAN ids, not the carried frame's (a
// reassembled outer datagram would have none to go by).
TEST(DecoderTunnels, GreCarryingEthernet) {
    const Bytes tagged = b::ethernet_ip(inner4(), {{0x8100, 33}});
    const Layered teb = decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0, 0x6558, {}, tagged)));
    expect_inner4(teb, 20 + 4 + 18, 1);
    EXPECT_EQ(teb.where.vlans, 0u);
    const Layered outer_tag = decode_layers(kDltEthernet, b::ethernet_ip(outer4(b::kProtoGre, gre(0, 0x6558, {}, tagged)),
                                                                         {{0x8100, 7}}));
    expect_inner4(outer_tag, 18 + 20 + 4 + 18, 1);
    EXPECT_EQ(outer_tag.where.vlans, 7u);
    EXPECT_EQ(outer_tag.where.vlan_tags, 1);

    const Bytes plain = b::ethernet_ip(inner4());
    const Bytes erspan2(8, 0), erspan3(12, 0), seq{0, 0, 0, 9};
    Bytes erspan3_o(12, 0);
    erspan3_o[11] = 1; // the O flag: an 8-byte platform subheader follows
    erspan3_o.resize(20, 0);
    expect_inner4(decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0, 0x88be, {}, plain))), 24 + 14, 1); // type I
    Bytes fields = seq;
    fields.insert(fields.end(), erspan2.begin(), erspan2.end());
    expect_inner4(decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0x1000, 0x88be, fields, plain))), 36 + 14, 1);
    fields = seq;
    fields.insert(fields.end(), erspan3.begin(), erspan3.end());
    expect_inner4(decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0x1000, 0x22eb, fields, plain))), 40 + 14, 1);
    fields = seq;
    fields.insert(fields.end(), erspan3_o.begin(), erspan3_o.end());
    expect_inner4(decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0x1000, 0x22eb, fields, plain))), 48 + 14, 1);
}

// PPTP: enhanced GRE (version 1) with PPP, its address/control bytes and
// protocol field in full or compressed.
TEST(DecoderTunnels, PptpGreCarryingPpp) {
    const Bytes ip = inner4();
    const Bytes key{uint8_t(ip.size() >> 8), uint8_t(ip.size()), 0x12, 0x34}; // payload length, call id
    Bytes seq_ack = key;
    for (uint8_t x : {0, 0, 0, 5, 0, 0, 0, 4}) seq_ack.push_back(x);
    Bytes full{0xff, 0x03, 0x00, 0x21};
    full.insert(full.end(), ip.begin(), ip.end());
    expect_inner4(decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0x3081, 0x880b, seq_ack, full))), 40, 1);
    Bytes compressed{0x21};
    compressed.insert(compressed.end(), ip.begin(), ip.end());
    expect_inner4(decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0x2001, 0x880b, key, compressed))), 29, 1);
    // An acknowledgement alone (payload length 0) and PPP control traffic carry no IP.
    const Bytes ack_only{0, 0, 0x12, 0x34, 0, 0, 0, 4};
    EXPECT_EQ(decode(kDltRaw, outer4(b::kProtoGre, gre(0x2081, 0x880b, ack_only, {}))).rc, WM_SKIP_OTHER_PROTO);
    const Bytes lcp{0xff, 0x03, 0xc0, 0x21, 1, 1, 0, 4};
    EXPECT_EQ(decode(kDltRaw, outer4(b::kProtoGre, gre(0x2001, 0x880b, key, lcp))).rc, WM_SKIP_OTHER_PROTO);
}

// MPLS in GRE (RFC 4023): the label stack as after a link header, bounded
// by the GRE packet; a pseudowire's Ethernet frame is a second tunnel.
TEST(DecoderTunnels, GreCarryingMpls) {
    expect_inner4(decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0, 0x8847, {}, labels({16, 17}, inner4())))),
                  24 + 8, 1);
    expect_inner4(decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0, 0x8848, {}, labels({0}, inner4())))), 24 + 4, 1);
    const Layered six = decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0, 0x8847, {}, labels({2}, inner6()))));
    ASSERT_EQ(six.d.rc, kDecodedPayload);
    EXPECT_EQ(six.d.pkt.ip_version, 6);
    EXPECT_EQ(six.d.payload(), kHttp);
    EXPECT_EQ(six.where.tunnels, 1);
    const Bytes pseudowire = labels({100}, b::concat(Bytes{0, 0, 0, 1}, b::ethernet_ip(inner4(), {{0x8100, 7}})));
    const Layered pw = decode_layers(kDltRaw, outer4(b::kProtoGre, gre(0, 0x8847, {}, pseudowire)));
    expect_inner4(pw, 24 + 4 + 4 + 18, 2);
    EXPECT_EQ(pw.where.vlans, 0u); // the carried frame's tag is not the capture's
    // The stack cut by the capture is truncated; run past the GRE packet's length, malformed.
    const Bytes p = outer4(b::kProtoGre, gre(0, 0x8847, {}, labels({16, 17}, inner4())));
    for (size_t cut = 24; cut < 24 + 9; ++cut) EXPECT_EQ(decode(kDltRaw, p, cut).rc, WM_SKIP_TRUNCATED) << cut;
    Bytes short_outer = p;
    short_outer[2] = 0, short_outer[3] = 30; // total length 30: the second label runs past it
    EXPECT_EQ(decode(kDltRaw, short_outer).rc, WM_SKIP_MALFORMED);
}

TEST(DecoderTunnels, WhatIsNotEnteredIsOtherProtocol) {
    EXPECT_EQ(decode(kDltRaw, outer4(b::kProtoGre, gre(0, 0x883e, {}, Bytes(24, 0)))).rc,
              WM_SKIP_OTHER_PROTO); // WCCP
    EXPECT_EQ(decode(kDltRaw, outer4(b::kProtoGre, gre(0x4000, 0x0800, Bytes(4, 0), inner4()))).rc,
              WM_SKIP_OTHER_PROTO); // RFC 1701 routing
    EXPECT_EQ(decode(kDltRaw, outer4(b::kProtoGre, gre(0x0002, 0x0800, {}, inner4()))).rc, WM_SKIP_OTHER_PROTO);
    EXPECT_EQ(decode(kDltRaw, outer4(b::kProtoGre, gre(0x0001, 0x0800, Bytes(4, 0), inner4()))).rc,
              WM_SKIP_OTHER_PROTO); // version 1 without its key
}

TEST(DecoderTunnels, DepthIsBounded) {
    Bytes p = inner4();
    for (int k = 0; k < 4; ++k) p = outer4(kProtoIpip, p);
    expect_inner4(decode_layers(kDltRaw, p), 80, 4);
    EXPECT_EQ(decode(kDltRaw, outer4(kProtoIpip, p)).rc, WM_SKIP_MALFORMED);
}

// A tunnel's headers follow the same two limits as any header: cut by the
// capture is truncated, outside the declared packet malformed; an inner
// packet that claims more than its tunnel carries reads as cut there.
TEST(DecoderTunnels, BoundsOfTheTunnel) {
    const Bytes p = outer4(b::kProtoGre, gre(0x3000, 0x0800, Bytes(8, 0), inner4()));
    for (size_t cut = 20; cut < 32 + 40; ++cut)
        EXPECT_EQ(decode(kDltRaw, p, cut).rc, WM_SKIP_TRUNCATED) << "caplen " << cut;
    Bytes short_outer = p;
    short_outer[3] = 26; // total length 26: the GRE header's key runs past it
    EXPECT_EQ(decode(kDltRaw, short_outer).rc, WM_SKIP_MALFORMED);
    Bytes inner_too_long = outer4(kProtoIpip, inner4());
    inner_too_long[20 + 3] += 8; // the inner packet claims 8 bytes its tunnel does not carry
    const Decoded cut = decode(kDltRaw, inner_too_long);
    ASSERT_EQ(cut.rc, kDecodedPayload);
    EXPECT_EQ(cut.payload(), kHttp);
    // The outer packet a fragment: not entered (the stream layer reassembles it first).
    Bytes frag = p;
    frag[6] = 0x20; // more fragments
    const Layered l = decode_layers(kDltRaw, frag);
    EXPECT_EQ(l.d.rc, WM_SKIP_FRAGMENT);
    EXPECT_EQ(l.where.ip_offset, 0);
    EXPECT_EQ(l.where.tunnels, 0);
}

} // namespace
} // namespace wm::capture::test
