// plugin/src/replay_packets.cpp - replay without streams: every payload on
// its own, in a pipeline.
//
// The capture is read window by window (capture::WindowReader: a classic
// pcap's windows decoded in place by several threads) on a reader thread,
// into the scanner's four batch buffers (page-locked on the GPU), ahead of
// the calling thread, which scans each window and delivers its alerts (one
// callback per alert, or per window with on_window_alerts). On
// the GPU with the set array, a window is submitted (wm_scan_batch_set_submit)
// and the one before it is collected and delivered while the GPU scans; with
// matches and an alert callback, a window is scanned on a thread of its own
// (ScanAhead) while the alerts of the one before it are delivered.
// Alerts leave in packet order; the reader never touches the scanner.
#include "capture/offline_capture.h"
#include "capture/window_reader.h"
#include "first_alerts.h"
#include "replay.h"
#include "scan_ahead.h"
#include "window_ring.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace wm {

namespace {

using Clock = std::chrono::steady_clock;
using capture::PayloadWindow;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A window as a batch: its payloads packed, or left in place.
BatchView view_of(const PayloadWindow &w) {
    return BatchView{w.data, w.offsets.data(), w.count(), w.meta.data(), w.sources_or_null()};
}

// Scans windows and delivers their alerts.
class WindowScanner {
  public:
    WindowScanner(Scanner &sc, const ReplayCallbacks &cb, wm_replay_stats_t &st, WindowPipeline pipeline)
        : sc_(sc), cb_(cb), st_(st), first_(sc.ruleset().rules(), sc.rule_ids(), sc.output_mode() == WM_OUTPUT_POSITIONS) {
        const bool gpu = sc.backend() == WM_BACKEND_GPU;
        set_array_ = has_set_array(sc);
        pipelined_ = set_array_ && (pipeline == WindowPipeline::On || (pipeline == WindowPipeline::Auto && gpu));
        // Matches (positions, or align rules in set mode) on the GPU with an
        // alert callback: a window is scanned on a thread of its own while
        // this one delivers the alerts of the window before it. That thread
        // copies the matches, which costs more than counting them (-q), and
        // on the CPU backend Hyperscan's threads have the cores already
        // (run 191). On: on any backend, with or without a callback (tests).
        const bool alerts = cb.on_alert != nullptr;
        if (!set_array_ && (pipeline == WindowPipeline::On || (pipeline == WindowPipeline::Auto && gpu && alerts)))
            ahead_ = std::make_unique<ScanAhead>(sc, Wanted::FirstPerRule);
    }

    // The set array has no score or region: align rules need matches.
    static bool has_set_array(const Scanner &sc) {
        return sc.output_mode() == WM_OUTPUT_SET && sc.ruleset().alignment_rules() == 0;
    }

    // Scans w and delivers its alerts, or (pipelined) submits it whole; its
    // alerts then leave with deliver_oldest(), and w must stay as it is
    // until then. False when the alert callback asked to stop.
    bool take(const PayloadWindow &w) {
        if (!pipelined_ && !ahead_) return window(w);
        if (w.count() == 0) return true;
        st_.batches++;
        const BatchView view = view_of(w);
        if (ahead_) ahead_->submit(view);
        else sc_.submit_set(view);
        pending_.push_back({&w, st_.batches});
        return true;
    }

    // Windows submitted and not yet delivered.
    size_t pending() const { return pending_.size(); }
    bool holds(const PayloadWindow &w) const {
        for (const auto &p : pending_)
            if (p.first == &w) return true;
        return false;
    }

    // Collects the oldest submitted window and delivers its alerts; *done:
    // that window, whose buffer is free again.
    bool deliver_oldest(const PayloadWindow **done = nullptr) {
        const auto [w, batch] = pending_.front();
        if (done) *done = w;
        pending_.pop_front();
        if (ahead_) return deliver_scanned_ahead(w->packets.data(), batch);
        const wm_set_hit_t *hits = nullptr;
        size_t n = 0;
        const int rc = sc_.collect_set(&hits, &n);
        if (rc == WM_VERIFY_MISMATCH) record_mismatches(w->packets.data(), batch);
        return deliver_hits(w->packets.data(), w->count(), hits, n);
    }

