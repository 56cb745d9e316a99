// Adapter from the scanner's Engine interface to gpu/'s Aho-Corasick matcher.
#pragma once

#include "compiled_ruleset.h"
#include "engine.h"
#include "gpu/ac_scope.h"
#include "gpu/gpu_matcher.h"
#include "positions_expansion.h"

#include <memory>
#include <vector>

namespace wm {

// The literal rules as the GPU matcher takes them: one device pattern per
// distinct (bytes, nocase, offset, depth), numbered by its first rule, and
// one scope entry per rule, in rule order, naming its pattern. The ET Open
// prefilter set has 23,609 rules on 17,945 such literals (up to 65 rules on
// one); the automaton holds each once and a hit is expanded to the rules
// whose scope fits (on the device in set mode, in scan() otherwise).
struct GpuPatterns {
    std::vector<gpu::Literal> literals;    // per device pattern
    std::vector<gpu::PatternScope> scopes; // per literal rule, in rule order
    gpu::FlatScopes flat;                  // scopes flattened, as the matcher takes them
    std::vector<uint32_t> rule_begin;      // per device pattern, + 1: its rules are
    std::vector<uint32_t> rules;           //   rules[rule_begin[p], rule_begin[p + 1]), ascending
};
GpuPatterns gpu_patterns(const CompiledRuleSet &rs);

class GpuEngine final : public Engine {
  public:
    // Throws gpu::GpuError when no GPU is usable or device memory runs out.
    // host_threads: threads that expand Positions matches to rules (1: the caller's alone).
    GpuEngine(const CompiledRuleSet &rs, const gpu::GpuOptions &opts, unsigned host_threads = 1);
    ~GpuEngine() override;
    const char *name() const override { return "gpu-aho-corasick"; }
    void scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) override;
    // Positions mode delivered as it comes: the batch's matches of rules whose
    // protocol/port scope fits batch.meta (all without meta), in canonical
    // order (payload, end, rule, start), a span at a time, each span valid
    // only during the call; the device scans later chunks meanwhile. Returns
    // false when the sink stopped it (the rest of the batch is scanned, not
    // expanded). Throws gpu::GpuError after delivering whatever came before.
    // Wanted::FirstPerRule: most repeats of a (payload, rule) are left out,
    // on the device before the copy back (gpu::PositionsKept::FirstPerPattern)
    // and in the expansion (PositionsExpander::expand).
    bool scan_positions(const BatchView &batch, const PositionsExpander::Sink &sink,
                        Wanted wanted = Wanted::EveryMatch);
    // Set mode in place (GpuMatcher::scan_set_pairs): distinct (rule id,
    // payload) hits that pass the rules' protocol/port scopes (batch.meta),
    // ordered by (payload, rule), in pinned memory valid until the next scan.
    size_t scan_set_hits(const BatchView &batch, const wm_set_hit_t **hits);
    // The same pipelined (GpuMatcher::submit_set_pairs / collect_set_pairs).
    void submit_set_hits(const BatchView &batch);
    size_t collect_set_hits(const wm_set_hit_t **hits);
    std::string describe() const;
    uint8_t *pinned_buffer(size_t bytes, unsigned slot = 0);

  private:
    std::unique_ptr<gpu::GpuMatcher> matcher_;
    std::vector<gpu::Match> found_; // reused: no allocation per batch
    std::vector<uint32_t> len_;     // per GPU pattern
    std::vector<uint32_t> rules_;   // GpuPatterns::rules
    uint32_t num_rules_ = 0;        // the rule set's (literal or not)
    gpu::FlatScopes scopes_;        // host copy of the matcher's scopes: entry_begin is GpuPatterns::rule_begin
    PositionsExpander expander_;
    PatternRules pattern_rules() const;
};

// False with a reason when no GPU can be used (or the build has no CUDA).
bool gpu_backend_usable(int device, std::string *reason);

} // namespace wm
