// gpu/align/sw_reference.h - plain CPU Smith-Waterman (Gotoh) reference: the
// oracle for every kernel. Uses the same cell function and traceback walk as
// the GPU (sw_hd.h) but none of their parallel structure.
#pragma once

#include "gpu/align/align_types.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wm::align {

// Full matrices, row-major [i * n + j], for small problems.
struct FullDp {
    size_t m = 0, n = 0;
    std::vector<int32_t> h, e, f;
    std::vector<uint8_t> dir; // sw_hd.h direction bytes
};
FullDp reference_full_dp(const uint8_t *query, size_t m, const uint8_t *db, size_t n, const ScoreParams &p);

// colmax[j] = max_i H[i][j]; O(n) memory.
std::vector<int32_t> reference_column_maxima(const uint8_t *query, size_t m, const uint8_t *db, size_t n,
                                             const ScoreParams &p);

// The K best columns by (score desc, column asc), one entry per column,
// columns scoring 0 excluded. Fills score and db_end (= column + 1).
std::vector<Hit> reference_top_k(const std::vector<int32_t> &colmax, size_t k);

// Traceback of the best alignment ending in database column end_col: the DP
// restarts at column win_begin (zeros), the end row is the smallest row with
// the window's column maximum. Fills every field of Hit (db coordinates are
// absolute). score 0 -> empty alignment.
Hit reference_traceback(const uint8_t *query, size_t m, const uint8_t *db, uint64_t win_begin,
                        uint64_t end_col, const ScoreParams &p);

// One query against a database: top-K columns, each traced back over a window
// of exact_overlap() columns.
std::vector<Hit> reference_search(const uint8_t *query, size_t m, const uint8_t *db, size_t n,
                                  const ScoreParams &p, size_t k);

} // namespace wm::align
