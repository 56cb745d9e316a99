// plugin/src/stream/stream_pipeline.h - captured frames -> (IP reassembly,
// flows, TCP reassembly, windows with carry) -> batches -> scanner ->
// alerts. Offline replay and live capture both drive it, frame by frame.
//
// With streams off it does what replay always did: every TCP/UDP payload is
// one batch entry, fragments are skipped. With streams on, TCP payloads go
// through the flow table and are scanned as windows of their stream,
// fragments are reassembled first, UDP datagrams are scanned on their own.
//
// The stream layer does not link the scanner: it sees it through
// BatchScanner (implemented over wm::Scanner in replay.cpp), which keeps the
// dependency between the two libraries one-way.
#pragma once

#include "capture/decoder.h"
#include "engine.h"
#include "first_alerts.h"
#include "rules/rule.h"
#include "stream/carry_matcher.h"
#include "stream/flow_table.h"
#include "stream/hs_stream_oracle.h"
#include "stream/ip_defrag.h"
#include "warpmatch.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wm::stream {

class BatchScanner {
  public:
    virtual ~BatchScanner() = default;
    virtual const std::vector<rules::Rule> &rules() const = 0;
    virtual const std::vector<uint32_t> &rule_ids() const = 0; // rules()[i].id, compact
    virtual bool positions() const = 0; // matches carry start/end
    virtual bool on_gpu() const = 0;
    // Matches in canonical order (payload, end, rule). Returns WM_SUCCESS or
    // WM_VERIFY_MISMATCH, then appends a line per difference to *why.
    // Wanted::FirstPerRule: matches that are not their (payload, rule)'s
    // first may be left out (engine.h).
    virtual int scan(const BatchView &b, std::vector<Match> &out, std::vector<std::string> *why,
                     Wanted wanted) = 0;
    // Scanning ahead, at most one batch at a time: submit() starts scanning
    // b on another thread (b's memory stays valid until take() returns),
    // then runs `after` there on its matches; take() waits for it, giving
    // what scan() would have (after `after`); it rethrows what the scan
    // threw. cancel() drops a submitted batch, waiting until the other
    // thread no longer reads it.
    using AfterScan = std::function<void(std::vector<Match> &)>;
    virtual void submit(const BatchView &b, Wanted wanted, AfterScan after) = 0;
    virtual int take(std::vector<Match> &out, std::vector<std::string> *why) = 0;
    virtual void cancel() noexcept = 0;
};

// Told when a batch has been scanned and its alerts delivered, with the
// capture time (microseconds) of its first packet: live capture measures
// per-batch latency with it.
class BatchObserver {
  public:
    virtual ~BatchObserver() = default;
    virtual void batch_done(int64_t first_packet_usec) = 0;
};

struct PipelineOptions {
    bool streams = false;
    bool verify_streams = false; // compare with Hyperscan stream mode
    wm_stream_config_t config{};
    size_t max_batch_bytes = 0;    // 0: 1 MiB on the CPU; on the GPU 2 MiB with streams, else 32 MiB
    size_t max_batch_payloads = 0; // 0: by backend
    // A full batch is scanned on another thread while the next one fills
    // (offline replay); its alerts are delivered before the next one's.
    // Off for live capture: there a batch's alerts wait for nothing else.
    bool scan_ahead = false;
    // The UDP tunnels' ports frames are decoded with (nullptr: the standard
    // ones); it must outlive the pipeline.
    const capture::TunnelPorts *tunnel_ports = nullptr;
};

class StreamPipeline final : private FlowSink {
  public:
    // Throws std::invalid_argument for streams with a set-mode scanner or
    // approximate rules, and
    // std::runtime_error when the stream-mode oracle cannot be built.
    StreamPipeline(BatchScanner &sc, const PipelineOptions &opts, wm_alert_fn on_alert,
                   void *alert_ctx);
    ~StreamPipeline() override;

    // One captured frame of link type dlt. False once the alert callback
    // asked to stop (nothing more is scanned).
    bool frame(int dlt, const uint8_t *data, uint32_t caplen, uint32_t wirelen, int64_t ts_sec,
               int64_t ts_usec);
    // A record the capture filter rejected: not counted, but the next
    // frame's packet number is its number in the file.
    void skip_record() { ++records_; }
    // Scans the pending batch and delivers its alerts (and, first, those of
    // the batch scanned ahead).
    bool flush();
    // End of input: ends every flow (delivering what they buffer) and
    // flushes. Call once.
    bool finish();

