// tests/capture/test_decoder_truncation.cpp - every crafted frame cut at
// every byte offset: no read past caplen (ASan), and the exact outcome:
// header cut -> WM_SKIP_TRUNCATED, payload cut -> delivered, clipped.
#include "capture_test_util.h"

namespace wm::capture::test {
namespace {

namespace b = build;

struct Case {
    std::string name;
    int dlt;
    Bytes frame;
    int full_rc;          // result for the whole frame
    size_t header_end;    // bytes needed before full_rc applies
    size_t payload_len;   // for payload frames: declared payload bytes
};

std::vector<Case> cases() {
    const Bytes data = b::bytes("0123456789abcdefghij");
    b::TcpSpec t = tcp_ports(40000, 80);
    t.options = b::tcp_syn_options(1460, 5);
    const Bytes tcp4 = b::ipv4(v4(), b::kProtoTcp, b::tcp(t, data));
    b::Ipv4Spec opt = v4();
    opt.options = Bytes(8, 1);
    const Bytes udp4opt = b::ipv4(opt, b::kProtoUdp, b::udp(1, 53, data));
    b::Ipv6Spec ext = v6();
    ext.ext = {b::hop_by_hop(), b::routing_header(), b::fragment_header(0, false, 1), b::dest_options(16)};
    const Bytes udp6ext = b::ipv6(ext, b::kProtoUdp, b::udp(2, 53, data));
    const Bytes tcp6 = b::ipv6(v6(), b::kProtoTcp, b::tcp(tcp_ports(3, 443), data));
    const Bytes tiny = b::ipv4(v4(), b::kProtoUdp, b::udp(7, 7, b::bytes("x"))); // padded frame
    b::Ipv4Spec frag = v4();
    frag.frag = 0x2000;
    b::Ipv6Spec frag6 = v6();
    frag6.ext = {b::hop_by_hop(), b::fragment_header(10, true, 1)};
    b::TcpSpec syn = tcp_ports(5, 6);
    syn.flags = b::kSyn;
    syn.options = b::tcp_syn_options(1460, 5);

    std::vector<Case> c;
    auto payload = [&](std::string n, int dlt, Bytes f, size_t len) {
        const size_t off = decode(dlt, f).pkt.payload_offset;
        c.push_back({std::move(n), dlt, std::move(f), kDecodedPayload, off + 1, len});
    };
    payload("eth/ipv4/tcp+opts", kDltEthernet, b::ethernet_ip(tcp4), data.size());
    payload("eth/vlan/ipv4opts/udp", kDltEthernet, b::ethernet_ip(udp4opt, {{0x8100, 9}}), data.size());
    payload("eth/qinq/ipv6ext/udp", kDltEthernet,
            b::ethernet_ip(udp6ext, {{0x88a8, 1}, {0x9100, 2}, {0x8100, 3}}), data.size());
    payload("eth/ipv4/udp padded", kDltEthernet, b::ethernet_ip(tiny), 1);
    payload("sll/ipv6/tcp", kDltLinuxSll, b::sll(0x86dd, tcp6), data.size());
    payload("sll2/ipv4/tcp", kDltLinuxSll2, b::sll2(0x0800, tcp4), data.size());
    payload("raw/ipv6ext", kDltLinktypeRaw, udp6ext, data.size());
    payload("ipv4/udpopt", kDltIpv4, udp4opt, data.size());
    payload("null/ipv6", kDltNull, b::loopback(30, tcp6, false), data.size());
    payload("loop/ipv4", kDltLoop, b::loopback(2, tcp4, true), data.size());
    // Tunnels: every header on the way is cut somewhere.
    const auto outer = [](uint8_t proto, const Bytes &inner) {
        return b::ipv4(v4(b::ip4(198, 51, 100, 1), b::ip4(198, 51, 100, 2)), proto, inner);
    };
    const auto gre = [](std::initializer_list<uint8_t> header, const Bytes &inner) {
        Bytes g(header);
        g.insert(g.end(), inner.begin(), inner.end());
        return g;
    };
    payload("eth/ipv4/ipv6-in-ip/tcp", kDltEthernet, b::ethernet_ip(outer(41, tcp6)), data.size());
    payload("raw/ipv4/gre key+seq/ipv4/tcp", kDltRaw,
            outer(b::kProtoGre, gre({0x30, 0, 0x08, 0, 0, 0, 0, 1, 0, 0, 0, 2}, tcp4)), data.size());
    payload("raw/ipv4/gre teb/eth/vlan/ipv4/udp", kDltRaw,
            outer(b::kProtoGre, gre({0, 0, 0x65, 0x58}, b::ethernet_ip(udp4opt, {{0x8100, 9}}))), data.size());
    payload("raw/ipv4/gre erspan3+O/eth/ipv6/tcp", kDltRaw,
            outer(b::kProtoGre, gre({0x10, 0, 0x22, 0xeb, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
                                     0, 0, 0, 0, 0, 0, 0, 0},
                                    b::ethernet_ip(tcp6))),
            data.size());
    const uint8_t n = uint8_t(tcp4.size() + 4);
    payload("raw/ipv4/pptp gre/ppp/ipv4/tcp", kDltRaw,
            outer(b::kProtoGre, gre({0x30, 0x81, 0x88, 0x0b, 0, n, 0, 7, 0, 0, 0, 1, 0, 0, 0, 1, 0xff, 0x03, 0, 0x21},
                                    tcp4)),
            data.size());

    // Link-level carriers: MPLS (IP after the bottom label, a pseudowire's
    // frame) and PPPoE.
    payload("eth/mpls x2/ipv4/tcp", kDltEthernet,
            b::ethernet(0x8847, b::concat({0, 1, 0, 64, 0, 1, 1, 64}, tcp4)), data.size());
    payload("eth/mpls/pw/eth/vlan/ipv4/udp", kDltEthernet,
            b::ethernet(0x8847, b::concat({0, 1, 1, 64, 0, 0, 0, 0}, b::ethernet_ip(udp4opt, {{0x8100, 9}}))),
            data.size());
    payload("raw/ipv4/gre/mpls x2/ipv6/tcp", kDltRaw,
            outer(b::kProtoGre, gre({0, 0, 0x88, 0x47}, b::concat({0, 1, 0, 64, 0, 0, 0x21, 64}, tcp6))), data.size());
    payload("eth/qinq/pppoe/ipv6/tcp", kDltEthernet,
            b::ethernet(0x8864, b::concat({0x11, 0, 0, 1, 0, uint8_t(tcp6.size() + 2), 0, 0x57}, tcp6),
                        {{0x88a8, 1}, {0x8100, 2}}),
            data.size());

    // PPP and 802.11 links, and 802.11 in Aruba's GRE (an A-MSDU subframe).
    payload("ppp/ipv4/tcp", kDltPpp, b::concat({0xff, 0x03, 0, 0x21}, tcp4), data.size());
    const auto wifi = [](uint8_t fc0, uint8_t fc1, const Bytes &fields, uint16_t type, const Bytes &ip) {
        Bytes f{fc0, fc1, 0, 0};
        f.resize(24, 0x20);
        f[22] = 0x10; // sequence control, fragment 0
        const Bytes llc{0xaa, 0xaa, 3, 0, 0, 0, uint8_t(type >> 8), uint8_t(type)};
        return b::concat(b::concat(f, fields), b::concat(llc, ip));
    };
    payload("802.11 qos+htc 4addr/ipv4/tcp", kDltIeee80211,
            wifi(0x88, 0x83, b::concat(Bytes(6, 1), Bytes{0, 0, 1, 2, 3, 4}), 0x0800, tcp4), data.size());
    payload("radiotap/802.11/ipv6/tcp", kDltRadiotap,
            b::concat({0, 0, 8, 0, 0, 0, 0, 0}, wifi(0x08, 0x02, {}, 0x86dd, tcp6)), data.size());
    const Bytes amsdu_llc = b::concat({0xaa, 0xaa, 3, 0, 0, 0, 0x08, 0}, udp4opt);
    const Bytes amsdu = b::concat(b::concat(Bytes(12, 5), Bytes{0, uint8_t(amsdu_llc.size())}), amsdu_llc);
    Bytes aruba = wifi(0x88, 0x01, {0x80, 0}, 0, {});
    aruba.resize(aruba.size() - 8); // no LLC of its own: the subframe's follows
    payload("raw/ipv4/gre aruba/802.11 a-msdu/ipv4/udp", kDltRaw,
            outer(b::kProtoGre, gre({0, 0, 0x82, 0}, b::concat(aruba, amsdu))), data.size());

    c.push_back({"arp", kDltEthernet, b::arp_request(b::kMacA, kClient4, kServer4), WM_SKIP_NOT_IP, 14, 0});
    c.push_back({"icmp", kDltEthernet,
                 b::ethernet_ip(b::ipv4(v4(), b::kProtoIcmp, b::icmp_echo(true, 1, 1, data))),
                 WM_SKIP_OTHER_PROTO, 14 + 20, 0});
    c.push_back({"ipv4 fragment", kDltRaw, b::ipv4(frag, b::kProtoUdp, b::udp(1, 2, data)),
                 WM_SKIP_FRAGMENT, 20, 0});
    c.push_back({"ipv6 fragment", kDltRaw, b::ipv6(frag6, b::kProtoUdp, b::udp(1, 2, data)),
                 WM_SKIP_FRAGMENT, 40 + 8 + 8, 0});
    c.push_back({"tcp syn", kDltEthernet, b::ethernet_ip(b::ipv4(v4(), b::kProtoTcp, b::tcp(syn, {}))),
                 WM_SKIP_NO_PAYLOAD, 14 + 20 + 40, 0});
    return c;
}

TEST(DecoderTruncation, EveryCutOfEveryFrame) {
    for (const Case &c : cases()) {
        SCOPED_TRACE(c.name);
        ASSERT_EQ(decode(c.dlt, c.frame).rc, c.full_rc);
        size_t truncated = 0, delivered = 0, final_rc = 0;
        for (size_t cut = 0; cut <= c.frame.size(); ++cut) {
            SCOPED_TRACE("caplen " + std::to_string(cut));
            const Decoded d = decode(c.dlt, c.frame, cut);
            if (cut < c.header_end) {
                EXPECT_EQ(d.rc, WM_SKIP_TRUNCATED);
                EXPECT_EQ(d.pkt.payload, nullptr);
                truncated += d.rc == WM_SKIP_TRUNCATED;
                continue;
            }
            EXPECT_EQ(d.rc, c.full_rc);
            if (c.full_rc != kDecodedPayload) {
                final_rc += d.rc == c.full_rc;
                continue;
            }
            // Payload clipped to what was captured, never beyond the
            // declared length (Ethernet padding).
            const size_t off = d.pkt.payload_offset;
            const size_t want = std::min(c.payload_len, cut - off);
            ASSERT_EQ(d.pkt.payload_len, want);
            EXPECT_EQ(d.payload(), Bytes(c.frame.begin() + long(off), c.frame.begin() + long(off + want)));
            EXPECT_LE(off + d.pkt.payload_len, cut);
            delivered += 1;
        }
        EXPECT_EQ(truncated, c.header_end);
        if (c.full_rc == kDecodedPayload) {
            EXPECT_EQ(delivered, c.frame.size() + 1 - c.header_end);
        } else {
            EXPECT_EQ(final_rc, c.frame.size() + 1 - c.header_end);
        }
    }
}

// UDP tunnels, whose cuts have their own outcomes (test_decoder_udp_tunnels.cpp):
// VXLAN carrying a tagged frame, GTP-U with an extension header, Teredo with
// an origin indication, AYIYA, Geneve with an option, VXLAN-GPE carrying
// IPv4, MPLS over UDP.
std::vector<Case> udp_tunnel_cases() {
    const Bytes tcp4 = b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(1, 2), b::bytes("0123456789")));
    const Bytes udp6 = b::ipv6(v6(), b::kProtoUdp, b::udp(3, 4, b::bytes("0123456789")));
    const auto udp = [](uint16_t sport, uint16_t dport, const Bytes &payload) {
        return b::ethernet_ip(b::ipv4(v4(), b::kProtoUdp, b::udp(sport, dport, payload)));
    };
    const uint8_t n = uint8_t(tcp4.size() + 8);
    return {
        {"vxlan", kDltEthernet, udp(1, 4789, b::concat({8, 0, 0, 0, 0, 0, 1, 0}, b::ethernet_ip(tcp4, {{0x8100, 3}}))),
         kDecodedPayload, 0, 0},
        {"gtp-u", kDltEthernet, udp(2152, 2152, b::concat({0x34, 0xff, 0, n, 0, 0, 0, 1, 0, 0, 0, 0x85, 1, 0, 0, 0},
                                                          tcp4)),
         kDecodedPayload, 0, 0},
        {"teredo", kDltEthernet, udp(3544, 5, b::concat({0, 0, 1, 2, 3, 4, 5, 6}, udp6)), kDecodedPayload, 0, 0},
        {"ayiya", kDltEthernet, udp(5072, 5072, b::concat({0x01, 0x10, 0x11, 41, 0, 0, 0, 1, 0, 9, 9, 9, 9}, udp6)),
         kDecodedPayload, 0, 0},
        {"geneve", kDltEthernet, udp(1, 6081, b::concat({2, 0, 0x86, 0xdd, 0, 0, 1, 0, 0, 1, 2, 1, 9, 9, 9, 9}, udp6)),
         kDecodedPayload, 0, 0},
        {"vxlan-gpe", kDltEthernet, udp(1, 4790, b::concat({0x0c, 0, 0, 1, 0, 0, 1, 0}, tcp4)), kDecodedPayload, 0, 0},
        {"mpls-udp", kDltEthernet, udp(1, 6635, b::concat({0, 1, 0x01, 64}, tcp4)), kDecodedPayload, 0, 0},
    };
}

