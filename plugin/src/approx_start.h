// plugin/src/approx_start.h - where approximate (Levenshtein) matches start.
// Hyperscan's edit-distance matching and the GPU's k-differences kernels
// report only end offsets; a rule's `offset` and a match's start (EVE
// `payload_offset`) need a start. One forward DP over the payload that
// carries each cell's start gives every end's at once (host-only,
// CPU-tested against every substring).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wm {

constexpr uint32_t kNoApproxStart = UINT32_MAX;

// For every end j in [0, n], starts[j] is the start s of the closest
// alignment of `pattern` to payload[s, j) among s >= min_start: fewest edits
// (at most k), then the latest start (no payload byte taken that an edit
// could drop); kNoApproxStart where none is within k. nocase folds ASCII.
// m x (n - min_start) cells: once per (pattern, payload) with a reported end,
// not once per end (a run of matches ends at every byte).
std::vector<uint32_t> approx_match_starts(const uint8_t *payload, uint32_t n, const std::string &pattern,
                                          bool nocase, uint32_t k, uint32_t min_start);

} // namespace wm
