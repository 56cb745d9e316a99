// gpu/align/sw_topk.cu - the K best columns of the column-maxima array.
// Exact and deterministic: max -> histogram of (score >> shift) in kHistBins
// bins -> the lowest bin that still holds the K-th best -> stable select of
// the columns at or above that bin -> stable descending radix sort (ties keep
// column order) -> first K. Everything but the last small copy stays on the GPU.
#include "gpu/align/sw_kernels.h"
#include "gpu/align/sw_tuning.h"
#include "gpu/cuda_check.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <vector>

namespace wm::align {

struct dispatch::TopKWorkspace {
    void *d_buf = nullptr;
    size_t bytes = 0;
    ~TopKWorkspace() {
        if (d_buf) cudaFree(d_buf);
    }
    void *reserve(size_t b) {
        if (b > bytes) {
            if (d_buf) WM_CUDA_CHECK(cudaFree(d_buf));
            d_buf = nullptr;
            WM_CUDA_CHECK(cudaMalloc(&d_buf, b));
            bytes = b;
        }
        return d_buf;
    }
};

namespace {

__global__ void histogram_kernel(const int32_t *d_colmax, uint64_t n, int shift, uint32_t *d_bins) {
    __shared__ uint32_t bins[tuning::kHistBins];
    for (int b = threadIdx.x; b < tuning::kHistBins; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < n; j += (uint64_t)gridDim.x * blockDim.x) {
        const int v = d_colmax[j];
        if (v > 0) atomicAdd(&bins[min(v >> shift, tuning::kHistBins - 1)], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < tuning::kHistBins; b += blockDim.x)
        if (bins[b]) atomicAdd(&d_bins[b], bins[b]);
}

struct AtLeast {
    const int32_t *d_colmax;
    int32_t lo;
    __device__ bool operator()(uint64_t j) const { return d_colmax[j] >= lo; }
};

__global__ void gather_kernel(const int32_t *d_colmax, const uint64_t *d_idx, const uint64_t *d_count,
                              int32_t *d_keys) {
    const uint64_t n = *d_count;
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < n; j += (uint64_t)gridDim.x * blockDim.x)
        d_keys[j] = d_colmax[d_idx[j]];
}

size_t align256(size_t b) { return (b + 255) & ~size_t(255); }

} // namespace

namespace {
// One warp per segment: lane-strided scan, then a shuffle reduction that
// keeps the larger score and, on ties, the smaller column.
__global__ void segment_best_kernel(const int32_t *d_colmax, const uint32_t *d_offsets, uint32_t count,
                                    int32_t *d_score, uint32_t *d_column) {
    const uint32_t seg = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (seg >= count) return;
    const int lane = threadIdx.x & 31;
    int best = -1;
    uint32_t col = 0xFFFFFFFFu;
    for (uint32_t j = d_offsets[seg] + lane; j < d_offsets[seg + 1]; j += 32) {
        const int v = d_colmax[j];
        if (v > best) {
            best = v;
            col = j;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        const int ob = __shfl_down_sync(0xffffffffu, best, o);
        const uint32_t oc = __shfl_down_sync(0xffffffffu, col, o);
        if (ob > best || (ob == best && oc < col)) {
            best = ob;
            col = oc;
        }
    }
    if (lane == 0) {
        d_score[seg] = best;
        d_column[seg] = col;
    }
}
} // namespace

void dispatch::segment_best(const int32_t *d_colmax, const uint32_t *d_offsets, uint32_t count, int32_t *d_score,
                            uint32_t *d_column, cudaStream_t stream) {
    if (count == 0) return;
    constexpr int kWarps = 8;
    segment_best_kernel<<<(count + kWarps - 1) / kWarps, kWarps * 32, 0, stream>>>(d_colmax, d_offsets, count,
                                                                                   d_score, d_column);
    WM_CUDA_CHECK_LAUNCH("segment_best_kernel");
}

dispatch::TopKWorkspace *dispatch::topk_create() { return new TopKWorkspace(); }
void dispatch::topk_destroy(TopKWorkspace *ws) { delete ws; }

uint32_t dispatch::top_k(TopKWorkspace *ws, const int32_t *d_colmax, uint64_t n, uint32_t k, int32_t *scores,
                         uint64_t *columns, cudaStream_t stream) {
    if (n == 0 || k == 0) return 0;
    // Pass 1: the maximum sets the bin width.
    size_t red_bytes = 0;
    WM_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, red_bytes, d_colmax, (int32_t *)nullptr, (int64_t)n));
    char *base = (char *)ws->reserve(align256(red_bytes) + 256 + tuning::kHistBins * 4);
    int32_t *d_max = (int32_t *)(base + align256(red_bytes));
    uint32_t *d_bins = (uint32_t *)(base + align256(red_bytes) + 256);
    WM_CUDA_CHECK(cub::DeviceReduce::Max(base, red_bytes, d_colmax, d_max, (int64_t)n, stream));
    int32_t vmax = 0;
    WM_CUDA_CHECK(cudaMemcpyAsync(&vmax, d_max, 4, cudaMemcpyDeviceToHost, stream));
    WM_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (vmax <= 0) return 0;
    int shift = 0;
    while ((vmax >> shift) >= tuning::kHistBins) ++shift;
    // Pass 2: histogram, then the threshold bin on the host (kHistBins counts).
    WM_CUDA_CHECK(cudaMemsetAsync(d_bins, 0, tuning::kHistBins * 4, stream));
    const unsigned blocks = (unsigned)std::min<uint64_t>((n + tuning::kHistThreads - 1) / tuning::kHistThreads, 1024);
    histogram_kernel<<<blocks, tuning::kHistThreads, 0, stream>>>(d_colmax, n, shift, d_bins);
    WM_CUDA_CHECK_LAUNCH("histogram_kernel");
    std::vector<uint32_t> bins(tuning::kHistBins);
    WM_CUDA_CHECK(cudaMemcpyAsync(bins.data(), d_bins, tuning::kHistBins * 4, cudaMemcpyDeviceToHost, stream));
    WM_CUDA_CHECK(cudaStreamSynchronize(stream));
    uint64_t above = 0;
    int b = tuning::kHistBins - 1;
    for (; b > 0; --b) {
        if (above + bins[b] >= k) break;
        above += bins[b];
    }
    const int32_t lo = b == 0 ? 1 : (int32_t)b << shift;
    uint64_t want = above + bins[b];
    // Pass 3: stable select of columns >= lo, gather keys, stable descending sort.
    using Count = thrust::counting_iterator<uint64_t>;
    size_t sel_bytes = 0, sort_bytes = 0;
    WM_CUDA_CHECK(cub::DeviceSelect::If(nullptr, sel_bytes, Count(0), (uint64_t *)nullptr, (uint64_t *)nullptr,
                                        (int64_t)n, AtLeast{d_colmax, lo}));
    WM_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, sort_bytes, (int32_t *)nullptr,
                                                            (int32_t *)nullptr, (uint64_t *)nullptr,
                                                            (uint64_t *)nullptr, (int64_t)want));
    const size_t off_idx = align256(std::max(sel_bytes, sort_bytes)) + 256;
    const size_t off_idx2 = off_idx + align256(want * 8);
    const size_t off_keys = off_idx2 + align256(want * 8);
    const size_t off_keys2 = off_keys + align256(want * 4);
    base = (char *)ws->reserve(off_keys2 + align256(want * 4));
    uint64_t *d_count = (uint64_t *)(base + align256(std::max(sel_bytes, sort_bytes)));
    uint64_t *d_idx = (uint64_t *)(base + off_idx), *d_idx2 = (uint64_t *)(base + off_idx2);
    int32_t *d_keys = (int32_t *)(base + off_keys), *d_keys2 = (int32_t *)(base + off_keys2);
    WM_CUDA_CHECK(cub::DeviceSelect::If(base, sel_bytes, Count(0), d_idx, d_count, (int64_t)n,
                                        AtLeast{d_colmax, lo}, stream));
    gather_kernel<<<(unsigned)std::min<uint64_t>((want + 255) / 256, 4096), 256, 0, stream>>>(d_colmax, d_idx,
                                                                                             d_count, d_keys);
    WM_CUDA_CHECK_LAUNCH("gather_kernel");
    WM_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(base, sort_bytes, d_keys, d_keys2, d_idx, d_idx2,
                                                            (int64_t)want, 0, 32, stream));
    const uint32_t out = (uint32_t)std::min<uint64_t>(k, want);
    WM_CUDA_CHECK(cudaMemcpyAsync(scores, d_keys2, out * 4, cudaMemcpyDeviceToHost, stream));
    WM_CUDA_CHECK(cudaMemcpyAsync(columns, d_idx2, out * 8, cudaMemcpyDeviceToHost, stream));
    WM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return out;
}

} // namespace wm::align
