// plugin/src/approx_start.h - where an approximate (Levenshtein) match
// starts. Hyperscan's edit-distance matching and the GPU's k-differences
// kernels report only end offsets; a rule's `offset` and the match's start
// (EVE `payload_offset`) need a start, which a short DP backwards from the
// end finds (host-only, CPU-tested against every substring).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wm {

// The start s of the closest alignment of `pattern` (m bytes, within k
// edits) to payload[s, end), among s >= min_start: fewest edits first, then
// the latest start (no payload byte taken that an edit could drop).
// nullopt when no s >= min_start is within k edits. nocase folds ASCII.
// Costs m x (m + k) cells.
std::optional<uint32_t> approx_match_start(const uint8_t *payload, uint32_t end, const std::string &pattern,
                                           bool nocase, uint32_t k, uint32_t min_start);

} // namespace wm
