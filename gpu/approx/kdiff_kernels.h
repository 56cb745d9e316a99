// gpu/approx/kdiff_kernels.h - dispatch layer of the k-differences kernels
// (CUDA translation units and benchmarks only; the host entry is
// approx_matcher.h). Sizes the grid per group kind, launches, checks the launch.
#pragma once

#include "gpu/approx/kdiff.h"
#include "gpu/approx/prefilter.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace wm::approx {

// Work item of the direct route: the ends of payload `payload` in
// (lo, min(lo + kChunkBytes, len)] for every group of a kind.
struct WorkItem {
    uint32_t payload;
    uint32_t lo;
};

// The blob's device copy (uploaded once).
struct KdiffDevice {
    const GroupDesc *d_groups = nullptr;
    const LaneDesc *d_lanes = nullptr;
    const uint64_t *d_peq = nullptr;
    const uint32_t *d_group_of = nullptr;
    const uint32_t *d_lane_of = nullptr;
};

// Output: records [0, capacity) of d_out; *d_count counts every match found,
// also those past capacity (the caller grows and rescans).
struct KdiffOutput {
    ApproxMatch *d_out;
    uint32_t *d_count;
    uint32_t capacity;
};

// Groups of one kind are contiguous in the blob (compile order).
struct KindRange {
    GroupDesc proto; // metric, words, kmax of the kind
    uint32_t first, count;
};
std::vector<KindRange> kind_ranges(const KdiffBlob &blob);

// Host-built work list: chunks of tuning::kChunkBytes of every non-empty payload.
void build_work(const uint32_t *offsets, uint32_t count, std::vector<WorkItem> &work);

// Direct route: one launch per kind. d_text/d_offsets: [in] the batch on the
// device; d_work: [in] n_work items. sm_count sizes the persistent grid.
void kdiff_scan_dispatch(const KdiffBlob &blob, const KdiffDevice &dev, const uint8_t *d_text,
                         const uint32_t *d_offsets, const WorkItem *d_work, uint32_t n_work,
                         const KdiffOutput &out, int sm_count, cudaStream_t stream);

// Prefilter route verification: d_windows [in] sorted by kind (kind_of_window
// ranges given by `per_kind` counts, in kind_ranges order), one thread each.
void kdiff_verify_dispatch(const KdiffBlob &blob, const KdiffDevice &dev, const uint8_t *d_text,
                           const uint32_t *d_offsets, const Window *d_windows,
                           const std::vector<uint32_t> &per_kind, const KdiffOutput &out,
                           cudaStream_t stream);

} // namespace wm::approx