// Every cut of a frame with garbage in each byte position: must not crash
// or read out of bounds whatever the outcome (run under ASan/UBSan).
TEST(DecoderTruncation, CorruptedBytesNeverOverread) {
    std::array<int, WM_SKIP_REASON_COUNT + 1> seen{};
    std::vector<Case> all = cases();
    for (Case &c : udp_tunnel_cases()) {
        ASSERT_EQ(decode(c.dlt, c.frame).rc, kDecodedPayload) << c.name;
        EXPECT_GT(decode(c.dlt, c.frame).pkt.payload_offset, 14u + 20 + 8 + 8) << c.name << ": not entered";
        all.push_back(std::move(c));
    }
    for (const Case &c : all) {
        for (size_t pos = 0; pos < c.frame.size(); ++pos) {
            for (uint8_t v : {uint8_t(0x00), uint8_t(0xff), uint8_t(0x45), uint8_t(0x8f)}) {
                Bytes f = c.frame;
                f[pos] = v;
                for (size_t cut : {f.size(), f.size() / 2, pos + 1}) {
                    const Decoded d = decode(c.dlt, f, cut);
                    ASSERT_GE(d.rc, kDecodedPayload);
                    ASSERT_LT(d.rc, WM_SKIP_REASON_COUNT);
                    ++seen[size_t(d.rc + 1)];
                    if (d.rc == kDecodedPayload) {
                        ASSERT_GT(d.pkt.payload_len, 0u);
                        ASSERT_LE(size_t(d.pkt.payload_offset) + d.pkt.payload_len, std::min(cut, f.size()));
                    }
                }
            }
        }
    }
    // The mutations reach every outcome except an unsupported link.
    for (int r = kDecodedPayload; r < WM_SKIP_REASON_COUNT; ++r) {
        if (r != WM_SKIP_UNSUPPORTED_LINK) {
            EXPECT_GT(seen[size_t(r + 1)], 0) << "outcome " << r;
        }
    }
}

} // namespace
} // namespace wm::capture::test
