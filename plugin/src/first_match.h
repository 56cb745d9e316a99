// plugin/src/first_match.h - one alert per (payload, rule): which matches
// of a canonically ordered stream (payload, end, rule, start) are the first
// of their rule in their payload. The stream may come in spans (the GPU
// positions path delivers a batch chunk by chunk), so the state lasts until
// the next batch. A stamp per rule, not a set of the payload's rules: the ET
// set on real traffic matches ~0.3 times per payload byte, and a hash set per
// match had been the replay thread's main cost in positions mode.
#pragma once

#include "engine.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace wm {

class FirstMatchPerRule {
  public:
    // start_stamp: the stamp before the first payload's (tests start near the wrap).
    explicit FirstMatchPerRule(size_t num_rules, uint32_t start_stamp = 0)
        : stamp_(num_rules, 0), current_(start_stamp) {}

    // A new batch: its payload 0 is not the last batch's payload 0.
    void new_batch() { have_payload_ = false; }

    // Whether m is the first match of its rule in its payload so far; m
    // follows the previous call's match in canonical order within a batch.
    bool first(const Match &m) {
        if (!have_payload_ || m.payload != payload_) {
            have_payload_ = true;
            payload_ = m.payload;
            if (++current_ == 0) { // wrapped: no stamp may equal a later payload's
                std::fill(stamp_.begin(), stamp_.end(), 0u);
                current_ = 1;
            }
        }
        if (stamp_[m.rule] == current_) return false;
        stamp_[m.rule] = current_;
        return true;
    }

  private:
    std::vector<uint32_t> stamp_; // stamp_[rule] == current_: the rule matched this payload
    uint32_t current_ = 0;
    uint32_t payload_ = 0;
    bool have_payload_ = false;
};

} // namespace wm
