// tests/capture/test_real_captures.cpp - every shared real capture (pcap
// and pcapng) read to the end with consistent totals. Skips, naming the
// path, when the shared data was not unpacked.
#include "plugin/src/capture/offline_capture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

namespace wm::capture::test {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> captures_under(const fs::path &dir) {
    std::vector<fs::path> out;
    for (const auto &e : fs::recursive_directory_iterator(dir)) {
        const std::string ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".pcap" || ext == ".pcapng" || ext == ".cap"))
            out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

struct Totals {
    uint64_t packets = 0, payloads = 0;
};

Totals read_capture(const fs::path &path) {
    SCOPED_TRACE(path.string());
    Totals t;
    OfflineCapture cap(path.string());
    wm_packet_t p{};
    uint64_t last_number = 0, payloads = 0, payload_bytes = 0;
    int rc;
    while ((rc = cap.next(&p)) == WM_SUCCESS) {
        EXPECT_GT(p.number, last_number);
        last_number = p.number;
        EXPECT_NE(p.payload, nullptr);
        EXPECT_GT(p.payload_len, 0u);
        EXPECT_LE(uint64_t(p.payload_offset) + p.payload_len, p.caplen);
        EXPECT_TRUE(p.ip_version == 4 || p.ip_version == 6);
        EXPECT_TRUE(p.proto == WM_PROTO_TCP || p.proto == WM_PROTO_UDP);
        ++payloads;
        payload_bytes += p.payload_len;
    }
    EXPECT_EQ(rc, WM_END);
    const wm_capture_stats_t &st = cap.stats();
    uint64_t skipped = 0;
    for (uint64_t s : st.skipped) skipped += s;
    EXPECT_GT(st.packets, 0u);
    EXPECT_LE(st.payloads, st.packets);
    EXPECT_EQ(st.payloads + skipped, st.packets);
    EXPECT_EQ(st.payloads, payloads);
    EXPECT_EQ(st.payload_bytes, payload_bytes);
    EXPECT_LE(st.payload_bytes, st.bytes);
    EXPECT_EQ(st.skipped[WM_SKIP_UNSUPPORTED_LINK], 0u) << "all shared captures are Ethernet";
    t.packets = st.packets;
    t.payloads = st.payloads;
    return t;
}

TEST(RealCaptures, SmallCapturesReadToTheEnd) {
    const fs::path dir = fs::path(WM_TEST_DATA_DIR) / "pcaps";
    if (!fs::is_directory(dir)) GTEST_SKIP() << "shared captures not unpacked: " << dir;
    const std::vector<fs::path> files = captures_under(dir);
    ASSERT_GE(files.size(), 43u) << dir;
    Totals all;
    for (const fs::path &f : files) {
        const Totals t = read_capture(f);
        all.packets += t.packets;
        all.payloads += t.payloads;
    }
    // Mostly TCP/UDP traffic with data: a decoder that skips everything fails.
    EXPECT_GT(all.payloads, all.packets / 4);
}

TEST(RealCaptures, LargeMergedTrace) {
    const fs::path file = fs::path(WM_TEST_DATA_DIR) / "pcaps-large" / "merged-zeek-traces.pcap";
    if (!fs::is_regular_file(file)) GTEST_SKIP() << "large capture not unpacked: " << file;
    const Totals t = read_capture(file);
    EXPECT_GT(t.packets, 100000u);
    EXPECT_GT(t.payloads, 0u);
}

} // namespace
} // namespace wm::capture::test