    // Collects what is still submitted, without delivering it (the callback
    // asked to stop, or a failure): the scanner is usable again after it.
    void drop_pending() noexcept {
        if (ahead_) {
            ahead_->cancel_and_wait(); // the thread touches no window after this
            pending_.clear();
            sc_.add_delivery_time(ahead_delivery_seconds_); // the scanner is this thread's again
            ahead_delivery_seconds_ = 0;
            return;
        }
        for (; !pending_.empty(); pending_.pop_front()) {
            const wm_set_hit_t *hits = nullptr;
            size_t n = 0;
            try {
                sc_.collect_set(&hits, &n);
            } catch (...) { // the scanner has dropped the rest itself
                pending_.clear();
                break;
            }
        }
    }

    // A window is one batch: the GPU cuts it into chunks itself, and on the
    // CPU Hyperscan's threads take its runs (a window's 16 MB as 4 MB
    // batches had replayed merged-zeek x8 in 0.30-0.38 s, against 0.28 as
    // one; run 170). False when the alert callback asked to stop.
    bool window(const PayloadWindow &w) { return w.count() == 0 || batch(w); }

    const std::vector<std::string> &mismatches() const { return mismatch_lines_; }

  private:
    bool batch(const PayloadWindow &w) {
        const BatchView view = view_of(w);
        const wm_packet_t *packets = w.packets.data();
        st_.batches++;
        if (set_array_) {
            const wm_set_hit_t *hits = nullptr;
            size_t n = 0;
            const int rc = sc_.scan_set(view, &hits, &n);
            if (rc == WM_VERIFY_MISMATCH) record_mismatches(packets, st_.batches);
            return deliver_hits(packets, w.count(), hits, n);
        }
        // Spans of matches as the scanner has them (on the GPU, chunk by
        // chunk while later chunks are expanded on other threads), most
        // repeats of a (packet, rule) left out by the scanning threads.
        first_.new_batch();
        const int rc = sc_.scan_delivering(
            view, [&](const Match *m, size_t n) { return deliver_matches(packets, m, n); }, Wanted::FirstPerRule);
        if (rc == WM_VERIFY_MISMATCH) record_mismatches(packets, st_.batches);
        return rc != WM_SCAN_TERMINATED;
    }

    // The oldest window scanned ahead: its exception, its mismatches, then
    // its alerts. The time is the scanner's delivery time, added once the
    // scanning thread is idle (drop_pending).
    bool deliver_scanned_ahead(const wm_packet_t *packets, uint64_t batch) {
        ScanAhead::Result r = ahead_->take_oldest();
        if (r.error) std::rethrow_exception(r.error);
        if (r.rc == WM_VERIFY_MISMATCH) record_mismatches(packets, batch, r.gpu_only, r.cpu_only);
        const auto t0 = Clock::now();
        first_.new_batch();
        const bool go_on = deliver_matches(packets, r.matches.data(), r.matches.size());
        ahead_delivery_seconds_ += since(t0);
        ahead_->recycle(std::move(r.matches));
        return go_on && r.rc != WM_SCAN_TERMINATED;
    }

    void record_mismatches(const wm_packet_t *packets, uint64_t batch) {
        record_mismatches(packets, batch, sc_.gpu_only(), sc_.cpu_only());
    }
    void record_mismatches(const wm_packet_t *packets, uint64_t batch, const std::vector<Match> &gpu_only,
                           const std::vector<Match> &cpu_only) {
        auto note = [&](const std::vector<Match> &v, const char *who) {
            for (const auto &m : v) {
                st_.verify_mismatches++;
                if (mismatch_lines_.size() >= 50) continue;
                mismatch_lines_.push_back(fmt::format(
                    "verify mismatch: packet {} (batch {}, payload {}) rule {} [{}, {}): {} only",
                    packets[m.payload].number, batch, m.payload,
                    sc_.ruleset().rules()[m.rule].id, m.start, m.end, who));
            }
        };
        note(gpu_only, "GPU");
        note(cpu_only, "Hyperscan");
    }

    bool emit(const wm_alert_t &a) {
        st_.alerts++;
        return !(cb_.on_alert && cb_.on_alert(&a, cb_.alert_ctx) != 0);
    }

    // Set hits are distinct and ordered by (payload, rule id) already; they
    // index packets [0, num_packets).
    bool deliver_hits(const wm_packet_t *packets, size_t num_packets, const wm_set_hit_t *hits, size_t n) {
        const auto t0 = Clock::now();
        if (!cb_.on_alert && !cb_.on_window_alerts) { // counted only (warpmatch replay -q)
            st_.alerts += n;
            return true;
        }
        if (cb_.on_window_alerts) { // one call, the scanner's own array
            st_.alerts += n;
            const bool go_on =
                n == 0 || cb_.on_window_alerts(packets, num_packets, hits, n, cb_.window_alerts_ctx) == 0;
            sc_.add_delivery_time(since(t0));
            return go_on;
        }
        wm_alert_t a{};
        a.struct_size = sizeof(a);
        bool go_on = true;
        for (size_t i = 0; i < n && go_on; ++i) {
            a.packet = &packets[hits[i].payload_index];
            a.rule_id = hits[i].rule_id;
            go_on = emit(a);
        }
        sc_.add_delivery_time(since(t0));
        return go_on;
    }

