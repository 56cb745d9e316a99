// EVE-style JSON (Suricata's field names) for alerts and replay stats.
#pragma once

#include "compiled_ruleset.h"
#include "warpmatch.h"

#include <fmt/format.h>

#include <string>

namespace wm {

// flags: wm_eve_flags (the optional payload fields).
std::string alert_to_eve_json(const CompiledRuleSet &rs, const wm_alert_t &a, unsigned flags = 0);
// The same line appended to b (no allocation once b has grown).
void append_alert_eve_json(const CompiledRuleSet &rs, const wm_alert_t &a, fmt::memory_buffer &b,
                           unsigned flags = 0);
std::string replay_stats_to_json(const wm_replay_stats_t &st);
// "2024-04-21T10:00:00.123456+0000", UTC.
std::string eve_timestamp(int64_t sec, int64_t usec);

} // namespace wm
