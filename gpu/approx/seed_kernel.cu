// gpu/approx/seed_kernel.cu - the seed study's GPU algorithm, faithfully:
// one block of m threads per segment of S + 2m bytes of Y; thread i owns DP
// row i and computes cell (i, k - i + 1) on anti-diagonal k; diagonals k-1
// and k-2 live in shared memory as 3 rotating rows of pad32(m + 1) words
// (consecutive threads touch consecutive words: conflict-free); one barrier
// per diagonal; the row-m thread keeps its segment's minimum, and the minimum
// over segments is one 64-bit atomicMin of (distance << 32 | end).
#include "gpu/approx/seed_kernels.h"

#include "gpu/approx/approx_hd.h"
#include "gpu/approx/approx_tuning.h"
#include "gpu/cuda_check.h"

namespace wm::approx {
namespace {

// Agent: one segment. Template-free on purpose: m is a run-time block size.
__device__ void seed_segment_agent(const uint8_t *__restrict__ d_x, uint32_t m,
                                   const uint8_t *__restrict__ d_seg, uint32_t len,
                                   uint64_t seg_lo, unsigned long long *d_best,
                                   uint32_t *s_rows, uint32_t pitch) {
    const uint32_t i = threadIdx.x + 1; // DP row
    for (uint32_t t = threadIdx.x; t < 3 * pitch; t += blockDim.x) s_rows[t] = 0;
    const uint8_t xc = d_x[i - 1];
    __syncthreads();

    uint32_t *cur = s_rows, *prev = s_rows + 2 * pitch, *prev2 = s_rows + pitch;
    // 32-bit indices (a segment is < 2^31 bytes): 64-bit loop arithmetic cost
    // ~10% of the inner loop. best starts above any real key (distance <= m).
    unsigned long long best = ~0ull;
    const int last_k = int(len) + int(m) - 1;
    const int ilen = int(len);
    // Row i starts on diagonal k = i (j = 1); load its first byte early.
    uint8_t yc = len ? __ldg(d_seg) : 0;
    for (int k = 1; k <= last_k; ++k) {
        const int j = k - int(i) + 1;
        if (j >= 1 && j <= ilen) {
            const uint32_t left = j == 1 ? i : prev[i];
            const uint32_t diag = j == 1 ? i - 1 : prev2[i - 1];
            const uint32_t v = seed_cell(left, prev[i - 1], diag, xc, yc);
            cur[i] = v;
            if (j < ilen) yc = __ldg(d_seg + j); // next column's byte
            if (i == m) {
                const unsigned long long key =
                    (static_cast<unsigned long long>(v) << 32) | (seg_lo + uint64_t(j));
                best = key < best ? key : best;
            }
        }
        __syncthreads(); // diagonal k complete before k+1 reads it
        uint32_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    if (i == m && best != ~0ull) atomicMin(d_best, best);
}

// Thin kernel: shared rows + one segment per block.
__global__ void seed_asm_kernel(const uint8_t *__restrict__ d_x, uint32_t m,
                                const uint8_t *__restrict__ d_y, uint64_t n, uint64_t stride,
                                unsigned long long *d_best) {
    extern __shared__ uint32_t s_rows[];
    const uint64_t lo = uint64_t{blockIdx.x} * stride;
    if (lo >= n) return;
    const uint64_t want_hi = lo + stride + 2ull * m;
    const uint64_t hi = want_hi < n ? want_hi : n;
    const uint32_t pitch = (m + 1 + 31) / 32 * 32;
    seed_segment_agent(d_x, m, d_y + lo, static_cast<uint32_t>(hi - lo), lo, d_best, s_rows, pitch);
}

} // namespace

size_t seed_smem_bytes(uint32_t m) { return size_t{3} * ((m + 1 + 31) / 32 * 32) * sizeof(uint32_t); }

void seed_asm_dispatch(const uint8_t *d_x, uint32_t m, const uint8_t *d_y, uint64_t n, uint32_t d,
                       unsigned long long *d_best, cudaStream_t stream, SeedSchedule schedule) {
    if (m == 0 || m > tuning::kSeedMaxM)
        throw wm::gpu::GpuError("seed ASM kernel: m must be in 1..1024, got " + std::to_string(m));
    if (d == 0) d = 1;
    const unsigned long long init = static_cast<unsigned long long>(m) << 32;
    WM_CUDA_CHECK(cudaMemcpyAsync(d_best, &init, sizeof init, cudaMemcpyHostToDevice, stream));
    const uint64_t stride = seed_segment_stride(n, m, d);
    if (schedule == SeedSchedule::Strips) return seed_strip_launch(d_x, m, d_y, n, stride, d, d_best, stream);
    seed_asm_kernel<<<d, m, seed_smem_bytes(m), stream>>>(d_x, m, d_y, n, stride, d_best);
    WM_CUDA_CHECK_LAUNCH("seed_asm_kernel");
}

AsmResult seed_asm_gpu_host(const uint8_t *x, uint32_t m, const uint8_t *y, uint64_t n, uint32_t d,
                            SeedSchedule schedule) {
    std::string why;
    if (!wm::gpu::gpu_usable(0, &why)) throw wm::gpu::GpuError("seed ASM on GPU unavailable: " + why);
    uint8_t *d_x = nullptr, *d_y = nullptr;
    unsigned long long *d_best = nullptr, h_best = 0;
    WM_CUDA_CHECK(cudaMalloc(&d_x, m));
    WM_CUDA_CHECK(cudaMalloc(&d_y, n ? n : 1));
    WM_CUDA_CHECK(cudaMalloc(&d_best, sizeof h_best));
    WM_CUDA_CHECK(cudaMemcpy(d_x, x, m, cudaMemcpyHostToDevice));
    if (n) WM_CUDA_CHECK(cudaMemcpy(d_y, y, n, cudaMemcpyHostToDevice));
    seed_asm_dispatch(d_x, m, d_y, n, d, d_best, nullptr, schedule);
    WM_CUDA_CHECK(cudaMemcpy(&h_best, d_best, sizeof h_best, cudaMemcpyDeviceToHost));
    WM_CUDA_CHECK(cudaFree(d_x));
    WM_CUDA_CHECK(cudaFree(d_y));
    WM_CUDA_CHECK(cudaFree(d_best));
    return AsmResult{static_cast<uint32_t>(h_best >> 32), h_best & 0xffffffffull};
}

} // namespace wm::approx
