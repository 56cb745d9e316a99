// ApproxEngine: the Engine for the approximate rules of a rule set (rules with
// max_edits or max_mismatches); exact rules are ignored here (the literal
// engines handle them). Two backends, chosen by the constructor:
//   Cpu  a Hyperscan block-mode database compiled with extended parameters
//        (hs_expr_ext: HS_EXT_FLAG_EDIT_DISTANCE / HS_EXT_FLAG_HAMMING_DISTANCE),
//        each pattern escaped as a regex of \xHH bytes (compile_approximate:
//        the CompiledRuleSet's, built at load); one scratch per engine.
//   Gpu  the bit-parallel k-differences kernels (gpu/approx/approx_matcher.h).
//
// Semantics (identical on both backends, tested against a plain DP):
//   Levenshtein: every end offset j such that some substring of the payload
//   ending at j is within k edits of the pattern; Hamming: every j >= m such
//   that payload[j-m, j) has at most k mismatching bytes. nocase folds ASCII.
// Both backends report ends; the start is found after (approx_start.h):
// Levenshtein: Match.start is the start of the closest alignment (fewest
// edits, then the latest start) among those starting at or after the rule's
// offset, and the match is kept iff there is one; Hamming: start = j - m,
// kept iff start >= offset. depth bounds the end, as for exact rules: end <=
// offset + depth (depth 0: none).
//
// Lifecycle: one engine per scanner (per thread), like HyperscanEngine.
#pragma once

#include "compiled_ruleset.h"
#include "engine.h"

#include "gpu/approx/kdiff.h"
#include "gpu/host_wait.h"

#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace wm {

namespace approx {
class ApproxMatcher;
}

enum class ApproxBackend { Cpu, Gpu };

class ApproxEngine final : public Engine {
  public:
    // `rules`: the rule set's rules (Match.rule = index into it); only those
    // with max_edits / max_mismatches are compiled. Throws rules::RuleError
    // naming the rule when Hyperscan rejects one or when the GPU kernels
    // cannot take one (see gpu/approx/kdiff.h), and
    // wm::gpu::GpuError when the Gpu backend has no usable device.
    // `wait`: how the Gpu backend's thread waits for the device.
    ApproxEngine(const std::vector<rules::Rule> &rules, ApproxBackend backend, int device = 0,
                 gpu::HostWait wait = gpu::HostWait::Spin)
        : ApproxEngine(rules, backend, device, wait, nullptr) {}
    // The Cpu backend scans the rule set's own database (compiled at load).
    ApproxEngine(const CompiledRuleSet &rs, ApproxBackend backend, int device = 0,
                 gpu::HostWait wait = gpu::HostWait::Spin)
        : ApproxEngine(rs.rules(), backend, device, wait, rs.hs_approx_database()) {}
    ~ApproxEngine() override;

    const char *name() const override {
        return backend_ == ApproxBackend::Gpu ? "approx-gpu" : "approx-hyperscan";
    }
    void scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) override;

    static bool is_approximate(const rules::Rule &r) {
        return CompiledRuleSet::is_approximate(r); // never an align rule
    }
    size_t rule_count() const { return rule_index_.size(); }
    // The GPU matcher (null on the Cpu backend): route and timings for reports.
    const approx::ApproxMatcher *gpu_matcher() const { return gpu_.get(); }

  private:
    // shared_db: compile_approximate(rules) compiled by the caller, or null
    // to compile it here (owned_db_).
    ApproxEngine(const std::vector<rules::Rule> &rules, ApproxBackend backend, int device, gpu::HostWait wait,
                 const hs_database_t *shared_db);
  public:
    using Hit = std::tuple<uint32_t, uint32_t, uint32_t>; // (payload, approximate pattern, end)

  private:
    // Appends to out the hits that offset and depth keep, with their starts
    // (approx_start.h: one DP per payload and pattern). Sorts hits.
    void keep(std::vector<Hit> &hits, const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) const;

    ApproxBackend backend_;
    std::vector<uint32_t> rule_index_;  // approximate pattern i -> rule index
    std::vector<uint32_t> offset_, depth_;      // per approximate pattern
    std::vector<approx::ApproxPattern> patterns_; // the same, as the GPU kernels take them
    std::vector<uint8_t> packed_; // an in-place batch packed for the GPU (it reads data whole)
    std::unique_ptr<hs_database_t, HsDatabaseDeleter> owned_db_;
    const hs_database_t *db_ = nullptr; // owned_db_ or the rule set's
    hs_scratch_t *scratch_ = nullptr;
    std::unique_ptr<approx::ApproxMatcher> gpu_;
};


} // namespace wm
