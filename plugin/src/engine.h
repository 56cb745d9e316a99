// The one interface every matching engine implements (Hyperscan on the CPU,
// Aho-Corasick on the GPU, the naive reference), so the scanner, the
// cross-check and the benchmark drive them all the same way.
#pragma once

#include "warpmatch.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wm {

// A batch of payloads stored back to back (see wm_batch_t), or left in
// place: a replay window's file bytes, payload i at data + sources[i]
// (ascending, not overlapping), offsets then saying where it would lie
// packed (its length, and its bytes' place in the scan). Engines that read
// `data` whole take packed_view() of an in-place batch.
struct BatchView {
    const uint8_t *data = nullptr;
    const uint32_t *offsets = nullptr; // count + 1 entries
    size_t count = 0;
    const wm_payload_meta_t *meta = nullptr; // may be null
    const uint32_t *sources = nullptr;       // null: packed (data + offsets[i])
    uint32_t payload_len(size_t i) const { return offsets[i + 1] - offsets[i]; }
    const uint8_t *payload(size_t i) const { return data + (sources ? sources[i] : offsets[i]); }
};

// The batch packed: itself, or (in place) a copy of its payloads in buf at
// their offsets.
BatchView packed_view(const BatchView &batch, std::vector<uint8_t> &buf);

// One match: rule index (into CompiledRuleSet::rules()), payload index and
// [start, end) in the payload. In set mode start == end == 0, except for
// align rules, whose [start, end) is always the aligned region (one match
// per payload and rule in both modes). score is the alignment score of an
// align rule's match, 0 for every other rule. Last so that the 4-value
// aggregate initializers of the literal engines stay valid.
struct Match {
    uint32_t rule;
    uint32_t payload;
    uint32_t start;
    uint32_t end;
    int32_t score = 0;
    bool operator==(const Match &o) const {
        return rule == o.rule && payload == o.payload && start == o.start && end == o.end &&
               score == o.score;
    }
};

// Which positions matches a consumer needs. FirstPerRule: only each
// (payload, rule)'s first match in canonical order (replay's one alert per
// packet and rule). An engine may then leave out any other match early, on
// its own threads (with the ET set on real traffic over 90% of the matches
// are repeats); the consumer still drops the repeats that do come
// (FirstMatchPerRule), e.g. of a payload split across two slices.
enum class Wanted { EveryMatch, FirstPerRule };

// Canonical order: payload, end, rule.
void sort_matches(std::vector<Match> &m);
// Positions -> set: one entry per (payload, rule), start = end = 0.
void to_set(std::vector<Match> &m);

class Engine {
  public:
    virtual ~Engine() = default;
    virtual const char *name() const = 0;
    // Appends every match honouring pattern, nocase, offset and depth (not
    // protocol/ports: the scanner applies those for all engines alike).
    virtual void scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) = 0;
};

} // namespace wm
