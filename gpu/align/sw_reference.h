// gpu/align/sw_reference.h - plain CPU Smith-Waterman (Gotoh) reference: the
// oracle for every kernel. Uses the same cell function and traceback walk as
// the GPU (sw_hd.h) but none of their parallel structure.
#pragma once

#include "gpu/align/align_types.h"
#include "gpu/align/sw_hd.h"

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

// The Hit of a window [win_begin, end_col] whose end column has its best
// score `best` first in row best_row: walks dir(i, j) back (traceback_walk).
template <class DirAt>
Hit hit_from_directions(const DirAt &dir, int best, size_t best_row, size_t m, uint64_t win_begin, uint64_t end_col) {
    Hit hit;
    hit.score = best;
    hit.db_end = end_col + 1;
    if (best == 0) {
        hit.db_begin = hit.db_end;
        return hit;
    }
    const size_t w = end_col - win_begin + 1;
    std::vector<char> ops(m + w + 2);
    int si = 0, sj = 0;
    const int n = detail::traceback_walk(dir, (int)best_row, (int)w - 1, ops.data(), (int)ops.size(), &si, &sj);
    hit.query_begin = si;
    hit.query_end = (uint32_t)best_row + 1;
    hit.db_begin = win_begin + sj;
    hit.cigar = cigar_from_reversed_ops(ops.data(), n);
    return hit;
}

// One query against a database: top-K columns, each traced back over a window
// of exact_overlap() columns.
std::vector<Hit> reference_search(const uint8_t *query, size_t m, const uint8_t *db, size_t n,
                                  const ScoreParams &p, size_t k);

} // namespace wm::align
