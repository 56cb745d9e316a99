// tests/capture/test_offline_capture.cpp - OfflineCapture on files written
// by PcapWriter: counting, link types, snaplen, corrupt/truncated files.
#include "capture_test_util.h"

#include "plugin/src/capture/offline_capture.h"
#include "plugin/src/capture/pcap_writer.h"

#include <filesystem>
#include <fstream>

namespace wm::capture::test {
namespace {

namespace b = build;
namespace fs = std::filesystem;

Bytes tcp_frame(const std::string &payload, uint16_t sport = 40000) {
    return b::ethernet_ip(b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(sport, 80), b::bytes(payload))));
}

// Reads all payloads; returns them with their packet numbers.
std::vector<std::pair<uint64_t, std::string>> read_all(OfflineCapture &cap) {
    std::vector<std::pair<uint64_t, std::string>> out;
    wm_packet_t p{};
    while (cap.next(&p) == WM_SUCCESS)
        out.emplace_back(p.number, std::string(p.payload, p.payload + p.payload_len));
    return out;
}

uint64_t skipped_total(const wm_capture_stats_t &st) {
    uint64_t n = 0;
    for (uint64_t s : st.skipped) n += s;
    return n;
}

TEST(OfflineCapture, CountsEveryRecordOnce) {
    const std::string path = temp_path("mixed.pcap");
    b::TcpSpec syn = tcp_ports(40000, 80);
    syn.flags = b::kSyn;
    b::Ipv4Spec frag = v4();
    frag.frag = 0x2000;
    const std::vector<Bytes> frames = {
        tcp_frame("first"),
        b::arp_request(b::kMacA, kClient4, kServer4),
        b::ethernet_ip(b::ipv4(v4(), b::kProtoIcmp, b::icmp_echo(true, 1, 1, {}))),
        b::ethernet_ip(b::ipv4(v4(), b::kProtoTcp, b::tcp(syn, {}))),
        b::ethernet_ip(b::ipv4(frag, b::kProtoUdp, b::udp(1, 2, Bytes(100, 0)))),
        Bytes(10, 0), // runt, captured whole: malformed (short on the wire, not cut by a snap length)
        b::ethernet_ip(b::ipv6(v6(), b::kProtoUdp, b::udp(5353, 53, b::bytes("sixth")))),
    };
    uint64_t bytes = 0;
    {
        PcapWriter w(path, kLinktypeEthernet);
        for (size_t i = 0; i < frames.size(); ++i) {
            w.write(frames[i], 1700000000 + uint32_t(i), uint32_t(i * 1000));
            bytes += frames[i].size();
        }
        w.close();
    }
    OfflineCapture cap(path);
    EXPECT_EQ(cap.link_type(), kDltEthernet);
    EXPECT_EQ(cap.path(), path);
    wm_packet_t p{};
    ASSERT_EQ(cap.next(&p), WM_SUCCESS);
    EXPECT_EQ(p.number, 1u);
    EXPECT_EQ(p.ts_sec, 1700000000);
    EXPECT_EQ(p.ts_usec, 0);
    EXPECT_EQ(p.caplen, frames[0].size());
    EXPECT_EQ(p.wirelen, frames[0].size());
    EXPECT_EQ(p.struct_size, sizeof p);
    EXPECT_EQ(std::string(p.payload, p.payload + p.payload_len), "first");
    ASSERT_EQ(cap.next(&p), WM_SUCCESS);
    EXPECT_EQ(p.number, 7u);
    EXPECT_EQ(p.ts_sec, 1700000006);
    EXPECT_EQ(p.ts_usec, 6000);
    EXPECT_EQ(p.ip_version, 6);
    EXPECT_EQ(std::string(p.payload, p.payload + p.payload_len), "sixth");
    EXPECT_EQ(cap.next(&p), WM_END);
    EXPECT_EQ(cap.next(&p), WM_END); // stays at the end

    const wm_capture_stats_t &st = cap.stats();
    EXPECT_EQ(st.struct_size, sizeof st);
    EXPECT_EQ(st.packets, 7u);
    EXPECT_EQ(st.bytes, bytes);
    EXPECT_EQ(st.payloads, 2u);
    EXPECT_EQ(st.payload_bytes, 10u);
    EXPECT_EQ(st.snaplen_truncated, 0u);
    EXPECT_EQ(st.skipped[WM_SKIP_NOT_IP], 1u);
    EXPECT_EQ(st.skipped[WM_SKIP_OTHER_PROTO], 1u);
    EXPECT_EQ(st.skipped[WM_SKIP_NO_PAYLOAD], 1u);
    EXPECT_EQ(st.skipped[WM_SKIP_FRAGMENT], 1u);
    EXPECT_EQ(st.skipped[WM_SKIP_TRUNCATED], 0u);
    EXPECT_EQ(st.skipped[WM_SKIP_MALFORMED], 1u);
    EXPECT_EQ(st.payloads + skipped_total(st), st.packets);
}

