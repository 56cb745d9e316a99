// tests/capture/test_capture_filter.cpp - replay's capture filter
// (capture/frame_filter.h): what it compiles and accepts, and the window
// reader with a filter against a plain libpcap read that applies the same
// expression (compiled on libpcap's own handle) record by record: the same
// packets with their numbers in the file, counters and errors, for every
// window size and number of parts, on crafted, damaged and real captures.
#include "capture_test_util.h"
#include "pcap_files.h"
#include "window_reads.h"

#include "plugin/src/capture/frame_filter.h"
#include "tests/pcap_filter_oracle.h"

#include <pcap/pcap.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace wm::capture::test {
namespace {

namespace b = build;
namespace fs = std::filesystem;

// The oracle: libpcap reads every record, its own compile of `expression`
// decides, and the accepted records are decoded and counted as a reader
// without a filter counts them.
Seen read_plain_filtered(const std::string &path, const std::string &expression) {
    Seen s;
    s.stats.struct_size = sizeof(s.stats);
    uint64_t records = 0;
    const std::string error = wm::test::visit_filtered_records(
        path, expression, [&](int dlt, uint64_t number, const pcap_pkthdr &h, const uint8_t *d, bool accepted) {
            records = number;
            if (!accepted) return;
            wm_packet_t pkt{};
            FrameLayers where;
            const int r =
                decode_record(dlt, number, h.ts.tv_sec, h.ts.tv_usec, h.caplen, h.len, d, &pkt, nullptr, &where);
            count_record(r, pkt, s.stats);
            if (r != kDecodedPayload) return;
            s.packets.push_back(pkt);
            s.payloads.emplace_back(pkt.payload, pkt.payload + pkt.payload_len);
            s.tunnels.push_back(where.tunnels > 0 ? std::optional<wm_tunnel_t>(tunnel_of(where)) : std::nullopt);
        });
    if (!error.empty()) s.error = record_error(path, records + 1, error.c_str());
    return s;
}

// Expressions over write_mixed's records: TCP payloads from ports 1001 up,
// ARP every 7th record, snaplen-cut frames every 11th.
const char *const kMixedFilters[] = {"tcp", "arp", "tcp src portrange 1000-1100", "greater 200",
                                     "udp", "not tcp", "tcp and len <= 60"};

void expect_filtered_reads_match(const std::string &path) {
    for (const char *f : kMixedFilters) {
        SCOPED_TRACE(std::string("filter '") + f + "'");
        const Seen want = read_plain_filtered(path, f);
        for (const Config &c : kConfigs) {
            SCOPED_TRACE("window " + std::to_string(c.window) + ", threads " + std::to_string(c.threads));
            expect_same(want, read_windows(path, c.window, c.threads, f));
        }
        expect_same(want, read_windows(path, 4096, 4, f, nullptr, Layout::InPlace));
    }
}

Bytes tcp_frame(uint16_t sport, uint16_t dport, const std::vector<b::VlanTag> &tags = {}) {
    return b::ethernet_ip(b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(sport, dport), b::bytes("GET / HTTP/1.1"))),
                          tags);
}

bool accepts(const FrameFilter &f, const Bytes &frame) {
    return f.accepts(frame.data(), uint32_t(frame.size()), uint32_t(frame.size()));
}