    // One alert per (payload, rule): the first occurrence. matches[0, n)
    // continue the batch's canonically ordered matches (the scanner times
    // the call as delivery).
    bool deliver_matches(const wm_packet_t *packets, const Match *matches, size_t n) {
        for (size_t i = 0; i < n; ++i)
            if (const wm_alert_t *a = first_.first(matches[i], &packets[matches[i].payload]); a && !emit(*a))
                return false;
        return true;
    }

    Scanner &sc_;
    const ReplayCallbacks &cb_;
    wm_replay_stats_t &st_;
    bool set_array_, pipelined_;
    std::deque<std::pair<const PayloadWindow *, uint64_t>> pending_; // submitted (window, batch number), oldest first
    FirstAlerts first_;
    std::unique_ptr<ScanAhead> ahead_; // matches: windows scanned on a thread of their own
    double ahead_delivery_seconds_ = 0;
    std::vector<std::string> mismatch_lines_;
};

// Window size: a few windows per file so reading overlaps scanning even for
// a small capture, within bounds that keep the GPU's batches large. 16 MB on
// the GPU: merged-zeek x32 (1 GB) replayed in 0.145 s with 16 MB windows,
// 0.18 s with 32, 0.25 with 64 and 0.19 with 8 (one H200 host, 15 read
// threads, run 52): the first read and the last scan are not overlapped.
uint64_t default_window_bytes(const std::string &path, bool gpu) {
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    const uint64_t lo = gpu ? (4u << 20) : (1u << 20), hi = 16u << 20;
    return std::clamp<uint64_t>(ec ? hi : size / 8, lo, hi);
}

// A caller's window, cut to the reader's largest and to the file (at least
// 1 MiB): the scanner takes four buffers of the window's size up front, and a
// window past the file's end only costs memory (4 GB asked for a 16 KB file
// took 16.8 GB).
uint64_t window_bytes_for(const std::string &path, bool gpu, uint64_t asked) {
    if (asked == 0) return default_window_bytes(path, gpu);
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    const uint64_t file_cap = ec ? capture::WindowReader::kMaxWindowBytes : std::max<uint64_t>(size, 1u << 20);
    return std::min({asked, file_cap, capture::WindowReader::kMaxWindowBytes});
}

unsigned default_threads() {
    // One core stays with the scanning thread.
    const unsigned n = std::thread::hardware_concurrency();
    return std::clamp(n > 1 ? n - 1 : 1u, 1u, 16u);
}

} // namespace

