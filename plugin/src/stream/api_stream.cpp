// C entry points: replay with streams, live capture, stream counters.
// Conventions as in api_capture.cpp: struct_size checks, named statuses,
// error objects, nothing thrown across the boundary.
#include "error_object.h"
#include "handles.h"
#include "capture/tunnel_ports.h"
#include "replay.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

using namespace wm;

struct wm_live {
    wm_live_options_t opts{};
    std::string interface, bpf; // the strings opts pointed at, copied
    std::optional<capture::TunnelPorts> tunnel_ports;
    std::unique_ptr<stream::LiveCapture> cap;
    std::atomic<bool> stop{false};
    bool stopped = false; // a run ended on stop: the capture is over for good
    std::atomic<bool> running{false}; // one wm_live_run at a time: they would share the pcap handle and stats
    wm_live_stats_t stats{};
    wm_stream_stats_t stream_stats{};
};

namespace {

// libpcap takes the kernel buffer's size as an int of bytes.
constexpr int kMaxLiveBufferMb = 2047;

template <typename T> bool sized(const T *p) { return p && p->struct_size == sizeof(T); }

int to_malloced(const std::string &s, char **out) {
    *out = static_cast<char *>(std::malloc(s.size() + 1));
    if (!*out) return WM_NOMEM;
    std::memcpy(*out, s.c_str(), s.size() + 1);
    return WM_SUCCESS;
}

struct Release {
    Scanner &s;
    ~Release() { s.release(); }
};

// Exceptions of the stream layer, then the library's usual mapping.
int stream_status(wm_error_t **err) {
    try {
        throw;
    } catch (const stream::PcapError &e) {
        return set_error(err, WM_IO_ERROR, e.what());
    } catch (const std::invalid_argument &e) {
        return set_error(err, WM_INVALID, e.what());
    } catch (...) {
        return status_from_current_exception(err);
    }
}

std::string stream_json(const wm_stream_stats_t &s) {
    return fmt::format(
        "{{\"flows_created\":{},\"flows_closed\":{},\"flows_timed_out\":{},\"flows_evicted\":{},"
        "\"flows_reused\":{},\"flows_at_end\":{},\"flows_peak\":{},\"memory_peak_bytes\":{},"
        "\"segments\":{},\"segments_no_flow\":{},\"segments_in_order\":{},"
        "\"segments_out_of_order\":{},\"retransmitted_bytes\":{},\"overlap_bytes\":{},"
        "\"overlap_conflicts\":{},\"gaps\":{},\"gap_bytes\":{},\"rst_accepted\":{},"
        "\"rst_ignored\":{},\"bytes_after_fin\":{},\"stream_bytes\":{},\"windows\":{},"
        "\"carried_bytes\":{},\"cross_segment_matches\":{},\"frag_fragments\":{},"
        "\"frag_reassembled\":{},\"frag_timeouts\":{},\"frag_evicted\":{},"
        "\"frag_overlap_bytes\":{},\"frag_overlap_drops\":{},\"frag_invalid\":{},"
        "\"frag_memory_peak_bytes\":{},\"oracle_windows\":{},\"oracle_mismatches\":{}}}",
        s.flows_created, s.flows_closed, s.flows_timed_out, s.flows_evicted, s.flows_reused,
        s.flows_at_end, s.flows_peak, s.memory_peak_bytes, s.segments, s.segments_no_flow,
        s.segments_in_order, s.segments_out_of_order, s.retransmitted_bytes, s.overlap_bytes,
        s.overlap_conflicts, s.gaps, s.gap_bytes, s.rst_accepted, s.rst_ignored,
        s.bytes_after_fin, s.stream_bytes, s.windows, s.carried_bytes, s.cross_segment_matches,
        s.frag_fragments, s.frag_reassembled, s.frag_timeouts, s.frag_evicted,
        s.frag_overlap_bytes, s.frag_overlap_drops, s.frag_invalid, s.frag_memory_peak_bytes,
        s.oracle_windows, s.oracle_mismatches);
}

} // namespace

