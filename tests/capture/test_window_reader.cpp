// tests/capture/test_window_reader.cpp - the windowed, parallel reader
// against a plain sequential OfflineCapture read (libpcap): same packets in
// the same order, same numbers, time stamps, payloads, counters and errors,
// for every window size and number of parts; on crafted files (byte-swapped,
// nanosecond, corrupt or truncated records, records over the snapshot
// length, payloads that look like records, old versions, random damage)
// and on every shared real capture.
#include "capture_test_util.h"
#include "pcap_files.h"
#include "window_reads.h"

#include "plugin/src/capture/offline_capture.h"
#include "plugin/src/capture/pcap_writer.h"
#include "plugin/src/capture/window_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace wm::capture::test {
namespace {

namespace b = build;
namespace fs = std::filesystem;

// Payloads left where the file has them (WindowReader::set_payloads_in_place).
Seen read_in_place(const std::string &path, uint64_t window, unsigned threads) {
    return read_windows(path, window, threads, {}, nullptr, Layout::InPlace);
}

void expect_all_configs_match(const std::string &path) {
    const Seen want = read_plain(path);
    for (const Config &c : kConfigs) {
        SCOPED_TRACE("window " + std::to_string(c.window) + ", threads " + std::to_string(c.threads));
        expect_same(want, read_windows(path, c.window, c.threads));
        expect_same(want, read_in_place(path, c.window, c.threads));
    }
}

TEST(WindowReader, MixedRecordsEqualThePlainReadForEveryWindowAndThreadCount) {
    const std::string path = temp_path("mixed.pcap");
    write_mixed(path, 500);
    const Seen plain = read_plain(path);
    ASSERT_GT(plain.stats.skipped[WM_SKIP_NOT_IP], 0u);
    ASSERT_GT(plain.stats.snaplen_truncated, 0u);
    expect_all_configs_match(path);
    const Seen sliced = read_windows(path, 4096, 4);
    EXPECT_GT(sliced.windows, 10u);
    EXPECT_EQ(sliced.most_parts, 4u * WindowReader::kPartsPerThread);
    const Seen in_place = read_in_place(path, 4096, 4);
    EXPECT_EQ(in_place.in_place, in_place.windows) << "every window left in place";
}

// Records far longer than a part (each part's buffer holds its bytes and 4 KB
// more): their bytes are read on their own; in place, they are then copied
// into the buffer the parts read together.
TEST(WindowReader, RecordsLongerThanAPartAreReadWhole) {
    const std::string path = temp_path("jumbo.pcap");
    {
        PcapWriter w(path, kLinktypeEthernet);
        for (int i = 1; i <= 60; ++i) {
            const size_t len = i % 3 == 0 ? 9000 + 797 * size_t(i) : size_t(i);
            std::string payload(len, char('a' + i % 26));
            payload.back() = 'Z'; // a lost tail would show
            w.write(b::ethernet_ip(b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(uint16_t(2000 + i), 80),
                                                                      b::bytes(payload)))),
                    uint32_t(i), uint32_t(i));
        }
        w.close();
    }
    const Seen want = read_plain(path);
    ASSERT_EQ(want.packets.size(), 60u);
    expect_same(want, read_windows(path, 16 << 10, 4));
    expect_same(want, read_windows(path, 200 << 10, 2));
    for (uint64_t window : {uint64_t{1}, uint64_t{16} << 10, uint64_t{200} << 10}) {
        SCOPED_TRACE("in place, window " + std::to_string(window));
        const Seen got = read_in_place(path, window, 4);
        expect_same(want, got);
        EXPECT_EQ(got.in_place, got.windows);
    }
}

