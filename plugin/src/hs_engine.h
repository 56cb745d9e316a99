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

    // A batch is cut into at most this many runs per thread (taken as
    // threads come free), and only when it holds this many bytes per run:
    // below that, waking the pool costs more than it saves.
    static constexpr unsigned kRunsPerThread = 4;
    static constexpr size_t kMinRunBytes = 64 * 1024;

  private:
    struct FreeScratch {
        void operator()(hs_scratch_t *s) const { hs_free_scratch(s); }
    };
    // One thread's state: its scratch and set-mode stamps.
    struct Lane {
        std::unique_ptr<hs_scratch_t, FreeScratch> scratch;
        std::vector<uint64_t> seen; // set-mode dedupe stamps per rule
        uint64_t stamp = 0;
    };
    void scan_run(Lane &lane, const BatchView &batch, size_t begin, size_t end, bool set,
                  std::vector<Match> &out);

    const CompiledRuleSet &rs_;
    unsigned threads_;
    std::vector<uint32_t> len_, offset_, depth_; // per rule, hot in the callback
    std::vector<Lane> lanes_;                     // [0]: the calling thread's
    std::vector<std::vector<Match>> run_out_;     // per run, joined in order
    std::unique_ptr<capture::WorkerPool> pool_;   // made on the first batch big enough
};

} // namespace wm
