// Hyperscan CPU engine: block mode over each payload with the rule set's
// literal database; one scratch per engine (engines are per scanner, and
// scanners are per thread).
#pragma once

#include "compiled_ruleset.h"
#include "engine.h"

namespace wm {

class HyperscanEngine final : public Engine {
  public:
    explicit HyperscanEngine(const CompiledRuleSet &rs);
    ~HyperscanEngine() override;
    const char *name() const override { return "hyperscan"; }
    void scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) override;

  private:
    const CompiledRuleSet &rs_;
    hs_scratch_t *scratch_ = nullptr;
    std::vector<uint32_t> len_, offset_, depth_; // per rule, hot in the callback
    std::vector<uint64_t> seen_;                  // set-mode dedupe stamps per rule
    uint64_t stamp_ = 0;
};

} // namespace wm