// A part's first record is found by testing every offset from the part's
// start, up to a record's length: parts must span many records of the size
// that such a start falls in. After the first window (no sizes known yet),
// 60 KB records (GRO captures) leave 1 MB windows in one part, while small
// records keep every part the threads allow, and so do windows of many
// small records with a few big ones. All read as libpcap does.
TEST(WindowReader, PartsSpanManyRecordsOfTheSizeTheirStartsFallIn) {
    const auto parts_per_window = [](const std::string &path, bool in_place) {
        WindowReader r(path, 1 << 20, 4);
        r.set_payloads_in_place(in_place);
        PayloadWindow w;
        std::vector<uint8_t> buf;
        std::vector<unsigned> parts;
        while (r.next(w, [&](size_t n) {
            buf.resize(n);
            return buf.data();
        }))
            parts.push_back(r.parts_used());
        return parts;
    };
    const auto write = [](const std::string &path, int records, size_t (*len)(int)) {
        PcapWriter w(path, kLinktypeEthernet);
        for (int i = 1; i <= records; ++i) {
            std::string payload(len(i), char('a' + i % 26));
            payload.back() = 'Z';
            w.write(b::ethernet_ip(b::ipv4(v4(), b::kProtoUdp, b::udp(uint16_t(2000 + i % 50), 53, b::bytes(payload)))),
                    uint32_t(i), 0);
        }
        w.close();
    };
    const std::string big = temp_path("gro.pcap"), small = temp_path("small.pcap"), mixed = temp_path("mixed.pcap");
    write(big, 120, [](int i) { return size_t(60000 + 13 * i); }); // ~7 MB
    write(small, 30000, [](int i) { return size_t(40 + i % 200); }); // ~5 MB
    write(mixed, 30000, [](int i) { return size_t(i % 500 == 0 ? 60000 : 40 + i % 200); }); // one big per 500
    for (bool in_place : {false, true}) {
        SCOPED_TRACE(in_place ? "in place" : "packed");
        const auto big_parts = parts_per_window(big, in_place);
        ASSERT_GT(big_parts.size(), 5u);
        EXPECT_EQ(big_parts[0], 4u * WindowReader::kPartsPerThread) << "no record sizes known before the first window";
        for (size_t k = 1; k + 1 < big_parts.size(); ++k) EXPECT_EQ(big_parts[k], 1u) << "window " << k;
        const auto small_parts = parts_per_window(small, in_place);
        ASSERT_GT(small_parts.size(), 3u);
        for (size_t k = 0; k + 1 < small_parts.size(); ++k)
            EXPECT_EQ(small_parts[k], 4u * WindowReader::kPartsPerThread) << "window " << k;
        const auto mixed_parts = parts_per_window(mixed, in_place);
        ASSERT_GT(mixed_parts.size(), 3u);
        for (size_t k = 1; k + 1 < mixed_parts.size(); ++k) EXPECT_GE(mixed_parts[k], 4u) << "window " << k;
    }
    for (const std::string &path : {big, small, mixed}) {
        const Seen want = read_plain(path);
        expect_same(want, read_windows(path, 1 << 20, 4));
        expect_same(want, read_in_place(path, 1 << 20, 4));
    }
}

// In place, a window's buffer holds its own bytes and kInPlaceSlack more:
// room for the longest record read in place (262,144 bytes) starting at the
// window's last byte.
TEST(WindowReader, TheLongestRecordsFitPastAWindowInPlace) {
    const std::string path = temp_path("longest.pcap");
    {
        PcapWriter w(path, kLinktypeEthernet);
        for (int i = 1; i <= 6; ++i) {
            const size_t len = i % 2 ? 262144 - 54 : size_t(i); // Ethernet, IPv4, TCP: 54 bytes of headers
            std::string payload(len, char('a' + i));
            payload.back() = 'Z';
            w.write(b::ethernet_ip(b::ipv4(v4(), b::kProtoTcp, b::tcp(tcp_ports(uint16_t(2000 + i), 80),
                                                                      b::bytes(payload)))),
                    uint32_t(i), 0);
        }
        w.close();
    }
    const Seen want = read_plain(path);
    ASSERT_EQ(want.packets.size(), 6u);
    ASSERT_EQ(want.packets[0].caplen, 262144u);
    for (uint64_t window : {uint64_t{1}, uint64_t{4096}, uint64_t{300} << 10}) {
        SCOPED_TRACE("window " + std::to_string(window));
        const Seen got = read_in_place(path, window, 3);
        expect_same(want, got);
        EXPECT_EQ(got.in_place, got.windows);
    }
}

