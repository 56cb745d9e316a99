// gpu/align/sw_kernels.h - internal dispatch layer of the Smith-Waterman
// kernels (host-callable, CUDA runtime types only). Each function picks the
// tuning, sizes the grid, launches on `stream` and checks the launch error.
// Device pointers carry the d_ prefix; all are caller-owned.
#pragma once

#include "gpu/align/align_types.h"
#include "gpu/align/sw_sections.h"

#include <cuda_runtime_api.h>
#include <cstdint>

namespace wm::align::dispatch {

// Device copy of the scores the kernels need (matrix: device pointer or null).
struct DeviceScores {
    int match, mismatch, gap_open, gap_extend, max_score;
    const int8_t *d_matrix; // 65536 entries or null
};

// Production kernel. d_query: padded query codes, 32 * rows_per_lane entries
// (pad_query). d_db: database bytes, indexed by Section coordinates minus
// db_base. Writes d_colmax[col - db_base] for every owned column. lanes32 ==
// false: sections are taken in pairs (count even) and d_overflow[k] = 1 flags
// a section to recompute in 32-bit lanes; lanes32 == true: d_list (count
// entries) selects the sections to run (null: all).
void wavefront(const uint16_t *d_query, int rows_per_lane, const uint8_t *d_db, uint64_t db_base,
               const Section *d_sections, uint32_t count, const uint32_t *d_list, bool lanes32,
               const DeviceScores &s, int32_t *d_colmax, uint8_t *d_overflow, cudaStream_t stream);

// Warps of the 16-bit production kernel resident per SM (occupancy API): the
// planner sizes sections to whole waves of this many warps per SM.
int wavefront_resident_warps_per_sm(int rows_per_lane);

// Seed row-parallel algorithm over d_db[0, n): column maxima into d_colmax.
// d_work: rowpar_workspace_bytes(n) bytes. phase_ms (optional, 3 entries) gets
// the time of the H~/F, scan and H passes (adds events; synchronizes).
size_t rowpar_workspace_bytes(uint64_t n);
void row_parallel(const uint8_t *d_query_bytes, uint32_t m, const uint8_t *d_db, uint64_t n,
                  const DeviceScores &s, int32_t *d_colmax, void *d_work, cudaStream_t stream,
                  float *phase_ms);

// Top-K columns of d_colmax[0, n) by (score desc, column asc), zero scores
// excluded, into host arrays (at most k); returns the count. Synchronizes.
struct TopKWorkspace;
TopKWorkspace *topk_create();
void topk_destroy(TopKWorkspace *);
uint32_t top_k(TopKWorkspace *ws, const int32_t *d_colmax, uint64_t n, uint32_t k, int32_t *scores,
               uint64_t *columns, cudaStream_t stream);

// Best column of every segment k, columns [d_offsets[k], d_offsets[k+1]) of
// d_colmax: the largest score, ties to the smallest column (-1 score when empty).
void segment_best(const int32_t *d_colmax, const uint32_t *d_offsets, uint32_t count, int32_t *d_score,
                  uint32_t *d_column, cudaStream_t stream);

// Traceback jobs: the DP restarts at d_db[win_begin] and ends at column end
// (inclusive). Results: score, end row (exclusive), start row and column
// (window-relative) and ops end-first (see traceback_walk).
struct TraceJob {
    uint64_t win_begin;
    uint32_t win_len; // columns, end = win_begin + win_len - 1
    uint32_t pad;
};
struct TraceResult {
    int32_t score;
    int32_t query_end;   // exclusive
    int32_t query_begin;
    int32_t db_begin;    // relative to win_begin
    int32_t n_ops;       // -1: ops buffer too small
    int32_t pad;
};
// Bytes of scratch for `jobs` jobs of window <= max_win and query length m.
// Queries up to tuning::kMaxQueryRows run one warp per hit
// (sw_traceback_warp.cu), longer ones one block per hit (sw_traceback.cu).
size_t traceback_workspace_bytes(uint32_t jobs, uint32_t max_win, uint32_t m);
void traceback(const uint8_t *d_query_bytes, uint32_t m, const uint8_t *d_db, const TraceJob *d_jobs,
               uint32_t jobs, uint32_t max_win, const DeviceScores &s, void *d_work, TraceResult *d_results,
               char *d_ops, uint32_t max_ops, cudaStream_t stream);
size_t traceback_warp_bytes(uint32_t jobs, uint32_t max_win, uint32_t m);
void traceback_warp(const uint8_t *d_query_bytes, uint32_t m, const uint8_t *d_db, const TraceJob *d_jobs,
                    uint32_t jobs, uint32_t max_win, const DeviceScores &s, void *d_work, TraceResult *d_results,
                    char *d_ops, uint32_t max_ops, cudaStream_t stream);

} // namespace wm::align::dispatch
