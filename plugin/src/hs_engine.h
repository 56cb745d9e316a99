// Hyperscan CPU engine: block mode over each payload with the rule set's
// literal database. One engine per scanner; a batch is scanned by the
// calling thread alone or, with threads > 1, cut into runs of payloads of
// about equal bytes that a pool of threads scans with a scratch each (the
// CPU backend and the GPU's cross-check, where Hyperscan on one core was
// 1/15 of what the host's cores do). Matches come out in sort_matches()
// order either way: each run is sorted on its thread and the runs are
// joined in payload order.
#pragma once

#include "capture/worker_pool.h"
#include "compiled_ruleset.h"
#include "engine.h"

#include <atomic>
#include <functional>
#include <memory>

namespace wm {

class HyperscanEngine final : public Engine {
  public:
    // threads: 0 or 1 = the calling thread only.
    explicit HyperscanEngine(const CompiledRuleSet &rs, unsigned threads = 1);
    ~HyperscanEngine() override;
    const char *name() const override { return "hyperscan"; }
    void scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) override;
    unsigned threads() const { return threads_; }

    // Positions mode, each match handed to `sink` a span at a time in
    // canonical order, only rules whose scope fits batch.meta (all without
    // meta): scan() followed by the scanner's filter, without a batch-sized
    // vector. With threads > 1 and runs to share, the pool threads scan,
    // sort and filter runs while the calling thread hands finished runs to
    // the sink in order, scanning one itself while the next is not ready
    // (the sink's serial work overlaps the scan). Wanted::FirstPerRule:
    // only each (payload, rule)'s first match, exactly (a run holds whole
    // payloads), dropped on the scanning threads.
    // Returns false when the sink returned false (nothing after it).
    using Sink = std::function<bool(const Match *matches, size_t n)>;
    bool scan_positions(const BatchView &batch, const Sink &sink, Wanted wanted = Wanted::EveryMatch);

    // A batch is cut into at most this many runs per thread (taken as
    // threads come free), and only when it holds this many bytes per run:
    // below that, waking the pool costs more than it saves. Many small runs
    // keep the batch's last runs short, where threads wait on the slowest:
    // 16 of >= 16 KB per thread replayed merged-zeek x8 (16 MB batches, 16
    // threads, one H100 host) in 0.25-0.28 s against 0.33-0.39 s with 4 of
    // >= 64 KB (run 170).
    static constexpr unsigned kRunsPerThread = 16;
    static constexpr size_t kMinRunBytes = 16 * 1024;

  private:
    struct FreeScratch {
        void operator()(hs_scratch_t *s) const { hs_free_scratch(s); }
    };
    // One thread's state: its scratch and dedupe stamps.
    struct Lane {
        std::unique_ptr<hs_scratch_t, FreeScratch> scratch;
        std::vector<uint64_t> seen;  // set and first-per-rule dedupe stamps per rule
        std::vector<uint32_t> where; // first per rule: the rule's match in the run's output
        uint64_t stamp = 0;
    };
    // What a run keeps of a payload's matches: all, the first per rule
    // (with its offsets), or one per rule without offsets (set mode).
    enum class Keep { Every, FirstPerRule, Set };
    void scan_run(Lane &lane, const BatchView &batch, size_t begin, size_t end, Keep keep,
                  std::vector<Match> &out);
    // Runs of batch (payload index cut points, size runs + 1) for a pool of threads_.
    std::vector<size_t> cut_runs(const BatchView &batch, size_t max_runs) const;

    const CompiledRuleSet &rs_;
    unsigned threads_;
    std::vector<uint32_t> len_, offset_, depth_; // per rule, hot in the callback
    std::vector<Lane> lanes_;                     // [0]: the calling thread's
    std::vector<std::vector<Match>> run_out_;     // per run, joined in order
    std::unique_ptr<capture::WorkerPool> pool_;   // made on the first batch big enough
    std::vector<std::atomic<uint8_t>> run_ready_; // scan_positions(): per run (hand_over_in_order)
};

} // namespace wm
