// tests/capture/test_decoder_udp_tunnels.cpp - VXLAN, Geneve, GTP-U,
// Teredo, AYIYA, VXLAN-GPE and MPLS over UDP: entered when the port and a
// whole, valid header say
// so, the innermost packet decoded; otherwise the datagram is an ordinary
// one and its payload is scanned as it is.
#include "tunnel_test_util.h"

namespace wm::capture::test {
namespace {

namespace b = build;

constexpr int64_t kUdpPayload = 14 + 20 + 8; // where udp_frame's payload starts

Bytes geneve(uint8_t first, uint16_t type, const Bytes &options, const Bytes &payload) {
    const Bytes h{first, 0, uint8_t(type >> 8), uint8_t(type), 0, 0, 7, 0};
    return b::concat(b::concat(h, options), payload);
}
// GTPv1-U: flags (0x30: version 1, GTP; | E 4, S 2, PN 1), message type, the
// optional fields in `extra`; the length field counts extra and payload
// unless `length` says otherwise.
Bytes gtpu(uint8_t flags, uint8_t type, const Bytes &extra, const Bytes &payload, int length = -1) {
    const size_t n = length >= 0 ? size_t(length) : extra.size() + payload.size();
    const Bytes h{flags, type, uint8_t(n >> 8), uint8_t(n), 0, 0, 0, 9};
    return b::concat(b::concat(h, extra), payload);
}

// The datagram decoded as an ordinary one: its own ports, its whole payload.
void expect_plain(const Layered &l, uint16_t dport) {
    ASSERT_EQ(l.d.rc, kDecodedPayload);
    EXPECT_EQ(l.d.pkt.proto, WM_PROTO_UDP);
    EXPECT_EQ(l.d.pkt.dst_port, dport);
    EXPECT_EQ(l.d.pkt.payload_offset, uint64_t(kUdpPayload));
    EXPECT_EQ(l.where.tunnels, 0);
}

// The IPv6/UDP inner6() packet decoded at inner_ip.
void expect_inner6(const Layered &l, int64_t inner_ip, int tunnels) {
    ASSERT_EQ(l.d.rc, kDecodedPayload);
    EXPECT_EQ(l.d.pkt.ip_version, 6);
    EXPECT_EQ(l.d.pkt.dst_port, 53);
    EXPECT_EQ(l.d.payload(), kHttp);
    EXPECT_EQ(l.where.ip_offset, inner_ip);
    EXPECT_EQ(l.where.tunnels, tunnels);
}

// The carried frame's VLAN tag is its own; the outer frame's keys the flow.
TEST(DecoderUdpTunnels, Vxlan) {
    expect_inner4(decode_layers(kDltEthernet, udp_frame(50000, 4789, vxlan(0x08, b::ethernet_ip(inner4())))),
                  kUdpPayload + 8 + 14, 1);
    const Bytes tagged = vxlan(0x88, b::ethernet_ip(inner4(), {{0x8100, 33}})); // with a group policy flag too
    const Layered l = decode_layers(kDltEthernet, b::ethernet_ip(outer4(b::kProtoUdp, b::udp(50000, 4789, tagged)),
                                                                 {{0x8100, 7}}));
    expect_inner4(l, 4 + kUdpPayload + 8 + 18, 1);
    EXPECT_EQ(l.where.vlans, 7u);
    // Without the I flag, or to the port from it: ordinary datagrams.
    expect_plain(decode_layers(kDltEthernet, udp_frame(50000, 4789, vxlan(0, b::ethernet_ip(inner4())))), 4789);
    expect_plain(decode_layers(kDltEthernet, udp_frame(4789, 50000, vxlan(0x08, b::ethernet_ip(inner4())))), 50000);
    // The reserved last byte set: a datagram whose first byte has bit 3 (a
    // DNS reply's id, half of all payloads) is not taken for VXLAN.
    Bytes reserved = vxlan(0x08, b::ethernet_ip(inner4()));
    reserved[7] = 0x01;
    expect_plain(decode_layers(kDltEthernet, udp_frame(50000, 4789, reserved)), 4789);
    // Entered, the carried frame's own outcome stands: ARP is not IP.
    const Bytes arp = vxlan(0x08, b::arp_request(b::kMacA, kClient4, kServer4));
    EXPECT_EQ(decode(kDltEthernet, udp_frame(50000, 4789, arp)).rc, WM_SKIP_NOT_IP);
}

TEST(DecoderUdpTunnels, Geneve) {
    const Bytes options{0x01, 0x02, 0x80, 0x01, 0, 0, 0, 5}; // one option: class, type, length 1 word, data
    expect_inner4(decode_layers(kDltEthernet,
                                udp_frame(50000, 6081, geneve(0x02, 0x6558, options, b::ethernet_ip(inner4())))),
                  kUdpPayload + 16 + 14, 1);
    expect_inner4(decode_layers(kDltEthernet, udp_frame(50000, 6081, geneve(0, 0x0800, {}, inner4()))),
                  kUdpPayload + 8, 1);
    expect_inner6(decode_layers(kDltEthernet, udp_frame(50000, 6081, geneve(0, 0x86dd, {}, inner6()))),
                  kUdpPayload + 8, 1);
    expect_plain(decode_layers(kDltEthernet, udp_frame(50000, 6081, geneve(0x40, 0x86dd, {}, inner6()))),
                 6081); // version 1
    // A protocol type not decoded, options past the datagram: ordinary datagrams.
    expect_plain(decode_layers(kDltEthernet, udp_frame(50000, 6081, geneve(0, 0x8847, {}, inner4()))), 6081);
    expect_plain(decode_layers(kDltEthernet, udp_frame(50000, 6081, geneve(0x3f, 0x0800, {}, Bytes(8, 0x45)))),
                 6081);
}

TEST(DecoderUdpTunnels, GtpUserPlane) {
    expect_inner4(decode_layers(kDltEthernet, udp_frame(2152, 2152, gtpu(0x30, 0xff, {}, inner4()))),
                  kUdpPayload + 8, 1);
    expect_inner4(decode_layers(kDltEthernet, udp_frame(40000, 2152, gtpu(0x32, 0xff, {0, 1, 0, 0}, inner4()))),
                  kUdpPayload + 12, 1); // a sequence number; and from port 2152:
    expect_inner6(decode_layers(kDltEthernet, udp_frame(2152, 40000, gtpu(0x30, 0xff, {}, inner6()))),
                  kUdpPayload + 8, 1);
    // Extension headers: a PDU session container (4 bytes), then a 2-word one.
    const Bytes ext{0, 0, 0, 0x85, 1, 0x10, 0x09, 0x40, 2, 1, 2, 3, 4, 5, 6, 0};
    expect_inner4(decode_layers(kDltEthernet, udp_frame(2152, 2152, gtpu(0x34, 0xff, ext, inner4()))),
                  kUdpPayload + 8 + 16, 1);
    // The GTP length bounds the inner packet: one that claims more is cut there.
    const Layered cut = decode_layers(kDltEthernet, udp_frame(2152, 2152, gtpu(0x30, 0xff, {}, inner4(),
                                                                               int(inner4().size()) - 8)));
    ASSERT_EQ(cut.d.rc, kDecodedPayload);
    EXPECT_EQ(cut.d.payload(), Bytes(kHttp.begin(), kHttp.end() - 8));
    // GTP's own messages, GTP', a length past the datagram, an extension of
    // length 0, a payload that is not IP: ordinary datagrams.
    expect_plain(decode_layers(kDltEthernet, udp_frame(2152, 2152, gtpu(0x32, 0x01, {0, 1, 0, 0}, {}))), 2152);
    expect_plain(decode_layers(kDltEthernet, udp_frame(2152, 2152, gtpu(0x20, 0xff, {}, inner4()))), 2152);
    expect_plain(decode_layers(kDltEthernet, udp_frame(2152, 2152, gtpu(0x30, 0xff, {}, inner4(), 999))), 2152);
    expect_plain(decode_layers(kDltEthernet, udp_frame(2152, 2152, gtpu(0x34, 0xff, {0, 0, 0, 0x85, 0, 0, 0, 0},
                                                                        inner4()))),
                 2152);
    expect_plain(decode_layers(kDltEthernet, udp_frame(2152, 2152, gtpu(0x30, 0xff, {}, Bytes{0xff, 0x03, 0, 0x21}))),
                 2152);
}

TEST(DecoderUdpTunnels, Teredo) {
    expect_inner6(decode_layers(kDltEthernet, udp_frame(3544, 60000, inner6())), kUdpPayload, 1);
    const Bytes origin{0, 0, 0xf0, 0x0f, 0x3f, 0xff, 0xff, 0xfe};
    expect_inner6(decode_layers(kDltEthernet, udp_frame(60000, 3544, b::concat(origin, inner6()))),
                  kUdpPayload + 8, 1);
    // An authentication header (qualification), a length that is not the
    // rest of the datagram, IPv4: no field says "Teredo", so none is one.
    const Bytes auth{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    expect_plain(decode_layers(kDltEthernet, udp_frame(3544, 60000, b::concat(auth, inner6()))), 60000);
    expect_plain(decode_layers(kDltEthernet, udp_frame(3544, 60000, b::concat(inner6(), Bytes{0}))), 60000);
    expect_plain(decode_layers(kDltEthernet, udp_frame(3544, 60000, inner4())), 60000);
}

// AYIYA: identity 2^n bytes, signature 4n bytes, then the packet its next
// header names, for the forward opcode only.
Bytes ayiya(uint8_t opcode, uint8_t next_header, const Bytes &packet) {
    Bytes h{0x41, 0x52, uint8_t(0x10 | opcode), next_header, 0x4a, 0xf6, 0x4b, 0xfd}; // identity 16, signature 20
    h.resize(8 + 16 + 20, 0x5a);
    return b::concat(h, packet);
}

TEST(DecoderUdpTunnels, Ayiya) {
    expect_inner6(decode_layers(kDltEthernet, udp_frame(5072, 5072, ayiya(1, 41, inner6()))), kUdpPayload + 44, 1);
    expect_inner4(decode_layers(kDltEthernet, udp_frame(40000, 5072, ayiya(1, 4, inner4()))), kUdpPayload + 44, 1);
    // The next header names the version: an IPv4 packet under 41 is malformed.
    EXPECT_EQ(decode(kDltEthernet, udp_frame(5072, 5072, ayiya(1, 41, inner4()))).rc, WM_SKIP_MALFORMED);
    // A heartbeat (opcode 0), a next header that is no IP, a header past the datagram: ordinary datagrams.
    expect_plain(decode_layers(kDltEthernet, udp_frame(5072, 5072, ayiya(0, 41, inner6()))), 5072);
    expect_plain(decode_layers(kDltEthernet, udp_frame(5072, 5072, ayiya(1, 17, inner6()))), 5072);
    Bytes short_header = ayiya(1, 41, {});
    short_header.pop_back();
    expect_plain(decode_layers(kDltEthernet, udp_frame(5072, 5072, short_header)), 5072);
}

// VXLAN-GPE: flags (version 0, I; P: the next protocol byte holds), then
// the next protocol: IPv4 1, IPv6 2, Ethernet 3, MPLS 5.
Bytes gpe(uint8_t flags, uint8_t next, const Bytes &payload) {
    return b::concat({flags, 0, 0, next, 0, 0x12, 0x34, 0}, payload);
}

TEST(DecoderUdpTunnels, VxlanGpe) {
    expect_inner4(decode_layers(kDltEthernet, udp_frame(50000, 4790, gpe(0x0c, 1, inner4()))), kUdpPayload + 8, 1);
    expect_inner6(decode_layers(kDltEthernet, udp_frame(50000, 4790, gpe(0x0c, 2, inner6()))), kUdpPayload + 8, 1);
    expect_inner4(decode_layers(kDltEthernet, udp_frame(50000, 4790, gpe(0x0c, 3, b::ethernet_ip(inner4())))),
                  kUdpPayload + 8 + 14, 1);
    expect_inner4(decode_layers(kDltEthernet, udp_frame(50000, 4790, gpe(0x0c, 5, labels({16, 17}, inner4())))),
                  kUdpPayload + 8 + 8, 1);
    // Without P the payload is an Ethernet frame, as in VXLAN, whatever the protocol byte says.
    expect_inner4(decode_layers(kDltEthernet, udp_frame(50000, 4790, gpe(0x08, 1, b::ethernet_ip(inner4())))),
                  kUdpPayload + 8 + 14, 1);
    // No I flag, version 1, NSH (4), the header cut, the port from it: ordinary datagrams.
    expect_plain(decode_layers(kDltEthernet, udp_frame(50000, 4790, gpe(0x04, 1, inner4()))), 4790);
    expect_plain(decode_layers(kDltEthernet, udp_frame(50000, 4790, gpe(0x1c, 1, inner4()))), 4790);
    expect_plain(decode_layers(kDltEthernet, udp_frame(50000, 4790, gpe(0x0c, 4, inner4()))), 4790);
    expect_plain(decode_layers(kDltEthernet, udp_frame(50000, 4790, Bytes{0x0c, 0, 0, 1, 0, 0})), 4790);
    expect_plain(decode_layers(kDltEthernet, udp_frame(4790, 50000, gpe(0x0c, 1, inner4()))), 50000);
    // Entered, a next protocol that does not hold what it says is the inner packet's outcome.
    EXPECT_EQ(decode(kDltEthernet, udp_frame(50000, 4790, gpe(0x0c, 1, inner6()))).rc, WM_SKIP_MALFORMED);
}

// MPLS over UDP (RFC 7510): the UDP payload is a label stack, then IP (or
// a pseudowire's frame, a tunnel more); one whose bottom is not captured
// within the label limit is an ordinary datagram.
TEST(DecoderUdpTunnels, MplsOverUdp) {
    expect_inner4(decode_layers(kDltEthernet, udp_frame(50000, 6635, labels({16}, inner4()))), kUdpPayload + 4, 1);
    expect_inner6(decode_layers(kDltEthernet, udp_frame(50000, 6635, labels({16, 17, 2}, inner6()))),
                  kUdpPayload + 12, 1);
    const Bytes pw = labels({100}, b::concat(Bytes{0, 0, 0, 1}, b::ethernet_ip(inner4())));
    expect_inner4(decode_layers(kDltEthernet, udp_frame(50000, 6635, pw)), kUdpPayload + 8 + 14, 2);
    Bytes no_bottom;
    for (int k = 0; k < 9; ++k) no_bottom = b::concat(no_bottom, mpls_label(16, false));
    expect_plain(decode_layers(kDltEthernet, udp_frame(50000, 6635, b::concat(no_bottom, inner4()))), 6635);
    expect_plain(decode_layers(kDltEthernet, udp_frame(50000, 6635, Bytes{0, 1, 0})), 6635); // a cut entry
    expect_plain(decode_layers(kDltEthernet, udp_frame(6635, 50000, labels({16}, inner4()))), 50000);
    // Entered: what follows the stack decides, as after a link header.
    EXPECT_EQ(decode(kDltEthernet, udp_frame(50000, 6635, labels({16}, b::bytes("\x12 not ip")))).rc,
              WM_SKIP_NOT_IP);
}

// Each UDP tunnel's carrier names its kind (wm_tunnel_t::kind).
TEST(DecoderUdpTunnels, EachTunnelNamesItsKind) {
    const std::pair<Bytes, wm_tunnel_kind> cases[] = {
        {udp_frame(50000, 4789, vxlan(0x08, b::ethernet_ip(inner4()))), WM_TUNNEL_VXLAN},
        {udp_frame(50000, 6081, geneve(0, 0x0800, {}, inner4())), WM_TUNNEL_GENEVE},
        {udp_frame(2152, 2152, gtpu(0x30, 0xff, {}, inner4())), WM_TUNNEL_GTPU},
        {udp_frame(3544, 60000, inner6()), WM_TUNNEL_TEREDO},
        {udp_frame(5072, 5072, ayiya(1, 41, inner6())), WM_TUNNEL_AYIYA},
        {udp_frame(50000, 4790, gpe(0x0c, 1, inner4())), WM_TUNNEL_VXLAN_GPE},
        {udp_frame(50000, 6635, labels({16}, inner4())), WM_TUNNEL_MPLS_UDP},
    };
    for (const auto &[frame, kind] : cases) {
        SCOPED_TRACE(int(kind));
        const Layered l = decode_layers(kDltEthernet, frame);
        ASSERT_EQ(l.where.tunnels, 1);
        EXPECT_EQ(tunnel_of(l.where).kind, kind);
    }
}

// Tunnels in tunnels count toward the same depth limit as IP-in-IP and GRE.
TEST(DecoderUdpTunnels, NestedAndBounded) {
    // Teredo inside GTP-U (as Zeek's gtp8_teredo trace): two tunnels.
    const Bytes teredo = outer4(b::kProtoUdp, b::udp(3544, 60000, inner6()));
    expect_inner6(decode_layers(kDltEthernet, udp_frame(2152, 2152, gtpu(0x30, 0xff, {}, teredo))),
                  kUdpPayload + 8 + 28, 2);
    Bytes f = b::ethernet_ip(inner4());
    for (int k = 0; k < 4; ++k) f = udp_frame(50000, 4789, vxlan(0x08, f));
    expect_inner4(decode_layers(kDltEthernet, f), 4 * (kUdpPayload + 8) + 14, 4);
    EXPECT_EQ(decode(kDltEthernet, udp_frame(50000, 4789, vxlan(0x08, f))).rc, WM_SKIP_MALFORMED);
}

// Every cut of a VXLAN frame: its UDP header cut -> truncated; its VXLAN
// header cut -> an ordinary datagram, clipped; the carried frame's headers
// cut -> truncated; its payload cut -> the inner payload, clipped.
TEST(DecoderUdpTunnels, EveryCutOfAVxlanFrame) {
    const Bytes f = udp_frame(50000, 4789, vxlan(0x08, b::ethernet_ip(inner4())));
    const size_t vxlan_end = kUdpPayload + 8, inner_payload = vxlan_end + 14 + 40;
    for (size_t cut = 0; cut <= f.size(); ++cut) {
        SCOPED_TRACE("caplen " + std::to_string(cut));
        const Decoded d = decode(kDltEthernet, f, cut);
        if (cut <= size_t(kUdpPayload) || (cut >= vxlan_end && cut <= inner_payload)) {
            EXPECT_EQ(d.rc, WM_SKIP_TRUNCATED);
            continue;
        }
        ASSERT_EQ(d.rc, kDecodedPayload);
        const size_t off = cut < vxlan_end ? kUdpPayload : inner_payload;
        EXPECT_EQ(d.pkt.payload_offset, off);
        EXPECT_EQ(d.payload(), Bytes(f.begin() + long(off), f.begin() + long(cut)));
    }
}

} // namespace
} // namespace wm::capture::test
