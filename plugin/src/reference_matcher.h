// The obviously-correct matcher: every exact rule at every position, byte by
// byte (approximate rules are left to their own DP reference).
// Tests use it as the second opinion against Hyperscan and the GPU.
#pragma once

#include "compiled_ruleset.h"
#include "engine.h"

namespace wm {

class ReferenceMatcher final : public Engine {
  public:
    explicit ReferenceMatcher(const std::vector<rules::Rule> &rules) : rules_(rules) {}
    const char *name() const override { return "reference"; }
    void scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) override;

  private:
    const std::vector<rules::Rule> &rules_;
};

} // namespace wm
