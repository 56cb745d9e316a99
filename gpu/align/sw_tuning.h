// gpu/align/sw_tuning.h - every tuning constant of the Smith-Waterman kernels.
#pragma once

namespace wm::align::tuning {

// Production (wavefront) kernel: one warp walks one pair of database sections
// (16-bit lanes) or one section (32-bit lanes); each thread holds kRows query
// rows in registers, so a warp covers 32 * kRows query rows in one pass.
constexpr int kWarpsPerBlock = 4;
constexpr int kRowsSmall = 8;   // queries up to 256 rows
constexpr int kRowsLarge = 32;  // queries up to 1024 rows (the seed's query)
constexpr int kMaxQueryRows = 32 * kRowsLarge;
// The planner aims for one full wave of resident warps (occupancy API, two
// sections per warp); the shortest owned section is this multiple of the
// overlap (bounds recomputation to 1 / kMinOwnPerOverlap of the cells).
constexpr int kMinOwnPerOverlap = 4;

// Row-parallel (seed) kernels: threads per block of the per-row passes.
constexpr int kRowThreads = 256;

// Top-K selection: histogram bins and threads.
constexpr int kHistBins = 4096;
constexpr int kHistThreads = 256;

// Traceback of queries past kMaxQueryRows: threads per block (one block per
// hit; each row of the window is scanned in chunks of this many columns).
constexpr int kTraceThreads = 1024;

// Payload traceback (PayloadAligner): the direction bytes of one launch's
// jobs stay under this budget; more jobs take more launches (one payload's
// window is never split: a window alone may exceed it).
constexpr unsigned long long kTraceWorkspaceBudget = 512ull << 20;

} // namespace wm::align::tuning
