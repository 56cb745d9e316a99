// A scanner: one per worker thread. Owns the chosen engine (GPU or
// Hyperscan), the Hyperscan engine used for cross-checking, and counters.
// Approximate and align rules run on their own engines (ApproxEngine,
// AlignEngine) on the same backend as the literals, each with a CPU twin for
// verification. Verifying align rules compares, per payload and rule, that
// both paths agree on whether min_score is reached and on the score and the
// aligned region [start, end) (the CIGAR is not carried by matches).
// Applies the rules' protocol/port constraints identically for every engine
// and delivers matches in canonical order (payload, end, rule).
#pragma once

#include "compiled_ruleset.h"
#include "engine.h"
#include "gpu/host_wait.h"
#include "warpmatch.h"

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wm {

class Scanner {
  public:
    // Throws StatusError (WM_NO_GPU, WM_GPU_ERROR, WM_NOMEM) when the
    // requested backend cannot be set up.
    Scanner(const CompiledRuleSet &rs, const wm_scanner_options_t &opts);
    ~Scanner();

    int backend() const { return backend_; }
    const std::string &backend_reason() const { return reason_; }
    int output_mode() const { return mode_; }
    // Host threads of a batch's CPU work (wm_scanner_options_t::cpu_threads, at least 1).
    unsigned cpu_threads() const { return cpu_threads_; }
    const CompiledRuleSet &ruleset() const { return rs_; }

    // Scans a batch into out (cleared first). Returns WM_SUCCESS or
    // WM_VERIFY_MISMATCH (matches are the primary engine's; the differences
    // are in mismatches()). Throws StatusError / std::exception on failure.
    int scan(const BatchView &batch, std::vector<Match> &out);

    // wm_scan_batch: scan()'s matches handed to `deliver` a span at a time
    // (each valid only during the call), in the same order; deliver returns
    // false to stop, and then this returns WM_SCAN_TERMINATED. On the GPU
    // positions fast path (no approximate or align rules, no verification
    // due) spans come chunk by chunk as the host threads expand them
    // (cpu_threads), never the whole batch's matches at once; a GPU failure
    // under `auto` finishes the batch on Hyperscan, delivering only what
    // follows the last match delivered. On the CPU backend (no approximate
    // or align rules) Hyperscan's runs are delivered likewise as its threads
    // finish them. Same returns and throws as scan() besides. After a stop, the stats count what was expanded up to it.
    // Wanted::FirstPerRule: the fast paths may leave out matches that are
    // not their (payload, rule)'s first (engine.h); deliver must drop the
    // repeats that still come. The stats count the matches delivered.
    using Deliver = std::function<bool(const Match *matches, size_t n)>;
    int scan_delivering(const BatchView &batch, const Deliver &deliver, Wanted wanted = Wanted::EveryMatch);
    // Rule index -> rule id, for delivery.
    const std::vector<uint32_t> &rule_ids() const { return rule_ids_; }

    // wm_scan_batch_set: the distinct (rule id, payload) hits of a batch, in
    // (payload, rule) order, in memory the scanner owns until its next scan.
    // Same returns and throws as scan().
    int scan_set(const BatchView &batch, const wm_set_hit_t **hits, size_t *count);

    // wm_scan_batch_set_submit / _collect (scanner_pipeline.cpp): scan_set()
    // pipelined. submit_set() queues a batch: on the GPU fast path its chunks
    // stay in flight, so the next batch's copies overlap its scan; any other
    // path (CPU backend, a batch sampled for verification, approximate or
    // align rules) scans it at once and keeps the result. collect_set()
    // returns the oldest queued batch's hits and status, as scan_set() would
    // have. At most kPendingSetBatches queued; scan(), scan_set() and replay
    // refuse to run while any is (StatusError WM_INVALID).
    static constexpr unsigned kPendingSetBatches = WM_SET_PIPELINE_DEPTH;
    void submit_set(const BatchView &batch);
    int collect_set(const wm_set_hit_t **hits, size_t *count);
    size_t pending_set() const { return pending_.size(); }
    // Throws StatusError(WM_INVALID) naming `what` while batches are queued.
    void refuse_while_pending(const char *what) const;

    // Differences found by the last scan, "payload P rule R [s,e): gpu only".
    const std::vector<Match> &gpu_only() const { return gpu_only_; }
    const std::vector<Match> &cpu_only() const { return cpu_only_; }

    // Whether batches of payloads left in place (BatchView::sources) suit
    // every engine: the GPU's approximate and align engines read a batch
    // whole and would pack it on this thread (packed_view) first.
    bool takes_payloads_in_place() const { return backend_ == WM_BACKEND_CPU || (!approx_ && !align_); }

    // Page-locked on the GPU backend (see wm_scanner_batch_buffer). slot
    // (< kBatchBufferSlots) picks one buffer: replay fills one while another
    // is scanned and the third's alerts are delivered.
    static constexpr unsigned kBatchBufferSlots = WM_BATCH_BUFFER_SLOTS;
    uint8_t *batch_buffer(size_t bytes, unsigned slot = 0);

    const wm_scanner_stats_t &stats() const { return stats_; }
    void add_delivery_time(double seconds);
    // Guards against concurrent use from several threads.
    bool try_acquire() { return !busy_.exchange(true); }
    void release() { busy_.store(false); }

  private:
    // A queued set batch (submit_set): in flight on the GPU, or its result.
    struct PendingSet {
        BatchView batch{};
        bool on_gpu = false;
        int rc = WM_SUCCESS;
        std::vector<wm_set_hit_t> hits;
        std::vector<Match> gpu_only, cpu_only;
    };
    bool gpu_fast_path() const;
    using Clock = std::chrono::steady_clock;
    // A Deliver timed and counted (the fast paths' sink): the time spent
    // in deliver, the matches handed over and the last of them.
    struct TimedDelivery {
        const Deliver &deliver;
        double seconds = 0;
        size_t matches = 0;
        Match last{};
        bool stopped = false; // deliver asked to stop
        bool operator()(const Match *m, size_t n);
    };
    int scan_positions_gpu(const BatchView &batch, const Deliver &deliver, Wanted wanted);
    int scan_positions_cpu(const BatchView &batch, const Deliver &deliver, Wanted wanted);
    int count_delivered(const BatchView &batch, Clock::time_point t0, const TimedDelivery &sink, bool complete);
    int scan_set_general(const BatchView &batch); // into set_hits_
    void keep_result(PendingSet &p, int rc);
    void pipeline_gpu_failed(const std::exception &e);
    void uncount_batch(const BatchView &batch);
    int scan_in_mode(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out);
    void count_batch(const BatchView &batch, size_t matches, double engine_seconds);
    void filter_by_meta(const BatchView &batch, std::vector<Match> &m) const;
    void setup_approx(int device, gpu::HostWait wait);
    void setup_align(int device, gpu::HostWait wait);
    void fall_back_to_cpu(const std::string &why);
    [[noreturn]] void drop_pending_after_gpu_failure(const std::string &why);
    void rescan_in_flight_on_cpu();

    const CompiledRuleSet &rs_;
    int backend_ = WM_BACKEND_CPU;
    int mode_ = WM_OUTPUT_POSITIONS;
    unsigned verify_every_ = 0;
    unsigned cpu_threads_ = 1; // Hyperscan threads per batch, GPU positions expansion threads (cpu_threads)
    bool fallback_allowed_ = false; // `auto`: a GPU failure moves the scanner to the CPU
    std::string reason_;
    std::unique_ptr<Engine> primary_;
    // The GPU engine after a fall back to the CPU: kept, because the batch
    // being rescanned (and a replay window being filled) may lie in its
    // page-locked batch buffers.
    std::unique_ptr<Engine> retired_gpu_;
    std::unique_ptr<Engine> checker_; // Hyperscan, when verifying a GPU engine
    // Approximate rules (max_edits / max_mismatches), on the same backend as
    // the literals; approx_checker_ is its Hyperscan twin for --verify.
    std::unique_ptr<Engine> approx_, approx_checker_;
    // Align rules: GPU (PayloadAligner) or CPU (plain DP) path; align_checker_
    // is the CPU path checking the GPU path for --verify.
    std::unique_ptr<Engine> align_, align_checker_;
    std::vector<Match> gpu_only_, cpu_only_, check_buf_;
    std::vector<Match> set_matches_;     // scan_set() on the general path
    std::vector<Match> delivered_;       // scan_delivering() on the general path
    std::vector<uint32_t> rule_ids_;     // rule_ids()
    std::vector<wm_set_hit_t> set_hits_; // ... and its hits
    std::deque<PendingSet> pending_;       // submit_set(), oldest first
    std::vector<wm_set_hit_t> collected_;  // collect_set()'s hits when scanned at submit
    std::vector<uint8_t> host_buffer_[kBatchBufferSlots]; // batch_buffer() on the CPU backend
    wm_scanner_stats_t stats_{};
    std::atomic<bool> busy_{false};
};

} // namespace wm
