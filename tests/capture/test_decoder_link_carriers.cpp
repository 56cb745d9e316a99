// tests/capture/test_decoder_link_carriers.cpp - MPLS label stacks and PPPoE
// sessions between the link header and IP: passed through to the packet
// they carry, with their bounds and what carries no IP.
#include "tunnel_test_util.h"

namespace wm::capture::test {
namespace {

namespace b = build;

constexpr uint16_t kMpls = 0x8847, kPppoeSession = 0x8864, kPppoeDiscovery = 0x8863;

// An MPLS label stack entry: label, traffic class 0, bottom-of-stack bit, TTL 64.
Bytes label(uint32_t value, bool bottom) {
    return {uint8_t(value >> 12), uint8_t(value >> 4), uint8_t((value & 0xf) << 4 | (bottom ? 1 : 0)), 64};
}
Bytes labels(std::initializer_list<uint32_t> stack, const Bytes &payload) {
    Bytes out;
    size_t k = 0;
    for (uint32_t v : stack) out = b::concat(out, label(v, ++k == stack.size()));
    return b::concat(out, payload);
}
// A PPPoE session header (version/type, code, session id, length) and PPP.
Bytes pppoe(uint16_t ppp_protocol, const Bytes &payload, uint8_t version_type = 0x11) {
    const size_t n = payload.size() + 2;
    return b::concat({version_type, 0, 0x12, 0x34, uint8_t(n >> 8), uint8_t(n), uint8_t(ppp_protocol >> 8),
                      uint8_t(ppp_protocol)},
                     payload);
}

TEST(DecoderLinkCarriers, MplsCarryingIp) {
    expect_inner4(decode_layers(kDltEthernet, b::ethernet(kMpls, labels({16}, inner4()))), 14 + 4, 0);
    expect_inner4(decode_layers(kDltEthernet, b::ethernet(kMpls, labels({16, 17, 18}, inner4()))), 14 + 12, 0);
    expect_inner4(decode_layers(kDltEthernet, b::ethernet(0x8848, labels({0}, inner4()))), 14 + 4, 0); // explicit null
    const Layered six = decode_layers(kDltEthernet, b::ethernet(kMpls, labels({300, 2}, inner6())));
    ASSERT_EQ(six.d.rc, kDecodedPayload);
    EXPECT_EQ(six.d.pkt.ip_version, 6);
    EXPECT_EQ(six.d.payload(), kHttp);
    // The explicit-null labels say which IP: an IPv4 header under IPv6's label is malformed.
    EXPECT_EQ(decode(kDltEthernet, b::ethernet(kMpls, labels({2}, inner4()))).rc, WM_SKIP_MALFORMED);
    // Inside a VLAN: the tag keys the flow.
    const Layered tagged = decode_layers(kDltEthernet, b::ethernet(kMpls, labels({16}, inner4()), {{0x8100, 5}}));
    expect_inner4(tagged, 18 + 4, 0);
    EXPECT_EQ(tagged.where.vlans, 5u);
}

// A pseudowire: a control word (first nibble 0), then an Ethernet frame,
// whose tags are its own (a tunnel, as GRE's bridged frames are).
TEST(DecoderLinkCarriers, MplsPseudowireCarryingEthernet) {
    const Bytes control_word{0, 0, 0, 1};
    const Bytes frame = b::ethernet_ip(inner4(), {{0x8100, 9}});
    const Bytes pseudowire = b::ethernet(kMpls, labels({100, 200}, b::concat(control_word, frame)));
    const Layered l = decode_layers(kDltEthernet, pseudowire);
    expect_inner4(l, 14 + 8 + 4 + 18, 1);
    EXPECT_EQ(l.where.vlans, 0u);
}

TEST(DecoderLinkCarriers, MplsBounds) {
    EXPECT_EQ(decode(kDltEthernet, b::ethernet(kMpls, labels({16}, b::bytes("\x12 not ip")))).rc, WM_SKIP_NOT_IP);
    Bytes deep = inner4();
    for (int k = 0; k < 8; ++k) deep = b::concat(label(16, false), deep);
    EXPECT_EQ(decode(kDltEthernet, b::ethernet(kMpls, deep)).rc, WM_SKIP_MALFORMED); // no bottom within 8 labels
    const Bytes f = b::ethernet(kMpls, labels({16, 17}, inner4()));
    for (size_t cut = 14; cut < 14 + 8 + 1; ++cut) EXPECT_EQ(decode(kDltEthernet, f, cut).rc, WM_SKIP_TRUNCATED);
}

TEST(DecoderLinkCarriers, PppoeSession) {
    expect_inner4(decode_layers(kDltEthernet, b::ethernet(kPppoeSession, pppoe(0x0021, inner4()))), 14 + 8, 0);
    const Layered six = decode_layers(kDltEthernet, b::ethernet(kPppoeSession, pppoe(0x0057, inner6()),
                                                                {{0x88a8, 10}, {0x8100, 20}}));
    ASSERT_EQ(six.d.rc, kDecodedPayload);
    EXPECT_EQ(six.d.pkt.ip_version, 6);
    EXPECT_EQ(six.d.payload(), kHttp);
    EXPECT_EQ(six.where.ip_offset, 22 + 8);
    EXPECT_EQ(six.where.vlans, 10u << 12 | 20u); // PPPoE over QinQ
    EXPECT_EQ(six.where.tunnels, 0);
    // PPP's own traffic (LCP), discovery, an unknown version.
    EXPECT_EQ(decode(kDltEthernet, b::ethernet(kPppoeSession, pppoe(0xc021, Bytes{1, 1, 0, 4}))).rc,
              WM_SKIP_OTHER_PROTO);
    EXPECT_EQ(decode(kDltEthernet, b::ethernet(kPppoeDiscovery, Bytes{0x11, 0x09, 0, 0, 0, 0})).rc, WM_SKIP_NOT_IP);
    EXPECT_EQ(decode(kDltEthernet, b::ethernet(kPppoeSession, pppoe(0x0021, inner4(), 0x21))).rc, WM_SKIP_MALFORMED);
    // A PPP header past the session's length is impossible; cut by the capture, truncated.
    Bytes short_len = b::ethernet(kPppoeSession, pppoe(0x0021, inner4()));
    short_len[14 + 4] = 0, short_len[14 + 5] = 1;
    EXPECT_EQ(decode(kDltEthernet, short_len).rc, WM_SKIP_MALFORMED);
    for (size_t cut = 14; cut < 14 + 8 + 1; ++cut)
        EXPECT_EQ(decode(kDltEthernet, b::ethernet(kPppoeSession, pppoe(0x0021, inner4())), cut).rc,
                  WM_SKIP_TRUNCATED);
}

} // namespace
} // namespace wm::capture::test
