// gpu/ac_covered_steps.h - marks the covered steps of a group's 32-bit dense
// rows (kCovered32, ac_blob.h): steps whose target's outputs the step's
// source state already reported, so that the Set walk takes no hit there.
#pragma once

#include <cstdint>
#include <vector>

namespace wm::gpu {

// Sets kCovered32, and clears kOutPlain32, on every entry of rows[nd * C]
// (state p's row at p * C; every state of the group dense) whose target s is
// plain (kOutFlag32 and kOutPlain32) and whose outputs, kOutOneByte entries
// aside, are all outputs of p. (Not plain, a covered step leaves the Set
// walk's last plain target alone: set_reports_hit.) out_off, out_ids: the group's flattened output
// lists (state s: out_ids[out_off[s], out_off[s + 1]), flags included).
// Returns the entries flagged.
uint64_t mark_covered_steps(uint32_t *rows, uint32_t nd, uint32_t C, const std::vector<uint32_t> &out_off,
                            const std::vector<uint32_t> &out_ids);

} // namespace wm::gpu
