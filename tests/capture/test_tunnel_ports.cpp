// tests/capture/test_tunnel_ports.cpp - the UDP tunnels' ports set by the
// caller (capture/tunnel_ports.h): the spec and its errors, the decoder
// entering a tunnel on a port it is given and not on one taken away, the
// default set against the decoder's inline test, and every reader passing
// the ports on.
#include "pcap_files.h"
#include "tunnel_test_util.h"
#include "window_reads.h"

#include "plugin/src/capture/pcap_writer.h"
#include "plugin/src/capture/tunnel_ports.h"

#include <filesystem>
#include <stdexcept>

namespace wm::capture::test {
namespace {

namespace b = build;
namespace fs = std::filesystem;

Bytes vxlan(const Bytes &frame) { return test::vxlan(0x08, frame); }
Bytes gtpu(const Bytes &ip) {
    const size_t n = ip.size();
    return b::concat({0x30, 0xff, uint8_t(n >> 8), uint8_t(n), 0, 0, 0, 9}, ip);
}
constexpr int64_t kUdpPayload = 14 + 20 + 8;

Layered decode_with(const TunnelPorts *ports, const Bytes &frame) {
    Layered l;
    l.d = decode(kDltEthernet, frame); // the frame held as decode() holds it, decoded again with the ports
    l.d.rc = decode_frame(kDltEthernet, l.d.frame->data(), uint32_t(l.d.frame->size()), &l.d.pkt, &l.where, ports);
    return l;
}

std::string parse_error(const std::string &spec) {
    try {
        TunnelPorts::parse(spec);
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return "(accepted)";
}

TEST(TunnelPorts, SpecChangesOnlyTheTunnelsItNames) {
    EXPECT_EQ(TunnelPorts().to_string(),
              "vxlan=4789 geneve=6081 gtpu=2152 teredo=3544 ayiya=5072 vxlan-gpe=4790 mpls-udp=6635");
    EXPECT_EQ(TunnelPorts::parse("").to_string(), TunnelPorts().to_string());
    const TunnelPorts p = TunnelPorts::parse("vxlan=4789,8472,8472; teredo=off  gtpu=2152,2153");
    EXPECT_EQ(p.to_string(),
              "vxlan=4789,8472 geneve=6081 gtpu=2152,2153 teredo=off ayiya=5072 vxlan-gpe=4790 mpls-udp=6635");
    EXPECT_EQ(p.ports(UdpTunnel::Vxlan), (std::vector<uint16_t>{4789, 8472}));
    EXPECT_TRUE(p.ports(UdpTunnel::Teredo).empty());
    EXPECT_EQ(TunnelPorts::parse(p.to_string()).to_string(), p.to_string()); // what it prints, it reads
}

TEST(TunnelPorts, BadSpecsNameWhatIsWrong) {
    const std::pair<std::string, std::string> cases[] = {
        {"vxlan=0", "port \"0\" is not a number from 1 to 65535"},
        {"vxlan=65536", "port \"65536\""},
        {"vxlan=47 89", "unknown tunnel \"89\""},
        {"vxlan=4789,", "port \"\""},
        {"vxlan=-1", "port \"-1\""},
        {"mpls=6635", "unknown tunnel \"mpls\" (vxlan, geneve, gtpu, teredo, ayiya, vxlan-gpe, mpls-udp)"},
        {"vxlan", "\"vxlan\" has no '='"},
        {"vxlan=1;vxlan=2", "vxlan is given twice"},
        {"geneve=4789", "port 4789 is given to both vxlan and geneve"},
        {"gtpu=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "gtpu has more than 16 ports"},
    };
    for (const auto &[spec, why] : cases) {
        const std::string e = parse_error(spec);
        EXPECT_NE(e.find("tunnel ports \"" + spec + "\": "), std::string::npos) << e;
        EXPECT_NE(e.find(why), std::string::npos) << spec << " -> " << e;
    }
}

// VXLAN and Geneve by destination, the others by either end; a port of no
// tunnel is none.
TEST(TunnelPorts, WhichTunnelAPortPairNames) {
    const TunnelPorts p = TunnelPorts::parse("vxlan=8472;gtpu=2153");
    EXPECT_EQ(p.tunnel(50000, 8472), UdpTunnel::Vxlan);
    EXPECT_EQ(p.tunnel(8472, 50000), UdpTunnel::None);
    EXPECT_FALSE(p.maybe(8472, 50000));
    EXPECT_EQ(p.tunnel(2153, 50000), UdpTunnel::Gtpu);
    EXPECT_EQ(p.tunnel(50000, 2153), UdpTunnel::Gtpu);
    EXPECT_EQ(p.tunnel(50000, 4789), UdpTunnel::None); // given away
    EXPECT_FALSE(p.maybe(50000, 4789));
    EXPECT_EQ(p.tunnel(50000, 6081), UdpTunnel::Geneve);
    EXPECT_EQ(p.tunnel(3544, 8472), UdpTunnel::Vxlan); // both name one: the decoder's order
    for (uint32_t port = 1; port < 65536; ++port) // the bitmaps agree with the lists
        EXPECT_EQ(p.maybe(uint16_t(port), 1) || p.maybe(1, uint16_t(port)),
                  p.tunnel(uint16_t(port), 1) != UdpTunnel::None || p.tunnel(1, uint16_t(port)) != UdpTunnel::None)
            << port;
}

TEST(TunnelPorts, DecoderEntersTunnelsOnTheGivenPorts) {
    const TunnelPorts p = TunnelPorts::parse("vxlan=8472;gtpu=2153;teredo=off");
    const Bytes on_8472 = udp_frame(50000, 8472, vxlan(b::ethernet_ip(inner4())));
    EXPECT_EQ(decode_with(nullptr, on_8472).d.pkt.proto, WM_PROTO_UDP); // the standard ports: an ordinary datagram
    expect_inner4(decode_with(&p, on_8472), kUdpPayload + 8 + 14, 1);
    const Bytes from_2153 = udp_frame(2153, 50000, gtpu(inner4()));
    EXPECT_EQ(decode_with(nullptr, from_2153).d.pkt.proto, WM_PROTO_UDP);
    expect_inner4(decode_with(&p, from_2153), kUdpPayload + 8, 1);
    // Taken away: 4789 carries an ordinary datagram, its whole payload scanned.
    const Layered standard = decode_with(&p, udp_frame(50000, 4789, vxlan(b::ethernet_ip(inner4()))));
    ASSERT_EQ(standard.d.rc, kDecodedPayload);
    EXPECT_EQ(standard.d.pkt.dst_port, 4789);
    EXPECT_EQ(standard.d.pkt.payload_offset, uint64_t(kUdpPayload));
    EXPECT_EQ(standard.where.tunnels, 0);
    // A given port still needs a valid header: no I flag, no tunnel.
    Bytes no_i = on_8472;
    no_i[kUdpPayload] = 0;
    EXPECT_EQ(decode_with(&p, no_i).where.tunnels, 0);
    // Inside a tunnel the same ports hold: VXLAN on 8472 in GRE.
    const Bytes gre = b::concat({0, 0, 0x08, 0},
                                outer4(b::kProtoUdp, b::udp(50000, 8472, vxlan(b::ethernet_ip(inner4())))));
    expect_inner4(decode_with(&p, b::ethernet_ip(outer4(b::kProtoGre, gre))), 14 + 20 + 4 + 28 + 8 + 14, 2);
}

// The default set decodes every frame exactly as the decoder's inline test
// of the standard ports: the demo-like frames here, and every shared
// capture when it is unpacked.
void expect_defaults_agree(const Bytes &frame, int dlt, const std::string &what) {
    static const TunnelPorts defaults;
    wm_packet_t a{}, c{};
    FrameLayers la, lc;
    const int ra = decode_frame(dlt, frame.data(), uint32_t(frame.size()), &a, &la, nullptr);
    const int rc = decode_frame(dlt, frame.data(), uint32_t(frame.size()), &c, &lc, &defaults);
    ASSERT_EQ(ra, rc) << what;
    EXPECT_EQ(a.payload_offset, c.payload_offset) << what;
    EXPECT_EQ(a.payload_len, c.payload_len) << what;
    EXPECT_EQ(a.flow_id, c.flow_id) << what;
    EXPECT_EQ(la.tunnels, lc.tunnels) << what;
}

TEST(TunnelPorts, DefaultSetDecodesAsTheStandardPorts) {
    const Bytes gpe_ip = b::concat({0x0c, 0, 0, 1, 0, 0, 7, 0}, inner4()); // VXLAN-GPE, next protocol IPv4
    const Bytes stack = labels({16}, inner4());                          // MPLS over UDP
    for (uint16_t port : {4789, 6081, 2152, 3544, 5072, 4790, 6635, 8472, 53}) {
        expect_defaults_agree(udp_frame(50000, port, vxlan(b::ethernet_ip(inner4()))), kDltEthernet, "vxlan");
        expect_defaults_agree(udp_frame(50000, port, gpe_ip), kDltEthernet, "vxlan-gpe");
        expect_defaults_agree(udp_frame(50000, port, stack), kDltEthernet, "mpls-udp");
        expect_defaults_agree(udp_frame(port, 50000, stack), kDltEthernet, "mpls-udp, by source");
        expect_defaults_agree(udp_frame(port, 50000, gtpu(inner4())), kDltEthernet, "gtpu");
        expect_defaults_agree(udp_frame(50000, port, gtpu(inner4())), kDltEthernet, "gtpu");
    }
    const fs::path dir = fs::path(WM_TEST_DATA_DIR);
    if (!fs::is_directory(dir / "pcaps")) GTEST_SKIP() << "shared captures not unpacked: " << dir;
    size_t frames = 0;
    for (const auto &e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file() || e.path().string().find(".pcap") == std::string::npos) continue;
        char errbuf[PCAP_ERRBUF_SIZE];
        pcap_t *pc = pcap_open_offline(e.path().c_str(), errbuf);
        if (!pc) continue;
        pcap_pkthdr *h;
        const u_char *d;
        while (pcap_next_ex(pc, &h, &d) == 1) {
            ++frames;
            expect_defaults_agree(Bytes(d, d + h->caplen), pcap_datalink(pc), e.path().string());
        }
        pcap_close(pc);
    }
    EXPECT_GT(frames, 100000u);
}

// Every reader decodes with the ports it is given: libpcap's sequential
// read, the window reader in place (one part and several), and the window
// reader's libpcap fallback after a record libpcap must read itself.
TEST(TunnelPorts, EveryReaderPassesThePortsOn) {
    const TunnelPorts p = TunnelPorts::parse("vxlan=8472;gtpu=2153");
    for (const bool fallback : {false, true}) {
        SCOPED_TRACE(fallback ? "after a record past the snap length" : "in place");
        const std::string path = temp_path(fallback ? "ports_fallback.pcap" : "ports.pcap");
        {
            PcapWriter w(path, kLinktypeEthernet, 300);
            if (fallback) w.write(udp_frame(1, 2, Bytes(400, 'x')), 1, 0); // caplen past the snap length
            for (uint32_t k = 0; k < 200; ++k) {
                w.write(udp_frame(50000, 8472, vxlan(b::ethernet_ip(inner4()))), 2 + k, 0);
                w.write(udp_frame(2153, 50000, gtpu(inner4())), 2 + k, 1);
            }
        }
        const Seen plain = read_plain(path, &p);
        size_t inner = 0;
        for (const wm_packet_t &pkt : plain.packets) inner += pkt.proto == WM_PROTO_TCP && pkt.dst_port == 80;
        EXPECT_EQ(inner, 400u);
        EXPECT_EQ(read_plain(path).packets.size(), plain.packets.size());
        for (const wm_packet_t &pkt : read_plain(path).packets) EXPECT_EQ(pkt.proto, WM_PROTO_UDP);
        for (unsigned threads : {1u, 3u}) {
            const Seen w = read_windows(path, 8192, threads, {}, &p);
            expect_same(plain, w);
            if (!fallback && threads == 3) EXPECT_GT(w.most_parts, 1u);
        }
    }
}

} // namespace
} // namespace wm::capture::test