extern "C" {

WM_API void wm_stream_config_init(wm_stream_config_t *c) {
    if (!c) return;
    std::memset(c, 0, sizeof(*c));
    c->struct_size = sizeof(*c);
    c->max_flows = 262144;
    c->memcap_bytes = 512ull << 20;
    c->max_ooo_bytes = 1ull << 20;
    c->idle_timeout_s = 120;
    c->frag_max_datagrams = 8192;
    c->frag_memcap_bytes = 32ull << 20;
    c->frag_timeout_s = 30;
}

WM_API void wm_stream_stats_init(wm_stream_stats_t *st) {
    if (!st) return;
    std::memset(st, 0, sizeof(*st));
    st->struct_size = sizeof(*st);
}

WM_API int wm_stream_stats_to_json(const wm_stream_stats_t *st, char **json) {
    if (!sized(st) || !json) return WM_INVALID;
    try {
        return to_malloced(stream_json(*st), json);
    } catch (...) {
        return WM_NOMEM;
    }
}

WM_API void wm_replay_options_init(wm_replay_options_t *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    wm_stream_config_init(&o->stream);
}

WM_API int wm_replay_file_ex(wm_scanner_t *sc, const char *path, const wm_replay_options_t *opts,
                             wm_alert_fn on_alert, void *alert_ctx, wm_progress_fn on_progress,
                             void *progress_ctx, wm_replay_stats_t *stats,
                             wm_stream_stats_t *stream_stats, wm_error_t **err) {
    if (err) *err = nullptr;
    wm_replay_options_t defaults;
    wm_replay_options_init(&defaults);
    if (!opts) opts = &defaults;
    // Options of a caller built before read_threads (0.2), on_window_alerts (0.6), bpf (0.10),
    // tunnel_ports (0.14) or payload_layout (0.15).
    wm_replay_options_t upgraded;
    opts = upgraded_options(opts, defaults,
                            {offsetof(wm_replay_options_t, read_threads),
                             offsetof(wm_replay_options_t, on_window_alerts), offsetof(wm_replay_options_t, bpf),
                             offsetof(wm_replay_options_t, tunnel_ports),
                             offsetof(wm_replay_options_t, payload_layout)},
                            upgraded);
    constexpr const char *kFn = "wm_replay_file_ex";
    std::string bad = replay_args_error(kFn, sc, path, stats);
    if (bad.empty()) bad = struct_size_error(kFn, "opts", opts, "wm_replay_options_init");
    if (bad.empty()) bad = struct_size_error(kFn, "opts->stream", &opts->stream, "wm_replay_options_init");
    if (bad.empty() && stream_stats) bad = struct_size_error(kFn, "stream_stats", stream_stats, "wm_stream_stats_init");
    if (!bad.empty()) return set_error(err, WM_INVALID, bad);
    // Filled in every case: a capture that cannot be opened leaves zeros, not the last replay's counts.
    wm_replay_stats_init(stats);
    if (stream_stats) wm_stream_stats_init(stream_stats);
    if (!sc->scanner.try_acquire())
        return set_error(err, WM_SCRATCH_IN_USE, "wm_replay_file_ex: scanner in use by another thread");
    Release release{sc->scanner};
    try {
        ReplayCallbacks cb{on_alert, alert_ctx, on_progress, progress_ctx, opts->on_window_alerts,
                           opts->window_alerts_ctx};
        std::string msg;
        const int rc = replay_file_ex(sc->scanner, path, *opts, cb, *stats, stream_stats, &msg);
        if (rc != WM_SUCCESS && rc != WM_SCAN_TERMINATED) return set_error(err, rc, msg);
        return rc;
    } catch (const capture::CaptureError &e) {
        return set_error(err, WM_IO_ERROR, e.what());
    } catch (...) {
        return stream_status(err);
    }
}

WM_API void wm_live_options_init(wm_live_options_t *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->snaplen = 262144;
    o->buffer_mb = 64;
    o->max_latency_ms = 100;
    wm_stream_config_init(&o->stream);
}

WM_API void wm_live_stats_init(wm_live_stats_t *st) {
    if (!st) return;
    std::memset(st, 0, sizeof(*st));
    st->struct_size = sizeof(*st);
    wm_replay_stats_init(&st->replay);
}

WM_API int wm_live_open(const wm_live_options_t *opts, wm_live_t **out, wm_error_t **err) {
    if (err) *err = nullptr;
    // Options of a caller built before tunnel_ports (0.14).
    wm_live_options_t defaults, upgraded;
    wm_live_options_init(&defaults);
    if (opts) opts = upgraded_options(opts, defaults, {offsetof(wm_live_options_t, tunnel_ports)}, upgraded);
    if (!out || !sized(opts) || !sized(&opts->stream) || !opts->interface || !*opts->interface)
        return set_error(err, WM_INVALID,
                         "wm_live_open: initialised options with an interface, and out, are required");
    *out = nullptr;
    if (opts->snaplen <= 0 || opts->buffer_mb <= 0 || opts->max_latency_ms == 0)
        return set_error(err, WM_INVALID, "wm_live_open: snaplen, buffer_mb and max_latency_ms must be > 0");
    if (opts->buffer_mb > kMaxLiveBufferMb) // libpcap takes the size as an int of bytes
        return set_error(err, WM_INVALID,
                         fmt::format("wm_live_open: buffer_mb {} is over {}", opts->buffer_mb, kMaxLiveBufferMb));
    try {
        auto live = std::make_unique<wm_live>();
        live->opts = *opts;
        live->interface = opts->interface;
        live->bpf = opts->bpf ? opts->bpf : "";
        live->opts.interface = live->interface.c_str();
        live->opts.bpf = live->bpf.c_str();
        live->opts.tunnel_ports = nullptr; // parsed here, kept in live->tunnel_ports
        if (opts->tunnel_ports && *opts->tunnel_ports)
            live->tunnel_ports = capture::TunnelPorts::parse(opts->tunnel_ports);
        stream::LiveSettings s;
        s.interface = live->interface;
        s.bpf = live->bpf;
        s.snaplen = opts->snaplen;
        s.buffer_mb = opts->buffer_mb;
        s.immediate = opts->immediate != 0;
        // The kernel may hold packets this long; keep it well inside the bound.
        s.timeout_ms = static_cast<int>(std::max(1u, std::min(opts->max_latency_ms / 4, 1000u)));
        live->cap = std::make_unique<stream::LiveCapture>(s);
        wm_live_stats_init(&live->stats);
        wm_stream_stats_init(&live->stream_stats);
        *out = live.release();
        return WM_SUCCESS;
    } catch (...) {
        return stream_status(err);
    }
}

WM_API int wm_live_run(wm_live_t *live, wm_scanner_t *sc, wm_alert_fn on_alert, void *alert_ctx,
                       wm_error_t **err) {
    if (err) *err = nullptr;
    if (!live || !sc) return set_error(err, WM_INVALID, "wm_live_run: live and sc are required");
    if (live->running.exchange(true))
        return set_error(err, WM_BAD_STATE, "wm_live_run: this capture is already running on another thread");
    struct Running {
        std::atomic<bool> &flag;
        ~Running() { flag.store(false); }
    } running{live->running};
    if (!sc->scanner.try_acquire())
        return set_error(err, WM_SCRATCH_IN_USE, "wm_live_run: scanner in use by another thread");
    Release release{sc->scanner};
    if (live->stopped)
        return set_error(err, WM_BAD_STATE,
                         "wm_live_run: this capture was stopped by wm_live_stop; open a new one with wm_live_open");
    try {
        std::string msg;
        // A stop asked for during the run (or before it) ends the capture for good.
        struct MarkStopped {
            wm_live_t &live;
            ~MarkStopped() { live.stopped = live.stop.load(); }
        } mark{*live};
        const int rc = live_capture(sc->scanner, *live->cap, live->opts,
                                    live->tunnel_ports ? &*live->tunnel_ports : nullptr, live->stop, on_alert,
                                    alert_ctx, live->stats, live->stream_stats, &msg);
        if (rc != WM_SUCCESS && rc != WM_SCAN_TERMINATED) return set_error(err, rc, msg);
        return rc;
    } catch (...) {
        return stream_status(err);
    }
}

WM_API void wm_live_stop(wm_live_t *live) {
    if (live) live->stop.store(true, std::memory_order_relaxed); // lock-free: signal-safe
}

WM_API int wm_live_stats(const wm_live_t *live, wm_live_stats_t *st, wm_stream_stats_t *sst) {
    if (!live || !sized(st) || (sst && !sized(sst))) return WM_INVALID;
    *st = live->stats;
    if (sst) *sst = live->stream_stats;
    return WM_SUCCESS;
}

WM_API int wm_live_stats_to_json(const wm_live_stats_t *st, char **json) {
    if (!sized(st) || !json) return WM_INVALID;
    try {
        // Milliseconds to the microsecond; a value that is not finite (a
        // host's own struct) is null, as in wm_replay_stats_to_json.
        auto ms = [](double v) { return std::round(v * 1000) / 1000; };
        nlohmann::ordered_json j;
        j["pcap_received"] = st->pcap_received;
        j["pcap_dropped"] = st->pcap_dropped;
        j["pcap_if_dropped"] = st->pcap_if_dropped;
        j["batches_by_size"] = st->batches_by_size;
        j["batches_by_latency"] = st->batches_by_latency;
        j["batches_at_stop"] = st->batches_at_stop;
        j["latency_ms"] = {{"p50", ms(st->latency_p50_ms)}, {"p99", ms(st->latency_p99_ms)},
                           {"max", ms(st->latency_max_ms)}};
        return to_malloced(j.dump(), json);
    } catch (...) {
        return WM_NOMEM;
    }
}

WM_API void wm_live_close(wm_live_t *live) { delete live; }

} // extern "C"