TEST(WindowReader, BigEndianFileIsSlicedToo) {
    const std::string path = temp_path("le.pcap"), swapped = temp_path("be.pcap");
    write_mixed(path, 200);
    std::vector<uint8_t> d = slurp(path);
    const auto recs = record_offsets(d);
    auto swap32 = [&](size_t at) { std::reverse(d.begin() + long(at), d.begin() + long(at) + 4); };
    auto swap16 = [&](size_t at) { std::swap(d[at], d[at + 1]); };
    swap32(0);
    swap16(4);
    swap16(6);
    for (size_t at : {8, 12, 16, 20}) swap32(at);
    for (size_t r : recs)
        for (size_t k = 0; k < 16; k += 4) swap32(r + k);
    spit(swapped, d);
    const Seen want = read_plain(path);
    ASSERT_EQ(want.stats.packets, 200u);
    for (const Config &c : kConfigs) {
        expect_same(want, read_windows(swapped, c.window, c.threads));
        expect_same(want, read_in_place(swapped, c.window, c.threads));
    }
}

TEST(WindowReader, CorruptRecordMidFileStopsThereWithThePlainReadsError) {
    const std::string path = mixed_with_corrupt_record("corrupt.pcap", 400, 250);
    const Seen want = read_plain(path);
    ASSERT_FALSE(want.error.empty());
    EXPECT_NE(want.error.find("packet 251"), std::string::npos) << want.error;
    ASSERT_EQ(want.stats.packets, 250u);
    expect_all_configs_match(path);
}

TEST(WindowReader, TruncatedFileEndsWithThePlainReadsError) {
    for (size_t cut : {5, 20}) { // inside the last record's data, inside its header
        SCOPED_TRACE(cut);
        const std::string path = mixed_cut_short("cut" + std::to_string(cut) + ".pcap", 300, cut);
        const Seen want = read_plain(path);
        ASSERT_FALSE(want.error.empty());
        expect_all_configs_match(path);
    }
}

TEST(WindowReader, RandomlyDamagedFilesEqualThePlainRead) {
    for_each_damaged_mixed("damaged.pcap", 300, [](const std::string &path) {
        std::string open_error; // a damaged file header: neither reader opens it
        try {
            OfflineCapture probe(path);
        } catch (const CaptureError &e) {
            open_error = e.what();
        }
        if (!open_error.empty()) {
            try {
                WindowReader r(path, 700, 3);
                ADD_FAILURE() << "opened what libpcap does not: " << open_error;
            } catch (const CaptureError &e) {
                EXPECT_EQ(e.what(), open_error);
            }
            return;
        }
        const Seen want = read_plain(path);
        for (const Config &c : {Config{700, 3}, Config{16 << 20, 5}}) {
            SCOPED_TRACE("window " + std::to_string(c.window));
            expect_same(want, read_windows(path, c.window, c.threads));
            expect_same(want, read_in_place(path, c.window, c.threads));
        }
    });
}

// A record header as a little-endian classic pcap holds it.
std::vector<uint8_t> record_header(uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t len) {
    std::vector<uint8_t> h(16);
    put_le32(h, 0, sec);
    put_le32(h, 4, frac);
    put_le32(h, 8, caplen);
    put_le32(h, 12, len);
    return h;
}

