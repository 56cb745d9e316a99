// OfflineFrames reads a classic pcap in place (capture::PcapFile) until a
// record libpcap must read itself: every frame, header and error equals a
// read through libpcap alone, on crafted files (corrupt and truncated
// records, records over the snapshot length, old versions, big-endian,
// random damage) and on every shared real capture.
#include "stream/pcap_source.h"
#include "tests/capture/pcap_files.h"

#include <pcap/pcap.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace wm::stream::test {
namespace {

namespace fs = std::filesystem;
using capture::test::put_le32;
using capture::test::slurp;
using capture::test::spit;
using capture::test::temp_path;
using capture::test::write_mixed;

struct Frames {
    std::vector<std::string> frames; // header fields, then the bytes
    std::string error;
    uint64_t in_place = 0;
};

Frames read_all(const std::string &path, bool in_place) {
    Frames f;
    OfflineFrames src(path, in_place);
    const pcap_pkthdr *h = nullptr;
    const uint8_t *d = nullptr;
    try {
        while (src.next(&h, &d) == 1)
            f.frames.push_back(std::to_string(h->ts.tv_sec) + "." + std::to_string(h->ts.tv_usec) + " " +
                               std::to_string(h->caplen) + "/" + std::to_string(h->len) + ":" +
                               std::string(reinterpret_cast<const char *>(d), h->caplen));
    } catch (const PcapError &e) {
        f.error = e.what();
    }
    f.in_place = src.read_in_place();
    return f;
}

// The in-place read equals libpcap's; returns how many frames it read in place.
uint64_t expect_same_as_libpcap(const std::string &path) {
    const Frames want = read_all(path, false), got = read_all(path, true);
    EXPECT_EQ(want.in_place, 0u);
    EXPECT_EQ(got.error, want.error);
    EXPECT_EQ(got.frames.size(), want.frames.size());
    for (size_t i = 0; i < std::min(got.frames.size(), want.frames.size()); ++i)
        if (got.frames[i] != want.frames[i]) {
            ADD_FAILURE() << "frame " << i + 1 << " differs";
            break;
        }
    return got.in_place;
}

// A file cut short while it is read (logrotate's copytruncate): the frames
// before the cut, then libpcap's error at the record cut, as a plain read of
// the cut file gives. Read through a mapping it was SIGBUS.
TEST(OfflineFrames, AFileThatShrinksWhileReadEndsWithThePlainReadsError) {
    const std::string path = temp_path("frames_shrinks.pcap");
    { // 14 MB: past what the first read of the file takes in (4 MB)
        capture::PcapWriter w(path, capture::kLinktypeEthernet);
        for (uint32_t i = 1; i <= 1000; ++i)
            w.write(capture::build::ethernet_ip(capture::build::ipv4(
                        capture::test::v4(), capture::build::kProtoUdp,
                        capture::build::udp(53, 53, capture::build::bytes(std::string(14000, char('a' + i % 26)))))),
                    i, 0);
        w.close();
    }
    const std::vector<uint8_t> d = slurp(path);
    const size_t at = capture::test::record_offsets(d)[800] + 30;
    spit(path, std::vector<uint8_t>(d.begin(), d.begin() + long(at)));
    const Frames want = read_all(path, false);
    ASSERT_EQ(want.frames.size(), 800u);
    ASSERT_NE(want.error.find("packet 801"), std::string::npos) << want.error;
    spit(path, d);
    Frames got;
    OfflineFrames src(path, true);
    const pcap_pkthdr *h = nullptr;
    const uint8_t *data = nullptr;
    try {
        while (src.next(&h, &data) == 1) {
            got.frames.push_back(std::to_string(h->ts.tv_sec) + "." + std::to_string(h->ts.tv_usec) + " " +
                                 std::to_string(h->caplen) + "/" + std::to_string(h->len) + ":" +
                                 std::string(reinterpret_cast<const char *>(data), h->caplen));
            if (got.frames.size() == 10) fs::resize_file(path, at);
        }
    } catch (const PcapError &e) {
        got.error = e.what();
    }
    EXPECT_EQ(got.error, want.error);
    EXPECT_EQ(got.frames, want.frames);
}

TEST(OfflineFrames, MixedRecordsAreReadInPlaceAsLibpcapReadsThem) {
    const std::string path = temp_path("frames_mixed.pcap");
    write_mixed(path, 500);
    EXPECT_EQ(expect_same_as_libpcap(path), 500u);
}

// Many times the reader's 4 MB reads: records run across their ends.
TEST(OfflineFrames, AFileManyTimesTheReadSizeEqualsLibpcap) {
    const std::string path = temp_path("frames_large.pcap");
    {
        capture::PcapWriter w(path, capture::kLinktypeEthernet);
        for (uint32_t i = 1; i <= 3000; ++i) {
            std::string payload(14000 + i % 500, char('a' + i % 26));
            payload.back() = 'Z';
            w.write(capture::build::ethernet_ip(capture::build::ipv4(
                        capture::test::v4(), capture::build::kProtoUdp,
                        capture::build::udp(uint16_t(2000 + i % 100), 53, capture::build::bytes(payload)))),
                    i, 0);
        }
        w.close();
    }
    ASSERT_GT(fs::file_size(path), uint64_t{40} << 20);
    EXPECT_EQ(expect_same_as_libpcap(path), 3000u);
    fs::remove(path);
}

TEST(OfflineFrames, CorruptRecordGivesLibpcapsErrorAfterTheSameFrames) {
    const std::string path = capture::test::mixed_with_corrupt_record("frames_corrupt.pcap", 400, 250);
    const Frames got = read_all(path, true);
    EXPECT_NE(got.error.find("packet 251"), std::string::npos) << got.error;
    EXPECT_EQ(got.frames.size(), 250u);
    EXPECT_EQ(expect_same_as_libpcap(path), 250u);
}

TEST(OfflineFrames, TruncatedFileGivesLibpcapsError) {
    for (size_t cut : {5, 20}) { // inside the last record's data, inside its header
        SCOPED_TRACE(cut);
        const std::string path = capture::test::mixed_cut_short("frames_cut" + std::to_string(cut) + ".pcap", 300, cut);
        EXPECT_FALSE(read_all(path, false).error.empty());
        EXPECT_EQ(expect_same_as_libpcap(path), 299u);
    }
}

TEST(OfflineFrames, RecordsLibpcapChangesAreLeftToIt) {
    // Over the snapshot length: libpcap cuts the record, and reads on from it.
    const std::string snap = capture::test::mixed_with_snaplen_100("frames_snap.pcap", 200);
    const uint64_t in_place = expect_same_as_libpcap(snap);
    EXPECT_GT(in_place, 0u);
    EXPECT_LT(in_place, 200u);
    // Version 2.3 (caplen and len may be interchanged): all of it by libpcap.
    const std::string old = capture::test::mixed_version_2_3("frames_v23.pcap", 100);
    EXPECT_EQ(expect_same_as_libpcap(old), 0u);
}

TEST(OfflineFrames, RandomlyDamagedFilesEqualLibpcap) {
    capture::test::for_each_damaged_mixed("frames_damaged.pcap", 300, [](const std::string &path) {
        std::string open_error[2]; // a damaged file header: opened by neither
        for (bool in_place : {false, true}) try {
                OfflineFrames probe(path, in_place);
            } catch (const PcapError &e) {
                open_error[in_place] = e.what();
            }
        EXPECT_EQ(open_error[1], open_error[0]);
        if (open_error[0].empty()) expect_same_as_libpcap(path);
    });
}

TEST(OfflineFrames, EveryRealCaptureEqualsLibpcap) {
    const fs::path dir = fs::path(WM_TEST_DATA_DIR);
    if (!fs::exists(dir / "pcaps")) GTEST_SKIP() << "real captures not found at " << dir;
    size_t files = 0, in_place = 0;
    for (const auto &e : fs::recursive_directory_iterator(dir)) {
        const std::string ext = e.path().extension().string();
        if (!e.is_regular_file() || (ext != ".pcap" && ext != ".pcapng" && ext != ".cap")) continue;
        SCOPED_TRACE(e.path().string());
        in_place += expect_same_as_libpcap(e.path().string()) > 0;
        ++files;
    }
    EXPECT_GT(files, 10u);
    EXPECT_GT(in_place, files / 2) << "most shared captures are classic pcap";
}

} // namespace
} // namespace wm::stream::test
