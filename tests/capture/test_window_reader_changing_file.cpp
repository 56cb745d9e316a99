// tests/capture/test_window_reader_changing_file.cpp - a capture that changes
// while the window reader reads it (a ring-buffer writer, logrotate's
// copytruncate, a rename over it): the reader must read what a plain
// libpcap read of the file as it then is gives, never crash, and never read
// another file than the one it opened. Before, it read through a mapping
// made at the opening size (a file that shrank gave SIGBUS), stopped at that
// size (records appended since were dropped or not, by where it fell), and
// reopened the path to let libpcap read on (a file renamed over it was read
// from the middle). Also: "-" is standard input, never a file named "-".
#include "capture_test_util.h"
#include "pcap_files.h"
#include "window_reads.h"

#include "plugin/src/capture/window_reader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace wm::capture::test {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kWindow = 4096;

// Cut after the first window, mid-record, far past what that window read:
// the reader ends where a plain read of the cut file ends, with its error.
TEST(WindowReaderChangingFile, AFileThatShrinksEndsWithThePlainReadOfWhatIsLeft) {
    for (const Layout layout : {Layout::Packed, Layout::InPlace}) {
        const std::string path = temp_path("shrinks.pcap");
        write_mixed(path, 600);
        const std::vector<uint8_t> d = slurp(path);
        const size_t at = record_offsets(d)[450] + 10;
        spit(path, std::vector<uint8_t>(d.begin(), d.begin() + long(at))); // the plain read of the cut file
        const Seen want = read_plain(path);
        ASSERT_EQ(want.stats.packets, 450u);
        ASSERT_NE(want.error.find("truncated"), std::string::npos) << want.error;
        spit(path, d);
        const Seen got = read_windows(path, kWindow, 2, {}, nullptr, layout, [&](size_t i) {
            if (i == 0) fs::resize_file(path, at);
        });
        expect_same(want, got);
    }
}

// Records appended after the first window are read, wherever the size at
// opening fell (here on a record boundary, the case that dropped them).
TEST(WindowReaderChangingFile, RecordsAppendedWhileReadingAreRead) {
    const std::string path = temp_path("grows.pcap"), whole = temp_path("grows_whole.pcap");
    write_mixed(whole, 500);
    const std::vector<uint8_t> d = slurp(whole);
    const size_t at = record_offsets(d)[300];
    const Seen want = read_plain(whole);
    for (const Layout layout : {Layout::Packed, Layout::InPlace}) {
        spit(path, std::vector<uint8_t>(d.begin(), d.begin() + long(at)));
        bool appended = false;
        const Seen got = read_windows(path, 1 << 20, 2, {}, nullptr, layout, [&](size_t) {
            if (appended) return;
            FILE *f = std::fopen(path.c_str(), "ab");
            std::fwrite(d.data() + at, 1, d.size() - at, f);
            std::fclose(f);
            appended = true;
        });
        ASSERT_TRUE(appended);
        expect_same(want, got);
    }
}

// Renamed over after the first window (a record libpcap must read comes
// later, so libpcap takes over mid-file): still the file it opened.
TEST(WindowReaderChangingFile, AFileRenamedOverIsStillTheOneOpened) {
    const std::string path = temp_path("renamed.pcap"), other = temp_path("renamed_other.pcap");
    const std::string original = mixed_with_snaplen_100("renamed_orig.pcap", 300);
    const Seen want = read_plain(original);
    ASSERT_EQ(want.stats.packets, 300u);
    for (const Layout layout : {Layout::Packed, Layout::InPlace}) {
        fs::copy_file(original, path, fs::copy_options::overwrite_existing);
        write_mixed(other, 40);
        const Seen got = read_windows(path, kWindow, 2, {}, nullptr, layout, [&](size_t i) {
            if (i == 0) fs::rename(other, path);
        });
        expect_same(want, got);
    }
}

} // namespace
} // namespace wm::capture::test
