// gpu/align/sw_rowparallel.cu - the seed's row-parallel algorithm (Khajeh-Saeed
// & Perot): for each query row, pass 1 computes F and H~ from the previous row,
// pass 2 the exclusive max-scan for E~ (CUB), pass 3 H and the column maxima.
// Every pass is coalesced and parallel across the whole database row.
#include "gpu/align/sw_hd.h"
#include "gpu/align/sw_kernels.h"
#include "gpu/align/sw_tuning.h"
#include "gpu/cuda_check.h"

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace wm::align {
namespace {

using namespace detail;
constexpr int kNeg = -(1 << 29);

struct MaxOp {
    __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

__device__ int score_of(const dispatch::DeviceScores &s, uint8_t q, uint8_t d) {
    return s.d_matrix ? s.d_matrix[q * 256 + d] : (q == d ? s.match : s.mismatch);
}

// Pass 1: F[j] and H~[j] from row i-1; A[j] = H~[j] + j*Ge for the scan.
__global__ void rowpar_htilde_kernel(uint8_t qi, const uint8_t *d_db, uint64_t n, dispatch::DeviceScores s,
                                     const int32_t *d_hprev, int32_t *d_f, int32_t *d_ht, int32_t *d_a) {
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < n; j += (uint64_t)gridDim.x * blockDim.x) {
        const int f = rowpar_f(d_f[j], d_hprev[j], s.gap_open, s.gap_extend);
        const int ht = rowpar_htilde(j ? d_hprev[j - 1] : 0, score_of(s, qi, d_db[j]), f);
        d_f[j] = f;
        d_ht[j] = ht;
        d_a[j] = ht + (int32_t)j * s.gap_extend;
    }
}

// Pass 3: H = max(H~, E~ - Gs), E~[j] = scan[j] - j*Ge; column maxima.
__global__ void rowpar_h_kernel(uint64_t n, int gs, int ge, const int32_t *d_ht, const int32_t *d_scan,
                                int32_t *d_h, int32_t *d_colmax) {
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < n; j += (uint64_t)gridDim.x * blockDim.x) {
        const int h = rowpar_h(d_ht[j], d_scan[j] - (int32_t)j * ge, gs);
        d_h[j] = h;
        d_colmax[j] = max(d_colmax[j], h);
    }
}

__global__ void fill_kernel(int32_t *d, uint64_t n, int32_t v) {
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < n; j += (uint64_t)gridDim.x * blockDim.x)
        d[j] = v;
}

size_t scan_bytes(uint64_t n) {
    size_t bytes = 0;
    WM_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, bytes, (const int32_t *)nullptr, (int32_t *)nullptr,
                                                 MaxOp{}, kNeg, (int64_t)n));
    return (bytes + 255) & ~size_t(255);
}

} // namespace

size_t dispatch::rowpar_workspace_bytes(uint64_t n) { return 6 * ((n * 4 + 255) & ~uint64_t(255)) + scan_bytes(n); }

void dispatch::row_parallel(const uint8_t *d_query_bytes, uint32_t m, const uint8_t *d_db, uint64_t n,
                            const DeviceScores &s, int32_t *d_colmax, void *d_work, cudaStream_t stream,
                            float *phase_ms) {
    if (n == 0) return;
    if ((double)n * s.gap_extend + 4.0 * m * 128 > 1.0e9)
        throw std::invalid_argument("row-parallel kernel: database length * gap_extend must stay below 1e9");
    const uint64_t stride = (n * 4 + 255) & ~uint64_t(255);
    char *w = static_cast<char *>(d_work);
    int32_t *d_h0 = (int32_t *)w, *d_h1 = (int32_t *)(w + stride), *d_f = (int32_t *)(w + 2 * stride);
    int32_t *d_ht = (int32_t *)(w + 3 * stride), *d_a = (int32_t *)(w + 4 * stride), *d_scan = (int32_t *)(w + 5 * stride);
    void *d_tmp = w + 6 * stride;
    size_t tmp_bytes = scan_bytes(n);
    const int threads = tuning::kRowThreads;
    const unsigned blocks = (unsigned)std::min<uint64_t>((n + threads - 1) / threads, 65535u * 4);
    fill_kernel<<<blocks, threads, 0, stream>>>(d_h0, n, 0);
    WM_CUDA_CHECK_LAUNCH("fill_kernel");
    fill_kernel<<<blocks, threads, 0, stream>>>(d_f, n, kNeg);
    WM_CUDA_CHECK_LAUNCH("fill_kernel");
    fill_kernel<<<blocks, threads, 0, stream>>>(d_colmax, n, 0);
    WM_CUDA_CHECK_LAUNCH("fill_kernel");
    std::vector<uint8_t> q(m);
    WM_CUDA_CHECK(cudaMemcpyAsync(q.data(), d_query_bytes, m, cudaMemcpyDeviceToHost, stream));
    WM_CUDA_CHECK(cudaStreamSynchronize(stream));
    cudaEvent_t ev[4] = {};
    if (phase_ms) {
        for (auto &e : ev) WM_CUDA_CHECK(cudaEventCreate(&e));
        for (int k = 0; k < 3; ++k) phase_ms[k] = 0;
    }
    for (uint32_t i = 0; i < m; ++i) {
        // Sampled phase timing: every 16th row, scaled up (events on every row would serialize launches).
        const bool timed = phase_ms && (i % 16 == 0);
        if (timed) WM_CUDA_CHECK(cudaEventRecord(ev[0], stream));
        rowpar_htilde_kernel<<<blocks, threads, 0, stream>>>(q[i], d_db, n, s, d_h0, d_f, d_ht, d_a);
        WM_CUDA_CHECK_LAUNCH("rowpar_htilde_kernel");
        if (timed) WM_CUDA_CHECK(cudaEventRecord(ev[1], stream));
        WM_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(d_tmp, tmp_bytes, d_a, d_scan, MaxOp{}, kNeg, (int64_t)n, stream));
        if (timed) WM_CUDA_CHECK(cudaEventRecord(ev[2], stream));
        rowpar_h_kernel<<<blocks, threads, 0, stream>>>(n, s.gap_open, s.gap_extend, d_ht, d_scan, d_h1, d_colmax);
        WM_CUDA_CHECK_LAUNCH("rowpar_h_kernel");
        if (timed) {
            WM_CUDA_CHECK(cudaEventRecord(ev[3], stream));
            WM_CUDA_CHECK(cudaEventSynchronize(ev[3]));
            for (int k = 0; k < 3; ++k) {
                float ms = 0;
                WM_CUDA_CHECK(cudaEventElapsedTime(&ms, ev[k], ev[k + 1]));
                phase_ms[k] += 16 * ms;
            }
        }
        std::swap(d_h0, d_h1);
    }
    if (phase_ms)
        for (auto &e : ev) WM_CUDA_CHECK(cudaEventDestroy(e));
}

} // namespace wm::align