TEST(WindowReader, PayloadsThatLookLikeRecordsAreDecodedAgainFromTheTrueBoundary) {
    // Every payload is a run of well-formed fake records, so a part's
    // guessed start often lands inside a payload. The check that each part
    // begins where the previous one ended must catch every such guess.
    const std::string path = temp_path("fake.pcap");
    {
        PcapWriter w(path, kLinktypeEthernet);
        for (int i = 1; i <= 300; ++i) {
            std::string payload;
            for (int k = 0; k < 6 + i % 5; ++k) {
                const auto h = record_header(uint32_t(i), uint32_t(k), 8, 8);
                payload.append(h.begin(), h.end());
                payload.append(8, char('A' + k));
            }
            w.write(b::ethernet_ip(b::ipv4(v4(), b::kProtoUdp,
                                           b::udp(uint16_t(2000 + i), 53, b::bytes(payload)))),
                    uint32_t(i), 0);
        }
        w.close();
    }
    const Seen want = read_plain(path);
    ASSERT_EQ(want.stats.payloads, 300u);
    uint64_t redone = 0;
    for (const Config &c : kConfigs) {
        SCOPED_TRACE("window " + std::to_string(c.window) + ", threads " + std::to_string(c.threads));
        expect_same(want, read_windows(path, c.window, c.threads));
        expect_same(want, read_in_place(path, c.window, c.threads));
        WindowReader r(path, c.window, c.threads);
        PayloadWindow win;
        std::vector<uint8_t> buf;
        while (r.next(win, [&](size_t n) {
            buf.resize(n);
            return buf.data();
        })) {
        }
        EXPECT_TRUE(r.in_place());
        redone += r.parts_redone();
    }
    EXPECT_GT(redone, 0u) << "no guess landed inside a payload: the check went untested";
}

TEST(WindowReader, TimeStampsConvertAsLibpcapDoes) {
    // Seconds and fractions with the top bit set, in both byte orders and
    // both resolutions: libpcap 1.10 reads them as signed 32-bit numbers
    // from a file in this machine's byte order, unsigned from a swapped one.
    const uint32_t stamps[][2] = {{1, 999999}, {0x80000000u, 5}, {0xffffffffu, 0xfffffc18u},
                                  {1700000000, 999999999}, {7, 0x80000001u}};
    for (uint32_t magic : {0xa1b2c3d4u, 0xa1b23c4du}) {
        for (bool swap : {false, true}) {
            SCOPED_TRACE(std::to_string(magic) + (swap ? " swapped" : ""));
            const std::string path = temp_path("ts.pcap");
            {
                PcapWriter w(path, kLinktypeEthernet);
                int i = 0;
                for (const auto &ts : stamps) {
                    const std::string payload(size_t(10 + i), 'x');
                    w.write(b::ethernet_ip(b::ipv4(v4(), b::kProtoTcp,
                                                   b::tcp(tcp_ports(uint16_t(1000 + i++), 80),
                                                          b::bytes(payload)))),
                            ts[0], ts[1]);
                }
                w.close();
            }
            std::vector<uint8_t> d = slurp(path);
            put_le32(d, 0, magic);
            if (swap) {
                const auto recs = record_offsets(d);
                auto swap32 = [&](size_t at) { std::reverse(d.begin() + long(at), d.begin() + long(at) + 4); };
                for (size_t at : {0, 8, 12, 16, 20}) swap32(at);
                std::swap(d[4], d[5]);
                std::swap(d[6], d[7]);
                for (size_t r : recs)
                    for (size_t k = 0; k < 16; k += 4) swap32(r + k);
            }
            spit(path, d);
            const Seen want = read_plain(path);
            ASSERT_EQ(want.packets.size(), std::size(stamps));
            for (const Config &c : kConfigs) expect_same(want, read_windows(path, c.window, c.threads));
        }
    }
}

