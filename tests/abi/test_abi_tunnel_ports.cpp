// ABI suite: the UDP tunnels' ports set by the caller (0.14):
// wm_capture_set_tunnel_ports, and tunnel_ports in the replay and live
// options. A capture of two VXLAN frames, one to Linux's port 8472 and one
// to the standard 4789, each carrying "abc" to UDP port 53: which of them
// is entered is what the ports say. And the packet's tunnel carrier (0.16).
#include "abi_fixture.h"
#include "abi_replay_refused.h"
#include "warpmatch_stream.h"

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using abi_test::Fixture;

namespace {

std::vector<uint8_t> vxlan_frame(uint16_t dport) {
    std::vector<uint8_t> f = {2, 0, 0, 0, 0, 0xb, 2, 0, 0, 0, 0, 0xa, 0x08, 0x00, // Ethernet
                              0x45, 0, 0, 81, 0, 1, 0, 0, 64, 17, 0, 0, 198, 51, 100, 1, 198, 51, 100, 2,
                              0xc3, 0x50, uint8_t(dport >> 8), uint8_t(dport), 0, 61, 0, 0, // UDP 50000 -> dport
                              0x08, 0, 0, 0, 0, 0x12, 0x34, 0,                                // VXLAN, VNI 0x1234
                              2, 0, 0, 0, 0, 0xd, 2, 0, 0, 0, 0, 0xc, 0x08, 0x00,             // inner Ethernet
                              0x45, 0, 0, 31, 0, 2, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
                              0x04, 0xd2, 0, 53, 0, 11, 0, 0, 'a', 'b', 'c'};
    return f;
}

std::string write_capture() {
    return abi_test::write_pcap("abi_tunnel_ports.pcap", {vxlan_frame(8472), vxlan_frame(4789)});
}

// Destination port of each payload packet wm_capture_next delivers.
std::vector<uint16_t> capture_ports(const std::string &path, const char *spec, int *set_rc = nullptr,
                                    std::string *message = nullptr) {
    wm_capture_t *cap = nullptr;
    EXPECT_EQ(wm_capture_open_offline(path.c_str(), &cap, nullptr), WM_SUCCESS);
    wm_error_t *err = nullptr;
    const int rc = wm_capture_set_tunnel_ports(cap, spec, &err);
    if (set_rc) *set_rc = rc;
    if (message && err) *message = err->message;
    wm_error_free(err);
    std::vector<uint16_t> ports;
    wm_packet_t pkt;
    wm_packet_init(&pkt);
    while (wm_capture_next(cap, &pkt, nullptr) == WM_SUCCESS) ports.push_back(pkt.dst_port);
    wm_capture_close(cap);
    return ports;
}

TEST(AbiTunnelPorts, CaptureDecodesWithTheGivenPorts) {
    const std::string path = write_capture();
    EXPECT_EQ(capture_ports(path, nullptr), (std::vector<uint16_t>{8472, 53}));
    EXPECT_EQ(capture_ports(path, ""), (std::vector<uint16_t>{8472, 53}));
    EXPECT_EQ(capture_ports(path, "vxlan=8472"), (std::vector<uint16_t>{53, 4789}));
    EXPECT_EQ(capture_ports(path, "vxlan=4789,8472"), (std::vector<uint16_t>{53, 53}));
    EXPECT_EQ(capture_ports(path, "vxlan=off"), (std::vector<uint16_t>{8472, 4789}));
    int rc = 0;
    std::string message;
    // Refused: the ports stay the standard ones.
    EXPECT_EQ(capture_ports(path, "vxlan=8472x", &rc, &message), (std::vector<uint16_t>{8472, 53}));
    EXPECT_EQ(rc, WM_INVALID);
    EXPECT_NE(message.find("tunnel ports \"vxlan=8472x\": port \"8472x\""), std::string::npos) << message;
    EXPECT_EQ(wm_capture_set_tunnel_ports(nullptr, "vxlan=1", nullptr), WM_INVALID);
    std::remove(path.c_str());
}

struct Seen {
    std::vector<std::pair<uint64_t, uint16_t>> alerts; // (packet number, destination port) of rule 10's
};
int collect(const wm_alert_t *a, void *ctx) {
    if (a->rule_id == 10) static_cast<Seen *>(ctx)->alerts.emplace_back(a->packet->number, a->packet->dst_port);
    return 0;
}

// The kinds' names: the --tunnel-ports names for the UDP tunnels.
TEST(AbiTunnelPorts, TunnelKindNames) {
    const char *const want[] = {"ip-in-ip", "gre",       "vxlan",    "geneve",         "gtpu",
                                "teredo",   "ayiya",     "vxlan-gpe", "mpls-udp", "mpls-pseudowire"};
    static_assert(sizeof want / sizeof *want == WM_TUNNEL_KIND_COUNT, "a name for every kind");
    for (int k = 0; k < WM_TUNNEL_KIND_COUNT; ++k) EXPECT_STREQ(wm_tunnel_kind_name(k), want[k]) << k;
    EXPECT_STREQ(wm_tunnel_kind_name(-1), "unknown");
    EXPECT_STREQ(wm_tunnel_kind_name(WM_TUNNEL_KIND_COUNT), "unknown");
}

struct Carried {
    std::vector<std::string> lines; // rule 10's alerts as EVE lines
    const wm_ruleset_t *rs;
};

// Per payload and with streams alike; a bad spec is refused before the file is read.
TEST_F(Fixture, ReplayDecodesWithTheGivenPorts) {
    const std::string path = write_capture();
    for (int streams : {0, 1}) {
        SCOPED_TRACE(streams);
        using Alerts = std::vector<std::pair<uint64_t, uint16_t>>;
        for (const auto &[spec, want] : std::vector<std::pair<const char *, Alerts>>{
                 {nullptr, {{1, 8472}, {2, 53}}}, {"vxlan=8472", {{1, 53}, {2, 4789}}}}) {
            wm_replay_options_t ro;
            wm_replay_options_init(&ro);
            ro.streams = streams;
            ro.tunnel_ports = spec;
            wm_replay_stats_t st;
            wm_replay_stats_init(&st);
            Seen seen;
            ASSERT_EQ(wm_replay_file_ex(sc, path.c_str(), &ro, collect, &seen, nullptr, nullptr, &st, nullptr, nullptr),
                      WM_SUCCESS);
            EXPECT_EQ(seen.alerts, want) << (spec ? spec : "standard");
        }
        wm_replay_options_t ro;
        wm_replay_options_init(&ro);
        ro.streams = streams;
        ro.tunnel_ports = "teredo=on";
        abi_test::expect_replay_refused(sc, path, ro, "tunnel ports \"teredo=on\"");
    }
    std::remove(path.c_str());
}

// The carrier of the VXLAN frame to 4789: 198.51.100.1:50000 -> 198.51.100.2:4789, UDP, one tunnel deep.
void expect_vxlan_carrier(const wm_tunnel_t *t) {
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->ip_version, 4);
    EXPECT_EQ(t->proto, 17);
    EXPECT_EQ(t->depth, 1);
    EXPECT_EQ(t->kind, WM_TUNNEL_VXLAN);
    const uint8_t src[4] = {198, 51, 100, 1}, dst[4] = {198, 51, 100, 2};
    EXPECT_EQ(std::memcmp(t->src_ip, src, 4), 0);
    EXPECT_EQ(std::memcmp(t->dst_ip, dst, 4), 0);
    EXPECT_EQ(t->src_port, 50000);
    EXPECT_EQ(t->dst_port, 4789);
}

