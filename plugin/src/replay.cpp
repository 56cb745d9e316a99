#include "replay.h"

#include "capture/offline_capture.h"
#include "stream/live_loop.h"

#include <pcap/pcap.h>

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <unordered_map>

namespace wm {

namespace {

using Clock = std::chrono::steady_clock;

// Payloads of one batch, copied out of libpcap's buffer (which the next
// read overwrites), with the packet each came from.
struct PendingBatch {
    std::vector<uint8_t> data;
    std::vector<uint32_t> offsets{0};
    std::vector<wm_payload_meta_t> meta;
    std::vector<wm_packet_t> packets;

    size_t count() const { return packets.size(); }
    void add(const wm_packet_t &p) {
        data.insert(data.end(), p.payload, p.payload + p.payload_len);
        offsets.push_back(static_cast<uint32_t>(data.size()));
        meta.push_back(wm_payload_meta_t{p.proto, p.src_port, p.dst_port});
        packets.push_back(p);
    }
    void clear() {
        data.clear();
        offsets.assign(1, 0);
        meta.clear();
        packets.clear();
    }
};

class Replayer {
  public:
    Replayer(Scanner &sc, const ReplayCallbacks &cb, wm_replay_stats_t &st)
        : sc_(sc), cb_(cb), st_(st) {
        bool gpu = sc.backend() == WM_BACKEND_GPU;
        // GPU batches must be large to amortise PCIe and launch latency; CPU
        // batches small to keep alerts flowing.
        max_bytes_ = gpu ? (32u << 20) : (1u << 20);
        max_payloads_ = gpu ? 262144 : 4096;
    }

    bool full() const {
        return batch_.data.size() >= max_bytes_ || batch_.count() >= max_payloads_;
    }
    PendingBatch &batch() { return batch_; }

    // Scans the pending batch and delivers its alerts; false when the alert
    // callback asked to stop.
    bool flush() {
        if (batch_.count() == 0)
            return true;
        for (size_t i = 0; i < batch_.count(); ++i)
            batch_.packets[i].payload = batch_.data.data() + batch_.offsets[i];
        BatchView view{batch_.data.data(), batch_.offsets.data(), batch_.count(),
                       batch_.meta.data()};
        int rc = sc_.scan(view, matches_);
        st_.batches++;
        if (rc == WM_VERIFY_MISMATCH)
            record_mismatches();
        bool go_on = deliver();
        batch_.clear();
        return go_on;
    }

    const std::vector<std::string> &mismatches() const { return mismatch_lines_; }

  private:
    void record_mismatches() {
        auto note = [&](const std::vector<Match> &v, const char *who) {
            for (const auto &m : v) {
                st_.verify_mismatches++;
                if (mismatch_lines_.size() >= 50)
                    continue;
                mismatch_lines_.push_back(fmt::format(
                    "verify mismatch: packet {} (batch {}, payload {}) rule {} [{}, {}): {} only",
                    batch_.packets[m.payload].number, st_.batches, m.payload,
                    sc_.ruleset().rules()[m.rule].id, m.start, m.end, who));
            }
        };
        note(sc_.gpu_only(), "GPU");
        note(sc_.cpu_only(), "Hyperscan");
    }

    // One alert per (payload, rule): the first occurrence.
    bool deliver() {
        bool positions = sc_.output_mode() == WM_OUTPUT_POSITIONS;
        size_t i = 0;
        while (i < matches_.size()) {
            uint32_t p = matches_[i].payload;
            seen_.clear();
            for (; i < matches_.size() && matches_[i].payload == p; ++i) {
                const Match &m = matches_[i];
                if (!seen_.emplace(m.rule, true).second)
                    continue;
                wm_alert_t a{};
                a.struct_size = sizeof(a);
                a.packet = &batch_.packets[p];
                a.rule_id = sc_.ruleset().rules()[m.rule].id;
                a.has_score = CompiledRuleSet::is_alignment(sc_.ruleset().rules()[m.rule]) ? 1 : 0;
                a.score = m.score;
                a.has_offset = positions || a.has_score ? 1 : 0; // an align region is always known
                a.start = m.start;
                a.end = m.end;
                st_.alerts++;
                if (cb_.on_alert && cb_.on_alert(&a, cb_.alert_ctx) != 0)
                    return false;
            }
        }
        return true;
    }