    bool pending() const { return batch_.count() > 0 || ahead_.busy; }
    // Capture clock (latest packet timestamp, microseconds) when the pending
    // batch got its first entry: live capture closes a batch when this gets
    // too old.
    int64_t pending_since_usec() const { return pending_since_; }
    bool stopped() const { return stopped_; }
    void observe(BatchObserver *o) { observer_ = o; }

    const wm_capture_stats_t &capture_stats() const { return cap_; }
    const wm_stream_stats_t &stream_stats() const { return sst_; }
    uint64_t alerts() const { return alerts_; }
    uint64_t batches() const { return batches_; }
    uint64_t batches_full() const { return batches_full_; }
    uint64_t verify_mismatches() const { return mismatches_; }
    const std::vector<std::string> &mismatch_lines() const { return why_; }
    size_t flows() const { return flows_ ? flows_->flows() : 0; }

  private:
    void data(Flow &f, int dir, uint64_t off, const uint8_t *bytes, size_t len,
              const wm_packet_t &trigger) override;
    void gap(Flow &f, int dir, uint64_t from, uint64_t to) override;
    void late(Flow &f, int dir, const uint8_t *bytes, size_t len, size_t lo, size_t hi,
              const wm_packet_t &trigger) override;
    void end(Flow &f) override;

    void decoded(const uint8_t *frame, uint32_t caplen, int rc, const capture::FrameLayers &where, wm_packet_t &pkt);
    // A decoded TCP packet (or reassembled datagram) of frame: its IP
    // header and VLAN ids as the decoder found them.
    void tcp(const uint8_t *frame, size_t caplen, const capture::FrameLayers &where, wm_packet_t &pkt);
    void add_datagram(const wm_packet_t &pkt);
    void note_added(const wm_packet_t &trigger);
    // A batch handed to the scanner: its windows, the oracle's expectations
    // and when its first entry came in.
    struct Scanned {
        WindowBatch batch;
        std::vector<std::vector<StreamMatch>> expected;
        int64_t since = 0;
        bool busy = false;     // submitted, not taken
        uint64_t crossing = 0; // the carry filter's cross_segment_matches, counted on the scanning thread
    };
    Wanted wanted() const;
    // batch_ (and expected_) into `to`; batch_ gets to's emptied buffers.
    void hand_over(Scanned &to);
    void submit_ahead();    // the full batch_ scanned ahead (opts_.scan_ahead)
    bool take_ahead();      // the batch scanned ahead: its alerts delivered
    bool finish_scan(Scanned &s, int rc, std::vector<std::string> &why, bool filtered);
    void check_oracle(const Scanned &s);
    bool deliver(const WindowBatch &b);

    BatchScanner &sc_;
    PipelineOptions opts_;
    wm_alert_fn on_alert_;
    void *alert_ctx_;
    RuleGeometry geometry_;
    CarryMatcher carry_;
    std::unique_ptr<HsStreamOracle> oracle_;
    std::unique_ptr<FlowTable> flows_;
    std::unique_ptr<IpDefrag> defrag_;
    WindowBatch batch_;
    Scanned ahead_, current_; // the batch scanned ahead; the one flush() scans
    std::vector<Match> matches_;
    std::vector<std::vector<StreamMatch>> expected_; // oracle, per window
    std::vector<uint8_t> datagram_;
    wm_capture_stats_t cap_{};
    uint64_t records_ = 0; // frames and skipped records: the packet numbers
    wm_tunnel_t carrier_{}; // the current frame's carrier, when it came through a tunnel
    wm_stream_stats_t sst_{};
    int64_t now_sec_ = INT64_MIN, last_expire_sec_ = INT64_MIN;
    int64_t pending_since_ = 0, now_usec_ = 0;
    bool stopped_ = false, flushing_ = false;
    uint64_t alerts_ = 0, batches_ = 0, batches_full_ = 0, mismatches_ = 0;
    std::vector<std::string> why_;
    FirstAlerts first_; // rules alerted for the current window
    BatchObserver *observer_ = nullptr;
};

} // namespace wm::stream
