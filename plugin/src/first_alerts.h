// plugin/src/first_alerts.h - the alerts of a canonically ordered match
// stream, one per (payload, rule): replay's and the stream pipeline's (live
// capture's) delivery alike. The rule's id comes from the scanner's compact
// table (Scanner::rule_ids) and its kind from one built here, not from the
// rule records (hundreds of bytes each; 23,609 for ET Open). That was meant
// to save cache misses per alert; on the device hosts it measured no faster
// (run 190).
#pragma once

#include "compiled_ruleset.h"
#include "first_match.h"
#include "warpmatch.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace wm {

class FirstAlerts {
  public:
    // ids[i]: rule i's id (outlives this); positions: matches carry offsets
    // (has_offset on every alert).
    FirstAlerts(const std::vector<rules::Rule> &rules, const std::vector<uint32_t> &ids, bool positions)
        : first_(rules.size()), ids_(ids), positions_(positions) {
        if (std::any_of(rules.begin(), rules.end(), CompiledRuleSet::is_alignment))
            for (const auto &r : rules) align_.push_back(CompiledRuleSet::is_alignment(r) ? 1 : 0);
        alert_.struct_size = sizeof(alert_);
    }

    // A new batch: its payload 0 is not the last batch's payload 0.
    void new_batch() { first_.new_batch(); }

    // The alert of m, on `packet`, when m is its (payload, rule)'s first so
    // far, else null. Valid until the next call. An align rule's alert
    // carries its score and its aligned region.
    const wm_alert_t *first(const Match &m, const wm_packet_t *packet) {
        if (!first_.first(m)) return nullptr;
        alert_.packet = packet;
        alert_.rule_id = ids_[m.rule];
        alert_.has_score = !align_.empty() && align_[m.rule] ? 1 : 0;
        alert_.score = m.score;
        alert_.has_offset = positions_ || alert_.has_score ? 1 : 0;
        alert_.start = m.start;
        alert_.end = m.end;
        return &alert_;
    }

  private:
    FirstMatchPerRule first_;
    const std::vector<uint32_t> &ids_; // rule index -> id
    std::vector<uint8_t> align_;  // rule index -> align rule; empty when there are none
    bool positions_;
    wm_alert_t alert_{};
};

} // namespace wm