// wm_capture_next points a tunnelled packet at its carrier, and an untunnelled
// one at nothing; a packet of the 0.13-0.15 size ends before the pointer and
// the one of 0.12 before vlan[]: the caller's bytes past them stay untouched.
TEST(AbiTunnelPorts, CaptureNextGivesATunnelledPacketsCarrier) {
    const std::string path = write_capture();
    for (const size_t size : {sizeof(wm_packet_t), offsetof(wm_packet_t, tunnel), offsetof(wm_packet_t, vlan)}) {
        SCOPED_TRACE(size);
        wm_capture_t *cap = nullptr;
        ASSERT_EQ(wm_capture_open_offline(path.c_str(), &cap, nullptr), WM_SUCCESS);
        wm_packet_t pkt;
        for (uint16_t port : {8472, 53}) { // the datagram to 8472 as it is, then the one inside VXLAN
            std::memset(&pkt, 0xab, sizeof pkt);
            pkt.struct_size = size;
            ASSERT_EQ(wm_capture_next(cap, &pkt, nullptr), WM_SUCCESS);
            EXPECT_EQ(pkt.dst_port, port);
            if (size < sizeof(wm_packet_t)) {
                const uint8_t *past = reinterpret_cast<const uint8_t *>(&pkt) + size;
                EXPECT_EQ(past[0], 0xab);
                EXPECT_EQ(past[sizeof(wm_packet_t) - size - 1], 0xab);
            } else if (port == 8472) {
                EXPECT_EQ(pkt.tunnel, nullptr);
            } else {
                expect_vxlan_carrier(pkt.tunnel);
            }
        }
        wm_capture_close(cap);
    }
    std::remove(path.c_str());
}