TEST(FrameFilter, AcceptsWhatTcpdumpWould) {
    const Bytes web = tcp_frame(40000, 80), mail = tcp_frame(40001, 25);
    const Bytes dns = b::ethernet_ip(b::ipv4(v4(), b::kProtoUdp, b::udp(5353, 53, b::bytes("q"))));
    const Bytes arp = b::arp_request(b::kMacA, kClient4, kServer4);
    const Bytes tagged = tcp_frame(40002, 80, {b::VlanTag{0x8100, 7}});
    const FrameFilter port80("tcp port 80", kDltEthernet), udp("udp", kDltEthernet), arps("arp", kDltEthernet),
        vlan7("vlan 7 and tcp", kDltEthernet);
    EXPECT_TRUE(accepts(port80, web));
    EXPECT_FALSE(accepts(port80, mail));
    EXPECT_FALSE(accepts(port80, dns));
    EXPECT_FALSE(accepts(port80, tagged)); // without `vlan`, tcpdump reads the tag as the ethertype
    EXPECT_TRUE(accepts(udp, dns));
    EXPECT_FALSE(accepts(udp, web));
    EXPECT_TRUE(accepts(arps, arp));
    EXPECT_FALSE(accepts(arps, web));
    EXPECT_TRUE(accepts(vlan7, tagged));
    EXPECT_FALSE(accepts(vlan7, web));
    // On raw IP frames the same expressions apply to the IP header.
    const Bytes raw = b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(40000, 80), b::bytes("x")));
    EXPECT_TRUE(accepts(FrameFilter("tcp port 80", kDltRaw), raw));
    EXPECT_FALSE(accepts(FrameFilter("udp", kDltRaw), raw));
    EXPECT_EQ(port80.expression(), "tcp port 80");
}

TEST(FrameFilter, AnExpressionThatDoesNotCompileNamesItselfAndTheLinkType) {
    auto error_of = [](const std::string &expression, int dlt) -> std::string {
        try {
            FrameFilter f(expression, dlt);
        } catch (const std::invalid_argument &e) {
            return e.what();
        }
        return "";
    };
    const std::string bad = error_of("tcp portt 80", kDltEthernet);
    EXPECT_NE(bad.find("capture filter 'tcp portt 80'"), std::string::npos) << bad;
    EXPECT_NE(bad.find("EN10MB"), std::string::npos) << bad;
    EXPECT_NE(bad.find("syntax error"), std::string::npos) << bad; // libpcap's reason
    // Valid syntax that the link type cannot carry: no MAC addresses in raw IP.
    const std::string raw = error_of("ether host 02:00:00:00:00:0a", kDltRaw);
    EXPECT_NE(raw.find("capture filter 'ether host 02:00:00:00:00:0a'"), std::string::npos) << raw;
    // A link type libpcap cannot filter (DLT_USER0) is named by its number.
    const std::string user0 = error_of("tcp", 147);
    EXPECT_NE(user0.find("capture filter 'tcp' (link type 147)"), std::string::npos) << user0;
    EXPECT_EQ(error_of("tcp", kDltEthernet), "");
}

TEST(WindowReaderFilter, MixedRecordsEqualTheFilteredPlainReadForEveryWindowAndThreadCount) {
    const std::string path = temp_path("mixed.pcap");
    write_mixed(path, 500);
    // The filters select something and leave something out, so numbering
    // across rejected records is exercised.
    const Seen all = read_plain(path), tcp = read_plain_filtered(path, "tcp src portrange 1000-1100");
    ASSERT_GT(tcp.packets.size(), 10u);
    ASSERT_LT(tcp.packets.size(), all.packets.size());
    EXPECT_EQ(read_plain_filtered(path, "arp").stats.packets, all.stats.skipped[WM_SKIP_NOT_IP]);
    expect_filtered_reads_match(path);
}

TEST(WindowReaderFilter, ACorruptRecordStopsTheReadWithItsNumberInTheFile) {
    const std::string path = mixed_with_corrupt_record("corrupt.pcap", 400, 250);
    const Seen want = read_plain_filtered(path, "tcp src portrange 1000-1100");
    EXPECT_NE(want.error.find("packet 251"), std::string::npos) << want.error;
    expect_filtered_reads_match(path);
}

TEST(WindowReaderFilter, RecordsLeftToLibpcapAreFilteredAndNumberedAlike) {
    // Over the snapshot length: from the first such record libpcap reads on.
    expect_filtered_reads_match(mixed_with_snaplen_100("snap.pcap", 200));
    // Version 2.3: libpcap reads the whole file.
    expect_filtered_reads_match(mixed_version_2_3("v23.pcap", 100));
}

TEST(WindowReaderFilter, AFilterThatRejectsEverythingEndsTheReadWithNothing) {
    const std::string path = temp_path("mixed.pcap");
    write_mixed(path, 300);
    for (const Config &c : kConfigs) {
        const Seen got = read_windows(path, c.window, c.threads, "udp");
        EXPECT_TRUE(got.packets.empty());
        EXPECT_EQ(got.stats.packets, 0u);
        EXPECT_TRUE(got.error.empty()) << got.error;
    }
}

