#include "replay.h"

#include "capture/frame_filter.h"
#include "capture/tunnel_ports.h"
#include "stream/live_loop.h"

#include <pcap/pcap.h>

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>

// Replay with streams, and live capture. Replay without streams is in
// replay_packets.cpp.

namespace wm {

using Clock = std::chrono::steady_clock;

int ScannerForStreams::scan(const BatchView &b, std::vector<Match> &out, std::vector<std::string> *why,
                            Wanted wanted) {
    out.clear();
    // Every match too goes through the delivering path: on the GPU the
    // device's chunks are expanded and scope-filtered on the scanner's
    // threads while later chunks scan, instead of one batch-sized vector
    // filtered and checked for order on this thread (run 304: merged-zeek
    // with streams 0.47-0.49 s instead of 0.68-0.72 on an H200).
    const int rc = sc_.scan_delivering(
        b,
        [&](const Match *m, size_t n) {
            out.insert(out.end(), m, m + n);
            return true;
        },
        wanted);
    if (rc == WM_VERIFY_MISMATCH) note_mismatches(sc_.gpu_only(), sc_.cpu_only(), why);
    return rc;
}

void ScannerForStreams::submit(const BatchView &b, Wanted wanted, AfterScan after) {
    if (!ahead_ || ahead_wanted_ != wanted) {
        ahead_.reset(); // idle: at most one batch is submitted at a time
        ahead_ = std::make_unique<ScanAhead>(sc_, wanted);
        ahead_wanted_ = wanted;
    }
    ahead_->submit(b, std::move(after));
}

int ScannerForStreams::take(std::vector<Match> &out, std::vector<std::string> *why) {
    ScanAhead::Result r = ahead_->take_oldest();
    if (r.error) std::rethrow_exception(r.error);
    if (r.rc == WM_VERIFY_MISMATCH) note_mismatches(r.gpu_only, r.cpu_only, why);
    out.swap(r.matches);
    ahead_->recycle(std::move(r.matches));
    return r.rc;
}

void ScannerForStreams::cancel() noexcept {
    if (ahead_) ahead_->cancel_and_wait();
}

void ScannerForStreams::note_mismatches(const std::vector<Match> &gpu_only, const std::vector<Match> &cpu_only,
                                        std::vector<std::string> *why) const {
    if (!why) return;
    auto note = [&](const std::vector<Match> &v, const char *who) {
        for (const auto &m : v)
            why->push_back(fmt::format("verify mismatch: payload {} rule {} [{}, {}): {} only", m.payload,
                                       sc_.ruleset().rules()[m.rule].id, m.start, m.end, who));
    };
    note(gpu_only, "GPU");
    note(cpu_only, "Hyperscan");
}

stream::PipelineOptions pipeline_options(int streams, int verify_streams,
                                         const wm_stream_config_t &config) {
    stream::PipelineOptions po;
    po.streams = streams != 0;
    po.verify_streams = streams != 0 && verify_streams != 0;
    po.config = config;
    return po;
}

namespace {
int mismatch_status(const stream::StreamPipeline &pl, std::string *error) {
    if (pl.verify_mismatches() == 0) return WM_SUCCESS;
    if (error) {
        *error = fmt::format("{} verify mismatches; first ones:", pl.verify_mismatches());
        for (const auto &l : pl.mismatch_lines()) *error += "\n" + l;
    }
    return WM_VERIFY_MISMATCH;
}

void fill_stats(const stream::StreamPipeline &pl, double seconds, wm_replay_stats_t &st) {
    st.capture = pl.capture_stats();
    st.alerts = pl.alerts();
    st.batches = pl.batches();
    st.verify_mismatches = pl.verify_mismatches();
    st.seconds = seconds;
    st.gbit_per_s = seconds > 0 ? st.capture.payload_bytes * 8.0 / seconds / 1e9 : 0.0;
}
} // namespace

int replay_file_ex(Scanner &sc, const std::string &path, const wm_replay_options_t &opts,
                   const ReplayCallbacks &cb, wm_replay_stats_t &stats,
                   wm_stream_stats_t *stream_stats, std::string *error) {
    sc.refuse_while_pending("replay");
    const std::string filter = opts.bpf ? opts.bpf : "";
    // Parsed before the file is opened: a bad spec is the caller's error, WM_INVALID.
    std::optional<capture::TunnelPorts> ports;
    if (opts.tunnel_ports && *opts.tunnel_ports) ports = capture::TunnelPorts::parse(opts.tunnel_ports);
    if (opts.payload_layout < WM_PAYLOADS_AUTO || opts.payload_layout > WM_PAYLOADS_IN_PLACE)
        throw std::invalid_argument(fmt::format(
            "replay: payload_layout {} is none of WM_PAYLOADS_AUTO, WM_PAYLOADS_PACKED and WM_PAYLOADS_IN_PLACE",
            opts.payload_layout));
    if (!opts.streams) {
        ReplayTuning tuning;
        tuning.threads = opts.read_threads;
        tuning.window_bytes = opts.window_bytes;
        tuning.filter = filter;
        tuning.tunnel_ports = ports ? &*ports : nullptr;
        tuning.payload_layout = opts.payload_layout;
        return replay_file(sc, path, cb, stats, error, tuning);
    }
    if (cb.on_window_alerts)
        throw std::invalid_argument("replay: on_window_alerts takes the alerts of payload windows; streams "
                                    "deliver per alert (set streams to 0 or use the alert callback)");
    const auto t0 = Clock::now();
    auto last_progress = t0;
    ScannerForStreams scanner(sc);
    auto po = pipeline_options(1, opts.verify_streams, opts.stream);
    po.scan_ahead = true; // a batch is scanned while the next one is reassembled
    po.tunnel_ports = ports ? &*ports : nullptr;
    stream::StreamPipeline pl(scanner, po, cb.on_alert, cb.alert_ctx);
    stream::OfflineFrames frames(path);
    std::unique_ptr<capture::FrameFilter> keep;
    if (!filter.empty()) keep = std::make_unique<capture::FrameFilter>(filter, frames.link_type());
    int status = WM_SUCCESS;
    auto finish = [&]() {
        fill_stats(pl, std::chrono::duration<double>(Clock::now() - t0).count(), stats);
        if (stream_stats) *stream_stats = pl.stream_stats();
    };
    try {
        try {
            const pcap_pkthdr *h = nullptr;
            const uint8_t *d = nullptr;
            while (frames.next(&h, &d)) {
                if (keep && !keep->accepts(d, h->caplen, h->len)) {
                    pl.skip_record();
                    continue;
                }
                if (!pl.frame(frames.link_type(), d, h->caplen, h->len, h->ts.tv_sec,
                              h->ts.tv_usec)) {
                    status = WM_SCAN_TERMINATED;
                    break;
                }
                if (cb.on_progress && (pl.capture_stats().packets & 1023) == 0) {
                    auto now = Clock::now();
                    if (now - last_progress >= std::chrono::seconds(1)) {
                        last_progress = now;
                        cb.on_progress(pl.capture_stats().packets, pl.capture_stats().bytes,
                                       std::chrono::duration<double>(now - t0).count(),
                                       cb.progress_ctx);
                    }
                }
            }
        } catch (const stream::PcapError &e) {
            status = WM_CAPTURE_ERROR; // scan what came before the bad record
            if (error) *error = e.what();
        }
        if (status != WM_SCAN_TERMINATED && !pl.finish()) status = WM_SCAN_TERMINATED;
    } catch (...) {
        finish();
        throw;
    }
    finish();
    return status == WM_SUCCESS ? mismatch_status(pl, error) : status;
}

int live_capture(Scanner &sc, stream::LiveCapture &cap, const wm_live_options_t &opts,
                 const capture::TunnelPorts *ports, const std::atomic<bool> &stop, wm_alert_fn on_alert,
                 void *alert_ctx,
                 wm_live_stats_t &stats, wm_stream_stats_t &stream_stats, std::string *error) {
    sc.refuse_while_pending("live capture");
    const auto t0 = Clock::now();
    ScannerForStreams scanner(sc);
    auto po = pipeline_options(opts.streams, opts.verify_streams, opts.stream);
    po.max_batch_bytes = opts.max_batch_bytes;
    po.tunnel_ports = ports;
    stream::StreamPipeline pl(scanner, po, on_alert, alert_ctx);
    stream::LatencyRecorder latency;
    pl.observe(&latency);
    stream::LiveLoopStats ls;
    auto finish = [&]() {
        fill_stats(pl, std::chrono::duration<double>(Clock::now() - t0).count(), stats.replay);
        stream_stats = pl.stream_stats();
        cap.stats(&stats.pcap_received, &stats.pcap_dropped, &stats.pcap_if_dropped);
        latency.summarize(ls);
        stats.batches_by_size = pl.batches_full();
        stats.batches_by_latency = ls.by_latency;
        stats.batches_at_stop = ls.at_stop;
        stats.latency_p50_ms = ls.p50_ms;
        stats.latency_p99_ms = ls.p99_ms;
        stats.latency_max_ms = ls.max_ms;
    };
    try {
        stream::run_live(cap, pl, opts.max_latency_ms, stop, ls);
    } catch (...) {
        finish();
        throw;
    }
    finish();
    if (pl.stopped()) return WM_SCAN_TERMINATED;
    return mismatch_status(pl, error);
}

} // namespace wm