TEST(WindowReader, RecordsOverTheSnapshotLengthAreLeftToLibpcap) {
    // libpcap cuts a record longer than the file's snapshot length to it;
    // such a record and everything after it is read by libpcap in sequence.
    const std::string path = mixed_with_snaplen_100("snap.pcap", 200);
    const Seen want = read_plain(path);
    ASSERT_TRUE(want.error.empty()) << want.error;
    ASSERT_EQ(want.stats.packets, 200u);
    expect_all_configs_match(path);
    WindowReader r(path, 4096, 4);
    PayloadWindow w;
    std::vector<uint8_t> buf;
    bool left_to_libpcap = false;
    while (r.next(w, [&](size_t n) {
        buf.resize(n);
        return buf.data();
    }))
        left_to_libpcap = left_to_libpcap || !r.in_place();
    EXPECT_TRUE(left_to_libpcap);
}

TEST(WindowReader, OlderVersionsAreReadByLibpcap) {
    // Before 2.4 caplen and len may be interchanged, which libpcap undoes.
    const std::string path = mixed_version_2_3("v23.pcap", 100);
    EXPECT_FALSE(WindowReader(path, 4096, 4).in_place());
    expect_all_configs_match(path);
}

TEST(WindowReader, EmptyCaptureAndMissingFile) {
    const std::string path = temp_path("empty.pcap");
    PcapWriter(path, kLinktypeEthernet).close();
    WindowReader r(path, 1 << 20, 4);
    PayloadWindow w;
    std::vector<uint8_t> buf(16);
    EXPECT_FALSE(r.next(w, [&](size_t) { return buf.data(); }));
    try {
        WindowReader missing(temp_path("nope.pcap"), 1 << 20, 4);
        FAIL() << "expected CaptureError";
    } catch (const CaptureError &e) {
        EXPECT_NE(std::string(e.what()).find("nope.pcap"), std::string::npos) << e.what();
    }
}

// A capture through a FIFO whose writer is already done (a small file fits
// the pipe's buffer): libpcap's open reads it, and the reader must not open
// the FIFO again to map it, which would wait forever for another writer.
TEST(WindowReader, AFifoIsReadOnceThroughLibpcap) {
    const std::string file = temp_path("small.pcap"), fifo = temp_path("small.fifo");
    write_mixed(file, 40);
    const std::string bytes = [&] {
        std::ifstream in(file, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    ASSERT_LT(bytes.size(), 60000u) << "must fit the pipe's buffer";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    std::thread writer([&] {
        const int fd = open(fifo.c_str(), O_WRONLY); // until the reader opens it
        if (fd < 0) return;
        EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
        close(fd);
    });
    auto reading = std::async(std::launch::async, [&] { return read_windows(fifo, 4096, 4); });
    if (reading.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
        ADD_FAILURE() << "the reader waits on the FIFO after its writer closed it";
        close(open(fifo.c_str(), O_WRONLY | O_NONBLOCK)); // a writer comes and goes: it reads EOF
    }
    const Seen got = reading.get();
    writer.join();
    expect_same(read_plain(file), got);
    EXPECT_EQ(got.most_parts, 1u) << "read by libpcap, not in parts";
}

TEST(WindowReader, EveryRealCaptureEqualsThePlainRead) {
    const fs::path dir = fs::path(WM_TEST_DATA_DIR);
    if (!fs::exists(dir / "pcaps")) GTEST_SKIP() << "real captures not found at " << dir;
    size_t files = 0;
    for (const auto &e : fs::recursive_directory_iterator(dir)) {
        const std::string ext = e.path().extension().string();
        if (!e.is_regular_file() || (ext != ".pcap" && ext != ".pcapng" && ext != ".cap")) continue;
        SCOPED_TRACE(e.path().string());
        const Seen want = read_plain(e.path().string());
        expect_same(want, read_windows(e.path().string(), 256 << 10, 4));
        expect_same(want, read_windows(e.path().string(), 4 << 20, 1));
        expect_same(want, read_windows(e.path().string(), 1 << 20, 3));
        // Left in place, in windows of several parts and of one.
        expect_same(want, read_in_place(e.path().string(), 256 << 10, 4));
        expect_same(want, read_in_place(e.path().string(), 4 << 20, 1));
        ++files;
    }
    EXPECT_GT(files, 10u);
}

} // namespace
} // namespace wm::capture::test
