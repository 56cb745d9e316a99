// gpu/align/sw_emulate.h - CPU emulations of the two kernels' parallel
// structure, built from the same per-thread functions (sw_hd.h), so CI
// without a GPU checks the kernels' logic against the plain reference.
#pragma once

#include "gpu/align/align_types.h"
#include "gpu/align/sw_sections.h"

#include <cstdint>
#include <vector>

namespace wm::align {

// The production kernel: one warp of 32 lanes x `rows_per_lane` registers
// walks each section (pairs of sections in 16-bit lanes). colmax[j] is written
// for every owned column j; overflow[k] = 1 when section k came within
// max_score of the 16-bit limit (always 0 with lanes32). rows_per_lane is 8 or 32.
struct WavefrontEmulation {
    std::vector<int32_t> colmax;
    std::vector<uint8_t> overflow;
};
WavefrontEmulation emulate_wavefront(const uint8_t *query, size_t m, const uint8_t *db, size_t n,
                                     const std::vector<Section> &sections, const ScoreParams &p,
                                     bool lanes32, int rows_per_lane);

// The seed's row-parallel algorithm over the whole database: column maxima.
std::vector<int32_t> emulate_row_parallel(const uint8_t *query, size_t m, const uint8_t *db, size_t n,
                                          const ScoreParams &p);

// The traceback warp (sw_traceback_warp.cu) for one hit, with the same
// contract as reference_traceback: the DP restarts at win_begin, ends at
// end_col, and the alignment is walked back from the best row. m <= 1024.
Hit emulate_traceback(const uint8_t *query, size_t m, const uint8_t *db, uint64_t win_begin, uint64_t end_col,
                      const ScoreParams &p);

} // namespace wm::align
