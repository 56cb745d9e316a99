// tests/capture/test_decoder_link_carriers.cpp - MPLS label stacks, PPPoE
// sessions, PPP and 802.11 data frames (as link types, after radiotap, in
// Aruba's GRE): passed through to the packet they carry, with their bounds
// and what carries no IP.
#include "tunnel_test_util.h"

namespace wm::capture::test {
namespace {

namespace b = build;

constexpr uint16_t kMpls = 0x8847, kPppoeSession = 0x8864, kPppoeDiscovery = 0x8863;

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
    for (int k = 0; k < 8; ++k) deep = b::concat(mpls_label(16, false), deep);
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

TEST(DecoderLinkCarriers, PppLinks) {
    for (int dlt : {kDltPpp, kDltPppSerial}) {
        SCOPED_TRACE(dlt);
        expect_inner4(decode_layers(dlt, b::concat({0xff, 0x03, 0x00, 0x21}, inner4())), 4, 0);
        expect_inner4(decode_layers(dlt, b::concat({0x21}, inner4())), 1, 0); // compressed protocol field
        EXPECT_EQ(decode(dlt, Bytes{0xff, 0x03, 0xc0, 0x21, 1, 1, 0, 4}).rc, WM_SKIP_OTHER_PROTO); // LCP
        EXPECT_EQ(decode(dlt, Bytes{0xff}).rc, WM_SKIP_TRUNCATED);
    }
    // Link type 50 also carries Cisco HDLC (tcpdump.org's LINKTYPE_PPP_HDLC):
    // address 0x0f (unicast) or 0x8f (broadcast), control 0, an ethertype.
    for (uint8_t address : {0x0f, 0x8f}) {
        expect_inner4(decode_layers(kDltPppSerial, b::concat({address, 0x00, 0x08, 0x00}, inner4())), 4, 0);
        // On link type 9 that is a PPP protocol field of one byte, 0x0f or 0x8f: not IP.
        EXPECT_EQ(decode(kDltPpp, b::concat({address, 0x00, 0x08, 0x00}, inner4())).rc, WM_SKIP_OTHER_PROTO);
    }
}

// An 802.11 data frame: frame control, duration, three addresses, sequence
// control (fragment number `fragment`), then `fields` (a fourth address, QoS
// and HT control as the frame control says) and the body.
Bytes wifi(uint8_t fc0, uint8_t fc1, const Bytes &fields, const Bytes &body, uint8_t fragment = 0) {
    Bytes h{fc0, fc1, 0x2c, 0};
    for (int k = 0; k < 18; ++k) h.push_back(uint8_t(0x10 + k));
    h.push_back(uint8_t(0x40 | fragment));
    h.push_back(0x01);
    return b::concat(b::concat(h, fields), body);
}
// LLC/SNAP and an ethertype before `payload`.
Bytes snap(uint16_t type, const Bytes &payload) {
    return b::concat({0xaa, 0xaa, 0x03, 0, 0, 0, uint8_t(type >> 8), uint8_t(type)}, payload);
}
constexpr uint8_t kData = 0x08, kQosData = 0x88, kToDs = 0x01, kFromDs = 0x02;

TEST(DecoderLinkCarriers, Ieee80211DataFrames) {
    expect_inner4(decode_layers(kDltIeee80211, wifi(kData, kToDs, {}, snap(0x0800, inner4()))), 24 + 8, 0);
    // Four addresses, QoS control, HT control (the order bit).
    const Bytes fields = b::concat(Bytes(6, 0x77), Bytes{5, 0, 1, 2, 3, 4});
    expect_inner4(decode_layers(kDltIeee80211, wifi(kQosData, kToDs | kFromDs | 0x80, fields, snap(0x0800, inner4()))),
                  24 + 12 + 8, 0);
    // After a radiotap header (its length little-endian), a tagged IPv6 frame.
    const Bytes radiotap{0, 0, 12, 0, 0x02, 0, 0, 0, 0x10, 0x02, 0, 0};
    const Bytes tagged = snap(0x8100, b::concat({0, 9, 0x86, 0xdd}, inner6()));
    const Layered six = decode_layers(kDltRadiotap, b::concat(radiotap, wifi(kData, kFromDs, {}, tagged)));
    ASSERT_EQ(six.d.rc, kDecodedPayload);
    EXPECT_EQ(six.d.pkt.ip_version, 6);
    EXPECT_EQ(six.d.payload(), kHttp);
    EXPECT_EQ(six.where.ip_offset, 12 + 24 + 8 + 4);
    EXPECT_EQ(six.where.vlans, 9u);
    // An A-MSDU: the first subframe (destination, source, length) is decoded.
    const Bytes first = snap(0x0800, inner4());
    const Bytes subframe = b::concat(b::concat(Bytes(12, 0x33), Bytes{0, uint8_t(first.size())}), first);
    const Bytes amsdu = b::concat(subframe, Bytes(30, 0xee)); // padding and a second subframe
    expect_inner4(decode_layers(kDltIeee80211, wifi(kQosData, kToDs, {0x80, 0}, amsdu)), 24 + 2 + 14 + 8, 0);
}

TEST(DecoderLinkCarriers, Ieee80211FramesWithoutIp) {
    const Bytes body = snap(0x0800, inner4());
    EXPECT_EQ(decode(kDltIeee80211, wifi(kData, kToDs | 0x40, {}, body)).rc, WM_SKIP_NOT_IP);  // encrypted
    EXPECT_EQ(decode(kDltIeee80211, wifi(0x48, kToDs, {}, body)).rc, WM_SKIP_NOT_IP);          // null data
    EXPECT_EQ(decode(kDltIeee80211, wifi(0x80, 0, {}, body)).rc, WM_SKIP_NOT_IP);              // a beacon
    EXPECT_EQ(decode(kDltIeee80211, wifi(kData, kToDs, {}, b::concat({0x42, 0x42, 0x03}, body))).rc,
              WM_SKIP_NOT_IP); // LLC without SNAP (spanning tree)
    EXPECT_EQ(decode(kDltIeee80211, wifi(kData, kToDs | 0x04, {}, body)).rc, WM_SKIP_FRAGMENT); // more fragments
    EXPECT_EQ(decode(kDltIeee80211, wifi(kData, kToDs, {}, body, 1)).rc, WM_SKIP_FRAGMENT);    // fragment 1
    EXPECT_EQ(decode(kDltRadiotap, Bytes{0, 0, 4, 0, 0, 0, 0, 0}).rc, WM_SKIP_MALFORMED);      // header length < 8
    EXPECT_EQ(decode(kDltRadiotap, Bytes{0, 0, 8}).rc, WM_SKIP_TRUNCATED);
}

// Aruba's access points tunnel 802.11 frames in GRE (types 0x8200-0x8370 by
// 0x10, and 0x9000); the frame's own bounds still hold inside.
TEST(DecoderLinkCarriers, ArubaGreCarrying80211) {
    const auto aruba = [](uint16_t type, const Bytes &frame) {
        return b::ethernet_ip(outer4(b::kProtoGre, b::concat({0, 0, uint8_t(type >> 8), uint8_t(type)}, frame)));
    };
    const Bytes frame = wifi(kData, kToDs, {}, snap(0x0800, inner4()));
    for (uint16_t type : {0x8200, 0x8210, 0x8370, 0x9000})
        expect_inner4(decode_layers(kDltEthernet, aruba(type, frame)), 14 + 20 + 4 + 24 + 8, 1);
    EXPECT_EQ(decode(kDltEthernet, aruba(0x8201, frame)).rc, WM_SKIP_OTHER_PROTO);
    EXPECT_EQ(decode(kDltEthernet, aruba(0x8380, frame)).rc, WM_SKIP_OTHER_PROTO);
    const Bytes first = snap(0x0800, inner4());
    const Bytes too_long = b::concat(b::concat(Bytes(12, 0x33), Bytes{0x40, 0}), first); // 16 KB claimed
    EXPECT_EQ(decode(kDltEthernet, aruba(0x8200, wifi(kQosData, kToDs, {0x80, 0}, too_long))).rc, WM_SKIP_MALFORMED);
}

} // namespace
} // namespace wm::capture::test