int replay_file(Scanner &sc, const std::string &path, const ReplayCallbacks &cb,
                wm_replay_stats_t &stats, std::string *error, const ReplayTuning &tuning) {
    sc.refuse_while_pending("replay");
    if (cb.on_window_alerts && !WindowScanner::has_set_array(sc))
        throw std::invalid_argument(
            "replay: on_window_alerts needs a scanner in WM_OUTPUT_SET without alignment rules (this one "
            "reports matches with offsets or scores: use the alert callback)");
    const auto t0 = Clock::now();
    auto last_progress = t0;
    const bool gpu = sc.backend() == WM_BACKEND_GPU;
    const uint64_t window = window_bytes_for(path, gpu, tuning.window_bytes);
    capture::WindowReader reader(path, window, tuning.threads ? tuning.threads : default_threads(), tuning.filter);
    reader.set_tunnel_ports(tuning.tunnel_ports);
    // In place the reader copies no payload: Hyperscan scans them where they
    // lie, and the GPU packs them on the device. The GPU then copies 1.7x
    // the bytes (the file's headers too), which lengthens each window's
    // time on the device; but the reader, which bounds the replay, reads
    // 16% faster (merged-zeek x32 with window alerts: 9.85-10.34 GB/s in
    // place against 9.43-9.66 packed, alternated on one H200; run 343).
    reader.set_payloads_in_place(tuning.payload_layout != WM_PAYLOADS_PACKED && sc.takes_payloads_in_place());
    const uint64_t slot_bytes = window + capture::WindowReader::kInPlaceSlack;
    WindowScanner ws(sc, cb, stats, tuning.pipeline);
    stats.capture = wm_capture_stats_t{};
    stats.capture.struct_size = sizeof(stats.capture);

    // Four windows: a reader thread fills free ones in file order while this
    // thread scans the oldest filled one and (pipelined) delivers the one
    // before it; a window is free again once its alerts are out. With one
    // window read ahead, reading and scanning alternated and each window cost
    // the slower of the two (run 69: replay 0.125 s against 0.071 s of
    // reading alone and 0.075 thread-s of scanning). Buffers are taken here,
    // on the scanning thread, the first before the reader starts and the
    // others while it fills that one (on the GPU each is 16 MB of page-locked
    // memory, ~1.5 ms to set up on a new scanner); a payload too big for its
    // slot (pcapng allows huge records) goes to ordinary memory.
    constexpr unsigned kWindows = Scanner::kBatchBufferSlots;
    static_assert(kWindows >= 4, "windows read ahead, scanned and delivered each need a buffer");
    PayloadWindow win[kWindows];
    uint8_t *slot[kWindows] = {};
    std::vector<uint8_t> oversize[kWindows];
    slot[0] = sc.batch_buffer(slot_bytes, 0);
    WindowRing ring(kWindows, 1);
    std::thread reading([&] {
        ring.produce([&](unsigned k) {
            const bool read = reader.next(win[k], [&, k](size_t bytes) {
                if (bytes <= slot_bytes) return slot[k];
                oversize[k].resize(bytes);
                return oversize[k].data();
            });
            return !read ? WindowRing::kOver : win[k].error.empty() ? WindowRing::kFilled : WindowRing::kFilledLast;
        });
    });
    auto free_delivered = [&](const PayloadWindow *w) { ring.release(static_cast<unsigned>(w - win)); };

    int status = WM_SUCCESS;
    auto finish = [&]() {
        stats.seconds = since(t0);
        stats.gbit_per_s =
            stats.seconds > 0 ? stats.capture.payload_bytes * 8.0 / stats.seconds / 1e9 : 0.0;
    };
    try {
        for (unsigned j = 1; j < kWindows; ++j) { // the reader may take each once it exists
            slot[j] = sc.batch_buffer(slot_bytes, j);
            ring.release(j);
        }
        unsigned k = 0;
        while (ring.next_filled(&k)) { // rethrows the reader's exception in its place
            const PayloadWindow &w = win[k];
            capture::add_capture_stats(stats.capture, w.stats);
            const bool last = !w.error.empty();
            if (!ws.take(w)) {
                status = WM_SCAN_TERMINATED;
                break;
            }
            if (!ws.holds(w)) ring.release(k); // delivered already, or nothing to scan
            const PayloadWindow *done = nullptr;
            while (ws.pending() > 1 && status == WM_SUCCESS) {
                if (!ws.deliver_oldest(&done)) status = WM_SCAN_TERMINATED;
                free_delivered(done);
            }
            if (status != WM_SUCCESS) break;
            if (last) {
                while (ws.pending() && status == WM_SUCCESS) {
                    if (!ws.deliver_oldest(&done)) status = WM_SCAN_TERMINATED;
                    free_delivered(done);
                }
                if (status == WM_SCAN_TERMINATED) break;
                // Corrupt record: everything before it was scanned.
                status = WM_CAPTURE_ERROR;
                if (error) *error = w.error;
                break;
            }
            const auto now = Clock::now();
            if (cb.on_progress && now - last_progress >= std::chrono::seconds(1)) {
                last_progress = now;
                cb.on_progress(stats.capture.packets, stats.capture.bytes, since(t0),
                               cb.progress_ctx);
            }
        }
        while (ws.pending() && status == WM_SUCCESS) {
            const PayloadWindow *done = nullptr;
            if (!ws.deliver_oldest(&done)) status = WM_SCAN_TERMINATED;
            free_delivered(done);
        }
        ws.drop_pending();
    } catch (...) {
        ws.drop_pending();
        ring.stop();
        reading.join();
        finish(); // an engine failure still reports what was counted so far
        throw;
    }
    ring.stop();
    reading.join();
    finish();
    if (status == WM_SUCCESS && !ws.mismatches().empty()) {
        status = WM_VERIFY_MISMATCH;
        if (error) {
            *error = fmt::format("{} verify mismatches; first ones:", stats.verify_mismatches);
            for (const auto &l : ws.mismatches()) *error += "\n" + l;
        }
    }
    return status;
}

} // namespace wm
