// Replay: offline capture -> batches (payloads back to back) -> scanner ->
// alerts in packet order. The C API's wm_replay_file is a thin wrapper.
// With streams (stream/stream_pipeline.h) the same scanner also serves
// reassembled TCP streams, offline and on a live interface.
#pragma once

#include "scan_ahead.h"
#include "scanner.h"
#include "stream/pcap_source.h"
#include "stream/stream_pipeline.h"
#include "warpmatch.h"

#include <atomic>
#include <memory>
#include <string>

namespace wm {

struct ReplayCallbacks {
    wm_alert_fn on_alert = nullptr;
    void *alert_ctx = nullptr;
    wm_progress_fn on_progress = nullptr;
    void *progress_ctx = nullptr;
    // A window's alerts as one array instead of on_alert per alert (set
    // array scanners only; replay_file refuses others).
    wm_window_alerts_fn on_window_alerts = nullptr;
    void *window_alerts_ctx = nullptr;
};

// How the capture is read (wm_replay_options_t); 0 = chosen by replay_file.
// Whole windows through the set pipeline (Scanner::submit_set/collect_set),
// or with matches (positions, align rules) scanned ahead on a thread of
// their own (ScanAhead): a window is scanned while the one before it is
// delivered. Auto: on the GPU, with the set array, or with matches and an
// alert callback (the CPU backend scans small batches instead, so alerts
// keep flowing); On: on any backend (tests run the pipelines' bookkeeping on
// the CPU this way); Off: never.
enum class WindowPipeline { Auto, On, Off };

struct ReplayTuning {
    unsigned threads = 0;      // threads decoding a window
    uint64_t window_bytes = 0; // file bytes per window
    WindowPipeline pipeline = WindowPipeline::Auto;
    std::string filter;        // capture filter, tcpdump syntax ("" for none)
    const capture::TunnelPorts *tunnel_ports = nullptr; // nullptr: the standard ones
    // wm_payload_layout: payloads left where the file has them
    // (WindowReader::set_payloads_in_place) or packed by the reader.
    int payload_layout = WM_PAYLOADS_AUTO;
};

// Replay without streams (replay_packets.cpp): windows of the capture are
// read on other threads while this one scans and delivers. Returns
// WM_SUCCESS, WM_CAPTURE_ERROR (corrupt file: everything before it scanned
// and reported), WM_VERIFY_MISMATCH or WM_SCAN_TERMINATED, with a message in
// *error; stats are filled in every case. Throws on I/O errors opening the
// file (CaptureError), on engine failures, and std::invalid_argument for
// cb.on_window_alerts with a scanner that has no set array.
int replay_file(Scanner &sc, const std::string &path, const ReplayCallbacks &cb,
                wm_replay_stats_t &stats, std::string *error, const ReplayTuning &tuning = {});

// The scanner as the stream pipeline sees it.
class ScannerForStreams final : public stream::BatchScanner {
  public:
    explicit ScannerForStreams(Scanner &sc) : sc_(sc) {}
    const std::vector<rules::Rule> &rules() const override { return sc_.ruleset().rules(); }
    const std::vector<uint32_t> &rule_ids() const override { return sc_.rule_ids(); }
    bool positions() const override { return sc_.output_mode() == WM_OUTPUT_POSITIONS; }
    bool on_gpu() const override { return sc_.backend() == WM_BACKEND_GPU; }
    int scan(const BatchView &b, std::vector<Match> &out, std::vector<std::string> *why, Wanted wanted) override;
    void submit(const BatchView &b, Wanted wanted, AfterScan after) override;
    int take(std::vector<Match> &out, std::vector<std::string> *why) override;
    void cancel() noexcept override;

  private:
    void note_mismatches(const std::vector<Match> &gpu_only, const std::vector<Match> &cpu_only,
                         std::vector<std::string> *why) const;
    Scanner &sc_;
    std::unique_ptr<ScanAhead> ahead_; // made at the first submit(), for its Wanted
    Wanted ahead_wanted_ = Wanted::EveryMatch;
};

// Pipeline options from the C options (streams, verification, limits).
stream::PipelineOptions pipeline_options(int streams, int verify_streams,
                                         const wm_stream_config_t &config);

// replay_file with options: streams off is replay_file itself; streams on
// reads raw frames through the stream pipeline. Same statuses; stream_stats
// may be null. Throws stream::PcapError when the file cannot be opened,
// std::invalid_argument for streams with a set-mode scanner or with
// cb.on_window_alerts.
int replay_file_ex(Scanner &sc, const std::string &path, const wm_replay_options_t &opts,
                   const ReplayCallbacks &cb, wm_replay_stats_t &stats,
                   wm_stream_stats_t *stream_stats, std::string *error);

// Live capture until stop (see stream/live_loop.h). Fills stats (pcap_stats
// included) in every case; returns WM_SUCCESS, WM_SCAN_TERMINATED or
// WM_VERIFY_MISMATCH with the first differences in *error.
// ports: the UDP tunnels' ports (nullptr: the standard ones).
int live_capture(Scanner &sc, stream::LiveCapture &cap, const wm_live_options_t &opts,
                 const capture::TunnelPorts *ports, const std::atomic<bool> &stop, wm_alert_fn on_alert,
                 void *alert_ctx,
                 wm_live_stats_t &stats, wm_stream_stats_t &stream_stats, std::string *error);

} // namespace wm
