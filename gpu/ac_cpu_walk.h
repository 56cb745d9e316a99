// gpu/ac_cpu_walk.h - scans a batch on the CPU exactly as the kernels do (same
// chunk plan, tiles, run-out past the tile, ownership of matches by tile), through
// the shared ac_walk.cuh. Lets CI without a GPU test the device logic.
#pragma once

#include "gpu/ac_compile.h"
#include "gpu/ac_tuning.h"

#include <vector>

namespace wm::gpu {

struct CpuWalkOptions {
    uint32_t tile_bytes = tuning::kTileBytes;
    size_t max_chunk_bytes = 64u << 20;
    size_t chunk_capacity_bytes = 0; // ChunkPlanner's capacity_bytes (0: max_chunk_bytes)
    size_t max_chunk_payloads = 1u << 20;
    bool whole_runs = false; // plan as the GPU matcher does: whole-payload runs, segments from whole_run_segments()
    bool set_semantics = false; // walk as the Set kernel does: a repeated plain state reports nothing (set_reports_hit)
    uint64_t *steps = nullptr;  // if set, += the bytes the tiles' walks stepped (per group pair)
};

// Appends every (pattern, payload, end) of `batch` to `out` (Positions
// semantics); with opts.set_semantics some repeats of a (pattern, payload) are
// left out, never a distinct one.
void cpu_walk_scan(const AcBlob &blob, const BatchView &batch, std::vector<Match> &out,
                   const CpuWalkOptions &opts = {});

} // namespace wm::gpu