TEST(OfflineCapture, EveryLinkType) {
    const Bytes ip4 = b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(1, 2), b::bytes("four")));
    const Bytes ip6 = b::ipv6(v6(), b::kProtoUdp, b::udp(3, 4, b::bytes("six")));
    struct L {
        uint32_t linktype;
        int dlt;
        std::vector<Bytes> frames;
    };
    const std::vector<L> links = {
        {kLinktypeEthernet, kDltEthernet, {b::ethernet_ip(ip4), b::ethernet_ip(ip6)}},
        {kLinktypeLinuxSll, kDltLinuxSll, {b::sll(0x0800, ip4), b::sll(0x86dd, ip6)}},
        {kLinktypeLinuxSll2, kDltLinuxSll2, {b::sll2(0x0800, ip4), b::sll2(0x86dd, ip6)}},
        {kLinktypeRaw, kDltRaw, {ip4, ip6}}, // libpcap maps LINKTYPE_RAW to DLT_RAW
        {kLinktypeIpv4, kDltIpv4, {ip4}},
        {kLinktypeIpv6, kDltIpv6, {ip6}},
        {kLinktypeNull, kDltNull, {b::loopback(2, ip4, false), b::loopback(30, ip6, false)}},
        {kLinktypeLoop, kDltLoop, {b::loopback(2, ip4, true), b::loopback(24, ip6, true)}},
    };
    for (const L &l : links) {
        SCOPED_TRACE(l.linktype);
        const std::string path = temp_path("link" + std::to_string(l.linktype) + ".pcap");
        PcapWriter w(path, l.linktype);
        for (const Bytes &f : l.frames) w.write(f, 1, 2);
        w.close();
        OfflineCapture cap(path);
        EXPECT_EQ(cap.link_type(), l.dlt);
        auto got = read_all(cap);
        ASSERT_EQ(got.size(), l.frames.size());
        EXPECT_EQ(got[0].second, l.dlt == kDltIpv6 ? "six" : "four");
        if (got.size() > 1) {
            EXPECT_EQ(got[1].second, "six");
        }
    }
    // A link type we do not decode: every record counted as unsupported.
    const std::string path = temp_path("user0.pcap");
    PcapWriter w(path, 147 /* USER0 */);
    w.write(b::concat(Bytes{0xff, 0x03, 0x00, 0x21}, ip4), 1, 0);
    w.close();
    OfflineCapture cap(path);
    EXPECT_TRUE(read_all(cap).empty());
    EXPECT_EQ(cap.stats().skipped[WM_SKIP_UNSUPPORTED_LINK], 1u);
}

TEST(OfflineCapture, SnaplenTruncatedPacketsAreCountedAndClipped) {
    const std::string path = temp_path("snap.pcap");
    const Bytes full = tcp_frame(std::string(200, 'A'));
    {
        PcapWriter w(path, kLinktypeEthernet, 96);
        w.write(Bytes(full.begin(), full.begin() + 96), 1, 0, uint32_t(full.size())); // payload clipped
        w.write(Bytes(full.begin(), full.begin() + 40), 2, 0, uint32_t(full.size()));  // header cut
        w.write(tcp_frame("whole"), 3, 0);
        w.close();
    }
    OfflineCapture cap(path);
    wm_packet_t p{};
    ASSERT_EQ(cap.next(&p), WM_SUCCESS);
    EXPECT_EQ(p.caplen, 96u);
    EXPECT_EQ(p.wirelen, full.size());
    EXPECT_EQ(p.payload_len, 96u - 54u);
    ASSERT_EQ(cap.next(&p), WM_SUCCESS);
    EXPECT_EQ(p.number, 3u);
    EXPECT_EQ(cap.next(&p), WM_END);
    EXPECT_EQ(cap.stats().snaplen_truncated, 2u);
    EXPECT_EQ(cap.stats().skipped[WM_SKIP_TRUNCATED], 1u);
    EXPECT_EQ(cap.stats().payload_bytes, 42u + 5u);
}