    Scanner &sc_;
    const ReplayCallbacks &cb_;
    wm_replay_stats_t &st_;
    size_t max_bytes_, max_payloads_;
    PendingBatch batch_;
    std::vector<Match> matches_;
    std::unordered_map<uint32_t, bool> seen_;
    std::vector<std::string> mismatch_lines_;
};

} // namespace

int replay_file(Scanner &sc, const std::string &path, const ReplayCallbacks &cb,
                wm_replay_stats_t &stats, std::string *error) {
    auto t0 = Clock::now();
    auto last_progress = t0;
    capture::OfflineCapture cap(path);
    Replayer rp(sc, cb, stats);
    int status = WM_SUCCESS;
    auto finish = [&]() {
        stats.capture = cap.stats();
        stats.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        stats.gbit_per_s = stats.seconds > 0
                               ? stats.capture.payload_bytes * 8.0 / stats.seconds / 1e9
                               : 0.0;
    };
    try {
        try {
            wm_packet_t pkt{};
            pkt.struct_size = sizeof(pkt);
            while (cap.next(&pkt) == WM_SUCCESS) {
                rp.batch().add(pkt);
                if (rp.full() && !rp.flush()) {
                    status = WM_SCAN_TERMINATED;
                    break;
                }
                auto now = Clock::now();
                if (cb.on_progress && now - last_progress >= std::chrono::seconds(1)) {
                    last_progress = now;
                    cb.on_progress(cap.stats().packets, cap.stats().bytes,
                                   std::chrono::duration<double>(now - t0).count(),
                                   cb.progress_ctx);
                }
            }
        } catch (const capture::CaptureError &e) {
            // Corrupt record: scan what was read before it, then report.
            status = WM_CAPTURE_ERROR;
            if (error)
                *error = e.what();
        }
        if (status != WM_SCAN_TERMINATED && !rp.flush())
            status = WM_SCAN_TERMINATED;
    } catch (...) {
        finish(); // an engine failure still reports what was counted so far
        throw;
    }
    finish();
    if (status == WM_SUCCESS && !rp.mismatches().empty()) {
        status = WM_VERIFY_MISMATCH;
        if (error) {
            *error = fmt::format("{} verify mismatches; first ones:", stats.verify_mismatches);
            for (const auto &l : rp.mismatches())
                *error += "\n" + l;
        }
    }
    return status;
}

} // namespace wm

// ---- streams -------------------------------------------------------------

namespace wm {

int ScannerForStreams::scan(const BatchView &b, std::vector<Match> &out,
                            std::vector<std::string> *why) {
    const int rc = sc_.scan(b, out);
    if (rc == WM_VERIFY_MISMATCH && why) {
        auto note = [&](const std::vector<Match> &v, const char *who) {
            for (const auto &m : v)
                why->push_back(fmt::format("verify mismatch: payload {} rule {} [{}, {}): {} only",
                                           m.payload, sc_.ruleset().rules()[m.rule].id, m.start,
                                           m.end, who));
        };
        note(sc_.gpu_only(), "GPU");
        note(sc_.cpu_only(), "Hyperscan");
    }
    return rc;
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
    if (!opts.streams) return replay_file(sc, path, cb, stats, error);
    const auto t0 = Clock::now();
    auto last_progress = t0;
    ScannerForStreams scanner(sc);
    stream::StreamPipeline pl(scanner, pipeline_options(1, opts.verify_streams, opts.stream),
                              cb.on_alert, cb.alert_ctx);
    stream::OfflineFrames frames(path);
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
                 const std::atomic<bool> &stop, wm_alert_fn on_alert, void *alert_ctx,
                 wm_live_stats_t &stats, wm_stream_stats_t &stream_stats, std::string *error) {
    const auto t0 = Clock::now();
    ScannerForStreams scanner(sc);
    auto po = pipeline_options(opts.streams, opts.verify_streams, opts.stream);
    po.max_batch_bytes = opts.max_batch_bytes;
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