int carried(const wm_alert_t *a, void *ctx) {
    auto &c = *static_cast<Carried *>(ctx);
    if (a->rule_id != 10) return 0;
    if (a->packet->dst_port == 53) expect_vxlan_carrier(a->packet->tunnel);
    if (a->packet->dst_port == 8472) EXPECT_EQ(a->packet->tunnel, nullptr);
    char *json = nullptr;
    EXPECT_EQ(wm_alert_to_json(c.rs, a, &json), WM_SUCCESS);
    c.lines.emplace_back(json ? json : "");
    wm_free(json);
    return 0;
}

// A replay's alerts carry the carrier into their EVE lines, per payload
// and with streams (whose windows' packets are the datagrams here).
TEST_F(Fixture, ReplayAlertsCarryTheTunnel) {
    const std::string path = write_capture();
    for (int streams : {0, 1}) {
        SCOPED_TRACE(streams);
        wm_replay_options_t ro;
        wm_replay_options_init(&ro);
        ro.streams = streams;
        Carried c{{}, rs};
        wm_replay_stats_t st;
        wm_replay_stats_init(&st);
        ASSERT_EQ(wm_replay_file_ex(sc, path.c_str(), &ro, carried, &c, nullptr, nullptr, &st, nullptr, nullptr),
                  WM_SUCCESS);
        ASSERT_EQ(c.lines.size(), 2u);
        EXPECT_EQ(c.lines[0].find("\"tunnel\""), std::string::npos) << c.lines[0];
        EXPECT_NE(c.lines[1].find(",\"tunnel\":{\"src_ip\":\"198.51.100.1\",\"src_port\":50000,"
                                  "\"dest_ip\":\"198.51.100.2\",\"dest_port\":4789,\"proto\":\"UDP\",\"depth\":1}"),
                  std::string::npos)
            << c.lines[1];
    }
    std::remove(path.c_str());
}

// wm_live_options_t grew tunnel_ports in 0.14: a 0.13 caller's struct is
// still taken (the interface is then what fails), and a bad spec is refused
// before the interface is opened.
TEST(AbiTunnelPorts, LiveOptions) {
    wm_live_options_t lo;
    wm_live_options_init(&lo);
    lo.interface = "wm-no-such-if0";
    for (size_t size : {sizeof(lo), offsetof(wm_live_options_t, tunnel_ports)}) {
        lo.struct_size = size;
        wm_live_t *live = nullptr;
        EXPECT_EQ(wm_live_open(&lo, &live, nullptr), WM_IO_ERROR) << size;
    }
    lo.struct_size = sizeof(lo);
    lo.tunnel_ports = "geneve=4789";
    wm_live_t *live = nullptr;
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_live_open(&lo, &live, &err), WM_INVALID);
    ASSERT_NE(err, nullptr);
    EXPECT_NE(std::string(err->message).find("port 4789 is given to both vxlan and geneve"), std::string::npos)
        << err->message;
    wm_error_free(err);
}

} // namespace
