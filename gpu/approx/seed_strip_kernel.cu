// gpu/approx/seed_strip_kernel.cu - our faster schedule of the seed's DP over
// the same segments (seed_asm.h): one warp per segment; lane t owns rows
// t*R+1 .. t*R+R in registers and at step s advances them to column
// j = s - t, taking c[t*R][j] from lane t-1's bottom row of step s-1 by a
// shuffle. No shared memory and no barrier: R cells per lane per step against
// the seed's one cell per thread per __syncthreads.
#include "gpu/approx/seed_kernels.h"

#include "gpu/approx/approx_hd.h"
#include "gpu/cuda_check.h"

namespace wm::approx {
namespace {

constexpr uint32_t kStripWarpsPerBlock = 4;

template <uint32_t R>
__global__ void __launch_bounds__(kStripWarpsPerBlock * 32)
seed_strip_kernel(const uint8_t *__restrict__ d_x, uint32_t m, const uint8_t *__restrict__ d_y,
                  uint64_t n, uint64_t stride, uint32_t segments, unsigned long long *d_best) {
    const uint32_t lane = threadIdx.x & 31u;
    const uint32_t seg = blockIdx.x * kStripWarpsPerBlock + (threadIdx.x >> 5);
    const uint64_t lo = uint64_t{seg} * stride;
    if (seg >= segments || lo >= n) return; // whole warps leave together
    const uint64_t want_hi = lo + stride + 2ull * m;
    const int len = int((want_hi < n ? want_hi : n) - lo);
    const uint8_t *__restrict__ y = d_y + lo;

    uint32_t col[R], xs[R];
#pragma unroll
    for (uint32_t r = 0; r < R; ++r) {
        const uint32_t row = lane * R + r + 1;
        col[r] = row; // column 0: c[i][0] = i
        xs[r] = row <= m ? __ldg(d_x + row - 1) : 0x100u;
    }
    const uint32_t out_lane = (m - 1) / R, out_r = (m - 1) % R;
    uint32_t top_prev = lane * R, bottom = col[R - 1];
    unsigned long long best = ~0ull;
    const int last_step = len + 31;
    for (int s = 1; s <= last_step; ++s) {
        const uint32_t from_above = __shfl_up_sync(0xffffffffu, bottom, 1);
        const int j = s - int(lane);
        if (j >= 1 && j <= len) {
            const uint32_t top = lane == 0 ? 0u : from_above;
            seed_strip_column<R>(col, xs, top_prev, top, __ldg(y + j - 1));
            top_prev = top;
            bottom = col[R - 1];
            if (lane == out_lane) {
                uint32_t v = bottom;
                if (out_r != R - 1) // m not a multiple of R: pick the row
#pragma unroll
                    for (uint32_t r = 0; r < R; ++r)
                        if (r == out_r) v = col[r];
                const unsigned long long key = (static_cast<unsigned long long>(v) << 32) | (lo + uint64_t(j));
                best = key < best ? key : best;
            }
        }
    }
    if (lane == out_lane && best != ~0ull) atomicMin(d_best, best);
}

template <uint32_t R>
void launch(const uint8_t *d_x, uint32_t m, const uint8_t *d_y, uint64_t n, uint64_t stride, uint32_t d,
            unsigned long long *d_best, cudaStream_t stream) {
    const uint32_t blocks = (d + kStripWarpsPerBlock - 1) / kStripWarpsPerBlock;
    seed_strip_kernel<R><<<blocks, kStripWarpsPerBlock * 32, 0, stream>>>(d_x, m, d_y, n, stride, d, d_best);
    WM_CUDA_CHECK_LAUNCH("seed_strip_kernel");
}

} // namespace

void seed_strip_launch(const uint8_t *d_x, uint32_t m, const uint8_t *d_y, uint64_t n, uint64_t stride,
                       uint32_t d, unsigned long long *d_best, cudaStream_t stream) {
    with_seed_strip_rows(m, [&](auto rows) { launch<decltype(rows)::value>(d_x, m, d_y, n, stride, d, d_best, stream); });
}

} // namespace wm::approx
