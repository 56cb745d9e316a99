// gpu/ac_build_segments.cu - the segments of a whole-payload run, built on the
// device from the run's payload offsets: tiles per payload, an exclusive scan
// (cub::DeviceScan), then one Segment per payload (whole_payload_segment of
// ac_plan.h, shared with the host reference whole_run_segments). The host
// thus does no per-payload work for the common chunk: planning and copying
// 32-byte segments took 13.5 of the 18.5 ms a 256 MB batch cost (run 47).
#include "gpu/ac_kernels.h"
#include "gpu/ac_tuning.h"
#include "gpu/ac_walk.cuh"
#include "gpu/cuda_check.h"

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace wm::gpu {
namespace {

// Tiles of payload i of the run; 0 for i == n (the scan's last entry is the total).
struct TilesOf {
    const uint32_t *off;
    uint32_t n, tile_bytes;
    __host__ __device__ uint32_t operator()(uint32_t i) const {
        return i < n ? payload_tiles(off[i + 1] - off[i], tile_bytes) : 0u;
    }
};

using TilesIt = thrust::transform_iterator<TilesOf, thrust::counting_iterator<uint32_t>>;

__global__ void write_segments(const uint32_t *off, uint32_t n, uint32_t first_payload, const uint32_t *prefix,
                               Segment *segs, uint32_t *num_tiles, uint32_t *unit_index) {
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += gridDim.x * blockDim.x) {
        if (i == n) {
            *num_tiles = prefix[n];
            continue;
        }
        Segment s = whole_payload_segment(off, 0, i, prefix[i]);
        s.payload += first_payload;
        segs[i] = s;
        if (unit_index)
            unit_index_from_segment(i, prefix[i], prefix[i + 1], prefix[n], tuning::kBlockThreads, unit_index);
    }
}

} // namespace

size_t ac_unit_index_words(size_t num_tiles) { return num_tiles / tuning::kBlockThreads + 2; }

size_t ac_build_segments_temp_bytes(uint32_t max_payloads) {
    size_t bytes = 0;
    TilesIt it(thrust::counting_iterator<uint32_t>(0), TilesOf{nullptr, 0, 1});
    WM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, it, static_cast<uint32_t *>(nullptr),
                                                max_payloads + 1));
    return bytes;
}

void ac_build_segments(const uint32_t *d_off, uint32_t n, uint32_t first_payload, uint32_t tile_bytes,
                       uint32_t *d_prefix, Segment *d_segs, uint32_t *d_num_tiles, uint32_t *d_unit_index,
                       void *d_temp, size_t temp_bytes, cudaStream_t stream) {
    TilesIt it(thrust::counting_iterator<uint32_t>(0), TilesOf{d_off, n, tile_bytes});
    size_t bytes = temp_bytes; // CUB fails rather than overrun a short buffer
    WM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(d_temp, bytes, it, d_prefix, n + 1, stream));
    const uint32_t threads = 256, blocks = std::min<uint32_t>((n + threads) / threads, 4096);
    write_segments<<<blocks, threads, 0, stream>>>(d_off, n, first_payload, d_prefix, d_segs, d_num_tiles,
                                                   d_unit_index);
    WM_CUDA_CHECK_LAUNCH("write_segments");
}

} // namespace wm::gpu
