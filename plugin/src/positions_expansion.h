// plugin/src/positions_expansion.h - the GPU engine's Positions matches
// turned into rule matches on the host, in parallel.
//
// Each device match (pattern, payload, end) becomes one match per rule of its
// pattern whose protocol/port scope fits the payload. With the ET Open
// prefilter set on real traffic that is ~0.34 matches per payload byte: done
// on one thread after the device (decode, expansion, then the scanner's scope
// filter and order check), it held the C API's positions path at 0.16 GB/s
// on an H200 host, below Hyperscan on 16 cores (0.58; run 144).
// Here a chunk's matches are cut into slices at (payload, end) boundaries;
// pool threads expand each slice into its own reused buffer, already in the
// canonical (payload, end, rule, start) order, while the calling thread hands
// the finished slices to the sink in order (in_order_handoff.h).
#pragma once

#include "engine.h"
#include "first_match.h"
#include "gpu/ac_scope.h"
#include "gpu/positions_chunk.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace wm {

namespace capture {
class WorkerPool;
}

// How a device pattern expands (GpuPatterns): pattern p's rules are
// rules[rule_begin[p], rule_begin[p + 1]) (ascending rule indices), the scope
// of the one at position i is scopes' entry `scopes.entry[i]`; len[p] is the
// pattern's length (a match's start is its end - len).
struct PatternRules {
    const uint32_t *rule_begin = nullptr;
    const uint32_t *rules = nullptr;
    const uint32_t *len = nullptr;
    gpu::ScopeView scopes{};
    bool constrained = false; // some rule has a protocol or ports
    uint32_t num_rules = 0;   // rule indices are below it (0: unknown); the same for every expand()
};

// The order of one (payload, end)'s matches: rule, then start.
inline bool by_rule_then_start(const Match &a, const Match &b) {
    return a.rule != b.rule ? a.rule < b.rule : a.start < b.start;
}

class PositionsExpander {
  public:
    // threads: 1, the calling thread expands and delivers each chunk in
    // turn; N > 1, N - 1 pool threads expand slices while the calling thread
    // delivers the finished ones in order (hand_over_in_order; the pool is
    // started on the first chunk big enough to split).
    explicit PositionsExpander(unsigned threads);
    ~PositionsExpander();

    // Receives the expansion's matches in order, a span at a time; false
    // stops the expansion (no further calls for this chunk).
    using Sink = std::function<bool(const Match *matches, size_t n)>;

    // Expands chunk c's matches by `rules`, keeping only rules whose scope
    // fits meta[payload] (every rule when meta is null), and hands them to
    // sink. A sorted chunk's matches come out in canonical order (payload,
    // end, rule, start); an unsorted one's are sorted here. Wanted::
    // FirstPerRule: each slice keeps only the first match of a (payload,
    // rule) within it, on its thread; a payload cut between slices or
    // chunks may still bring its rule again. Returns false when the sink
    // stopped it.
    bool expand(const gpu::PositionsChunk &c, const PatternRules &rules, const wm_payload_meta_t *meta,
                const Sink &sink, Wanted wanted = Wanted::EveryMatch);

  private:
    bool expand_unsorted(const gpu::PositionsChunk &c, const PatternRules &rules, const wm_payload_meta_t *meta,
                         const Sink &sink);

    unsigned threads_;
    std::unique_ptr<capture::WorkerPool> pool_;
    std::vector<uint32_t> slice_begin_;           // per slice, + 1: its device matches
    std::vector<std::vector<Match>> slice_buf_;   // per slice; sizes only grow (no zeroing per chunk)
    std::vector<size_t> slice_n_;                 // per slice: entries written
    std::vector<std::atomic<uint8_t>> ready_;     // per slice (hand_over_in_order)
    std::vector<FirstMatchPerRule> firsts_;       // per expanding thread (Wanted::FirstPerRule)
    std::vector<Match> unsorted_;                 // expand_unsorted()'s matches
};

} // namespace wm