// In a file of the other byte order libpcap swaps the CAN ID of Linux
// cooked (SLL) CAN frames, so a filter on it sees the swapped value: such a
// file is left to libpcap (it was read in place, and the filter kept none).
TEST(WindowReaderFilter, SwappedLinuxCookedCanFramesAreFilteredAsLibpcapSeesThem) {
    const std::string path = temp_path("sll_can_be.pcap");
    {
        auto be32 = [](std::vector<uint8_t> &d, uint32_t v) {
            for (int k = 3; k >= 0; --k) d.push_back(uint8_t(v >> (8 * k)));
        };
        auto be16 = [](std::vector<uint8_t> &d, uint16_t v) { d.push_back(uint8_t(v >> 8)), d.push_back(uint8_t(v)); };
        std::vector<uint8_t> d;
        be32(d, 0xa1b2c3d4u), be16(d, 2), be16(d, 4), be32(d, 0), be32(d, 0), be32(d, 65535), be32(d, 113);
        for (uint32_t i = 0; i < 3; ++i) {
            std::vector<uint8_t> f = {0, 0, 0x01, 0x18, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x0c}; // SLL, CAN
            for (uint8_t b : {0x23, 0x01, 0x00, 0x00}) f.push_back(b); // CAN ID 0x123, as the capturing host wrote it
            f.insert(f.end(), {8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8});
            be32(d, i + 1), be32(d, 0), be32(d, uint32_t(f.size())), be32(d, uint32_t(f.size()));
            d.insert(d.end(), f.begin(), f.end());
        }
        spit(path, d);
    }
    for (const char *f : {"link[16:4] = 0x123", "link[16:4] = 0x23010000"}) {
        SCOPED_TRACE(f);
        const Seen want = read_plain_filtered(path, f);
        expect_same(want, read_windows(path, 4096, 2, f));
    }
    EXPECT_EQ(read_plain_filtered(path, "link[16:4] = 0x123").stats.packets, 3u) << "libpcap swaps the ID";
}

TEST(WindowReaderFilter, RandomlyDamagedFilesEqualTheFilteredPlainRead) {
    for_each_damaged_mixed("damaged.pcap", 120, [](const std::string &path) {
        char errbuf[PCAP_ERRBUF_SIZE] = "";
        pcap_t *probe = pcap_open_offline(path.c_str(), errbuf);
        if (probe == nullptr) return; // a damaged file header: test_window_reader's case
        pcap_close(probe);
        const Seen want = read_plain_filtered(path, "tcp src portrange 1000-1040 or arp");
        for (const Config &c : {Config{700, 3}, Config{16 << 20, 5}})
            expect_same(want, read_windows(path, c.window, c.threads, "tcp src portrange 1000-1040 or arp"));
    });
}

TEST(WindowReaderFilter, EveryRealCaptureEqualsTheFilteredPlainRead) {
    const fs::path dir = fs::path(WM_TEST_DATA_DIR);
    if (!fs::exists(dir / "pcaps")) GTEST_SKIP() << "real captures not found at " << dir;
    size_t files = 0, kept = 0;
    for (const auto &e : fs::recursive_directory_iterator(dir / "pcaps")) {
        const std::string ext = e.path().extension().string();
        if (!e.is_regular_file() || (ext != ".pcap" && ext != ".pcapng" && ext != ".cap")) continue;
        SCOPED_TRACE(e.path().string());
        for (const char *f : {"udp", "tcp port 80 or tcp port 443"}) {
            SCOPED_TRACE(f);
            const Seen want = read_plain_filtered(e.path().string(), f);
            expect_same(want, read_windows(e.path().string(), 256 << 10, 4, f));
            kept += want.packets.size();
        }
        ++files;
    }
    EXPECT_GT(files, 10u);
    EXPECT_GT(kept, 0u);
}

} // namespace
} // namespace wm::capture::test
