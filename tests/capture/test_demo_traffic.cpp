// tests/capture/test_demo_traffic.cpp - the demo capture decodes and holds
// what the demo rules look for, in the right protocol and port.
#include "capture_test_util.h"

#include "plugin/src/capture/offline_capture.h"
#include "tools/demo/demo_traffic.h"

#include <fstream>
#include <iterator>

namespace wm::capture::test {
namespace {

struct Payload {
    uint8_t ip_version, proto;
    uint16_t sport, dport;
    uint32_t offset;
    std::string data;
};

struct Demo {
    std::vector<Payload> payloads;
    wm_capture_stats_t stats{};
};

// Written to a file and read back through OfflineCapture, like the demo.
const Demo &demo() {
    static const Demo d = [] {
        Demo r;
        const std::string path = wm::test::scratch_path("demo.pcap");
        wm::demo::write_demo_pcap(path);
        OfflineCapture cap(path);
        wm_packet_t p{};
        while (cap.next(&p) == WM_SUCCESS)
            r.payloads.push_back({p.ip_version, p.proto, p.src_port, p.dst_port, p.payload_offset,
                                  std::string(p.payload, p.payload + p.payload_len)});
        r.stats = cap.stats();
        std::remove(path.c_str());
        return r;
    }();
    return d;
}

std::string lower(std::string s) {
    for (char &c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Number of payloads (proto, dport, or any when 0) containing needle.
size_t count(const std::string &needle, uint8_t proto = 0, uint16_t dport = 0, bool nocase = false) {
    size_t n = 0;
    for (const Payload &p : demo().payloads) {
        if ((proto && p.proto != proto) || (dport && p.dport != dport)) continue;
        const std::string hay = nocase ? lower(p.data) : p.data;
        n += hay.find(nocase ? lower(needle) : needle) != std::string::npos;
    }
    return n;
}

TEST(DemoTraffic, ContainsEveryRuleString) {
    EXPECT_GE(count("/admin/config.php", WM_PROTO_TCP, 80), 1u);
    EXPECT_GE(count("User-Agent: SQLMap/1.7", WM_PROTO_TCP, 80, true), 2u);
    EXPECT_GE(count("User-Agent: sqlmap/1.7", WM_PROTO_TCP, 80), 1u) << "a case the rule's nocase must bridge";
    EXPECT_GE(count(std::string("\x07" "evil-c2\x07" "example\x03" "com", 21), WM_PROTO_UDP, 53), 1u);
    EXPECT_GE(count("X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR", WM_PROTO_TCP, 25), 1u);
    EXPECT_GE(count("../../etc/passwd", WM_PROTO_TCP, 80), 1u);
    EXPECT_GE(count(std::string(8, '\x90'), WM_PROTO_TCP), 1u);
    EXPECT_GE(count("MAIL FROM:<Attacker@evil.example>", WM_PROTO_TCP, 25), 1u);
    EXPECT_GE(count("CMD.EXE", WM_PROTO_TCP, 80), 1u);
    EXPECT_EQ(count("never-seen-in-demo-traffic", 0, 0, true), 0u);
}

TEST(DemoTraffic, HttpRequestsStartAtPayloadOffsetZero) {
    size_t gets = 0;
    for (const Payload &p : demo().payloads) {
        if (p.proto != WM_PROTO_TCP || p.dport != 80) continue;
        EXPECT_TRUE(p.data.rfind("GET ", 0) == 0 || p.data.rfind("POST ", 0) == 0) << p.data;
        gets += p.data.rfind("GET ", 0) == 0;
    }
    EXPECT_GE(gets, 6u);
    // The path traversal is itself a GET.
    for (const Payload &p : demo().payloads) {
        if (p.data.find("../../etc/passwd") != std::string::npos) {
            EXPECT_EQ(p.data.rfind("GET ", 0), 0u);
        }
    }
}

TEST(DemoTraffic, ProtocolMixAndSkips) {
    const wm_capture_stats_t &st = demo().stats;
    uint64_t skipped = 0;
    for (uint64_t s : st.skipped) skipped += s;
    EXPECT_EQ(st.payloads + skipped, st.packets);
    EXPECT_EQ(st.skipped[WM_SKIP_NOT_IP], 1u);      // ARP
    EXPECT_EQ(st.skipped[WM_SKIP_OTHER_PROTO], 2u); // ICMP echo + reply
    EXPECT_GT(st.skipped[WM_SKIP_NO_PAYLOAD], 20u); // handshakes, ACKs, FINs
    EXPECT_EQ(st.skipped[WM_SKIP_TRUNCATED] + st.skipped[WM_SKIP_MALFORMED] +
                  st.skipped[WM_SKIP_FRAGMENT] + st.skipped[WM_SKIP_UNSUPPORTED_LINK],
              0u);
    size_t v6 = 0, vlan = 0, dns = 0, smtp = 0;
    for (const Payload &p : demo().payloads) {
        v6 += p.ip_version == 6 && p.dport == 80;
        vlan += p.offset == 14 + 4 + 20 + 8; // the one 802.1Q-tagged UDP frame
        dns += p.proto == WM_PROTO_UDP && (p.dport == 53 || p.sport == 53);
        smtp += p.proto == WM_PROTO_TCP && (p.dport == 25 || p.sport == 25);
    }
    EXPECT_EQ(v6, 1u);
    EXPECT_EQ(vlan, 1u);
    EXPECT_EQ(dns, 5u); // two lookups with answers + the VLAN query
    EXPECT_GE(smtp, 10u);
}

TEST(DemoTraffic, FramesAreWellFormedAndDeterministic) {
    const auto a = wm::demo::demo_frames();
    const auto b = wm::demo::demo_frames();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].bytes, b[i].bytes);
        EXPECT_EQ(a[i].ts_sec, b[i].ts_sec);
        EXPECT_EQ(a[i].ts_usec, b[i].ts_usec);
        if (i > 0) {
            EXPECT_GE(uint64_t(a[i].ts_sec) * 1000000 + a[i].ts_usec,
                      uint64_t(a[i - 1].ts_sec) * 1000000 + a[i - 1].ts_usec);
        }
        // IPv4 header checksums verify (untagged frames).
        const Bytes &f = a[i].bytes;
        if (f.size() >= 34 && f[12] == 0x08 && f[13] == 0x00) {
            EXPECT_EQ(build::internet_checksum(f.data() + 14, size_t(f[14] & 0x0f) * 4), 0) << i;
        }
    }
    const std::string p1 = wm::test::scratch_path("a.pcap"), p2 = wm::test::scratch_path("b.pcap");
    EXPECT_EQ(wm::demo::write_demo_pcap(p1), a.size());
    wm::demo::write_demo_pcap(p2);
    std::ifstream f1(p1, std::ios::binary), f2(p2, std::ios::binary);
    const std::string s1((std::istreambuf_iterator<char>(f1)), {}), s2((std::istreambuf_iterator<char>(f2)), {});
    EXPECT_EQ(s1, s2);
    EXPECT_EQ(s1.size(), 24 + a.size() * 16 + [&] { size_t n = 0; for (auto &x : a) n += x.bytes.size(); return n; }());
}

} // namespace
} // namespace wm::capture::test