// Writes n payload frames "packet-1".."packet-n"; returns the file size
// before the last record.
uintmax_t write_numbered(const std::string &path, int n) {
    PcapWriter w(path, kLinktypeEthernet);
    size_t last_record = 0;
    for (int i = 1; i <= n; ++i) {
        const Bytes f = tcp_frame("packet-" + std::to_string(i));
        w.write(f, uint32_t(i), 0);
        last_record = 16 + f.size();
    }
    w.close();
    return fs::file_size(path) - last_record;
}

TEST(OfflineCapture, TruncatedLastRecordDeliversEverythingBeforeThenThrows) {
    for (const char *where : {"mid-data", "mid-header"}) {
        SCOPED_TRACE(where);
        const std::string path = temp_path(std::string(where) + ".pcap");
        const uintmax_t before_last = write_numbered(path, 4);
        const uintmax_t last_len = fs::file_size(path) - before_last;
        const bool mid_data = std::string(where) == "mid-data";
        fs::resize_file(path, before_last + (mid_data ? 16 + (last_len - 16) / 2 : 8));

        OfflineCapture cap(path);
        wm_packet_t p{};
        for (uint64_t i = 1; i <= 3; ++i) {
            ASSERT_EQ(cap.next(&p), WM_SUCCESS);
            EXPECT_EQ(p.number, i);
            EXPECT_EQ(std::string(p.payload, p.payload + p.payload_len), "packet-" + std::to_string(i));
        }
        try {
            cap.next(&p);
            FAIL() << "expected CaptureError";
        } catch (const CaptureError &e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(path), std::string::npos) << msg;
            EXPECT_NE(msg.find("packet 4"), std::string::npos) << msg;
            EXPECT_NE(msg.find("truncated"), std::string::npos) << msg; // libpcap's reason
        }
        EXPECT_EQ(cap.stats().packets, 3u);
        EXPECT_EQ(cap.stats().payloads, 3u);
        EXPECT_THROW(cap.next(&p), CaptureError); // the error sticks
    }
}

TEST(OfflineCapture, CorruptGlobalHeader) {
    const std::string path = temp_path("corrupt.pcap");
    write_numbered(path, 2);
    {
        std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
        f.write("NOPE", 4); // clobber the magic number
    }
    try {
        OfflineCapture cap(path);
        FAIL() << "expected CaptureError";
    } catch (const CaptureError &e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind("cannot open " + path + ": ", 0), 0u) << msg;
        EXPECT_GT(msg.size(), ("cannot open " + path + ": ").size()) << "libpcap's reason is missing";
    }
    // A header cut short is just as unopenable.
    fs::resize_file(path, 10);
    EXPECT_THROW(OfflineCapture{path}, CaptureError);
}

TEST(OfflineCapture, NonexistentFileNamesThePath) {
    const std::string path = temp_path("does-not-exist.pcap");
    try {
        OfflineCapture cap(path);
        FAIL() << "expected CaptureError";
    } catch (const CaptureError &e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind("cannot open " + path + ": ", 0), 0u) << msg;
        EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
    }
}

TEST(OfflineCapture, EmptyCaptureEndsAtOnce) {
    const std::string path = temp_path("empty.pcap");
    PcapWriter(path, kLinktypeEthernet).close();
    OfflineCapture cap(path);
    wm_packet_t p{};
    EXPECT_EQ(cap.next(&p), WM_END);
    EXPECT_EQ(cap.stats().packets, 0u);
}

} // namespace
} // namespace wm::capture::test
