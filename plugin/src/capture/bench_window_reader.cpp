// plugin/src/capture/bench_window_reader.cpp - how fast a capture is read and
// decoded into packed windows, by number of threads, against libpcap's own
// sequential read (OfflineCapture) of the same file in the same run.
//
//   bench_window_reader FILE [--threads 1,4,15] [--window-mb 32] [--repeats 3]
//                       [--layout packed,in-place]  (payloads packed, or left where the file has them)
//                       [--bpf FILTER]  (each row also with this capture filter: what it costs)
#include "capture/offline_capture.h"
#include "capture/window_reader.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <vector>

using namespace wm::capture;

namespace {

struct Result {
    double seconds = 0;
    uint64_t records = 0, payload_bytes = 0;
    double decode = 0, assemble = 0; // WindowReader phases (wall seconds)
};

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Result read_libpcap(const std::string &path) {
    const double t0 = now();
    OfflineCapture cap(path);
    wm_packet_t p{};
    while (cap.next(&p) == WM_SUCCESS) {
    }
    return {now() - t0, cap.stats().packets, cap.stats().payload_bytes};
}

Result read_windows(const std::string &path, unsigned threads, uint64_t window, bool in_place, uint64_t *redone,
                    const std::string &filter = {}) {
    std::vector<uint8_t> buf(window + WindowReader::kInPlaceSlack);
    const double t0 = now();
    WindowReader r(path, window, threads, filter);
    r.set_payloads_in_place(in_place);
    PayloadWindow w;
    Result res;
    while (r.next(w, [&](size_t n) {
        if (buf.size() < n) buf.resize(n);
        return buf.data();
    })) {
        res.records += w.stats.packets;
        res.payload_bytes += w.bytes();
    }
    res.seconds = now() - t0;
    res.decode = r.decode_seconds();
    res.assemble = r.assemble_seconds();
    *redone = r.parts_redone();
    return res;
}

Result best_of(int repeats, const std::function<Result()> &fn) {
    Result best;
    for (int i = 0; i < repeats; ++i) {
        const Result r = fn();
        if (i == 0 || r.seconds < best.seconds) best = r;
    }
    return best;
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{"Capture reading: WindowReader by threads vs libpcap's sequential read"};
    std::string path;
    std::vector<unsigned> threads{1, 4, 15};
    unsigned window_mb = 32;
    int repeats = 3;
    std::vector<std::string> layouts{"packed"};
    std::string filter;
    app.add_option("file", path, "classic pcap or pcapng file")->required()->check(CLI::ExistingFile);
    app.add_option("--threads", threads, "thread counts to run")->delimiter(',');
    app.add_option("--window-mb", window_mb, "window size in MB of file")->check(CLI::Range(1, 1024));
    app.add_option("--repeats", repeats, "best of N runs")->check(CLI::Range(1, 100));
    app.add_option("--layout", layouts, "payloads packed (default) or in-place (left where the file has them)")
        ->delimiter(',')
        ->check(CLI::IsMember({"packed", "in-place"}));
    app.add_option("--bpf", filter, "also read with this capture filter (tcpdump syntax)");
    CLI11_PARSE(app, argc, argv);

    try {
        const Result base = best_of(repeats, [&] { return read_libpcap(path); });
        fmt::print("{:<34} {:>9} {:>12} {:>11} {:>8}\n", "reader", "seconds", "M records/s", "GB/s", "x libpcap");
        auto row = [&](const std::string &name, const Result &r) {
            fmt::print("{:<34} {:>9.4f} {:>12.2f} {:>11.3f} {:>8.2f}\n", name, r.seconds,
                       r.records / r.seconds / 1e6, r.payload_bytes / r.seconds / 1e9,
                       base.seconds / r.seconds);
        };
        row("libpcap sequential (OfflineCapture)", base);
        for (unsigned t : threads) for (const std::string &layout : layouts) {
            uint64_t redone = 0;
            const bool in_place = layout == "in-place";
            const Result r = best_of(repeats, [&] {
                return read_windows(path, t, uint64_t{window_mb} << 20, in_place, &redone);
            });
            if (r.records != base.records || r.payload_bytes != base.payload_bytes) {
                fmt::print(stderr, "window reader with {} threads read {} records / {} bytes, libpcap {} / {}\n",
                           t, r.records, r.payload_bytes, base.records, base.payload_bytes);
                return 1;
            }
            row(fmt::format("windows, {} threads, {} MB{}", t, window_mb, in_place ? ", in place" : ""), r);
            fmt::print("  (decode {:.4f} s, assemble {:.4f} s)\n", r.decode, r.assemble);
            if (redone > 0) fmt::print("  ({} parts decoded again after a wrong guess)\n", redone);
            if (filter.empty()) continue;
            const Result f = best_of(repeats, [&] {
                return read_windows(path, t, uint64_t{window_mb} << 20, in_place, &redone, filter);
            });
            row(fmt::format("  the same, --bpf '{}'", filter), f);
            fmt::print("  ({} of {} records kept, {} payload bytes)\n", f.records, base.records, f.payload_bytes);
        }
        fmt::print("{} records, {} payload bytes\n", base.records, base.payload_bytes);
    } catch (const std::exception &e) { // CaptureError, or a filter that does not compile
        fmt::print(stderr, "{}\n", e.what());
        return 1;
    }
    return 0;
}
