// gpu/align/sw_wavefront.cu - production kernel: a warp walks a database section
// (two in 16-bit lanes) along anti-diagonals. Lane t holds R query rows in
// registers and works on column s - t at step s; H, F, the running column max
// and the database symbol move one lane down per step through shuffles.
#include "gpu/align/sw_hd.h"
#include "gpu/align/sw_kernels.h"
#include "gpu/align/sw_tuning.h"
#include "gpu/cuda_check.h"

#include <algorithm>

namespace wm::align {
namespace {

using namespace detail;

struct WavefrontArgs {
    const uint16_t *d_query;
    const uint8_t *d_db;
    uint64_t db_base;
    const Section *d_sections;
    uint32_t groups; // warps' worth of work
    const uint32_t *d_list;
    int32_t *d_colmax;
    uint8_t *d_overflow;
    int gap_open, gap_extend, limit;
};

// Agent: everything one warp does for one group of L::kWidth sections.
template <class L, int R, class Scorer>
__device__ void wavefront_agent(const WavefrontArgs &a, const Scorer &score, uint32_t group) {
    using T = typename L::T;
    constexpr int W = L::kWidth;
    const int lane = threadIdx.x & 31;
    Section sec[W];
#pragma unroll
    for (int k = 0; k < W; ++k) {
        const uint32_t idx = W == 2 ? 2 * group + k : (a.d_list ? a.d_list[group] : group);
        sec[k] = a.d_sections[idx];
    }
    uint64_t len = 0;
#pragma unroll
    for (int k = 0; k < W; ++k) len = max(len, sec[k].end - sec[k].begin);

    T h[R], e[R];
    uint32_t q[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const uint32_t c = a.d_query[lane * R + r];
        q[r] = W == 2 ? c * 0x10001u : c;
        h[r] = 0;
        e[r] = L::kNeg;
    }
    const T neg_ge = L::splat(-a.gap_extend), neg_gsge = L::splat(-a.gap_open - a.gap_extend);
    T diag = 0, out_h = 0, out_f = neg_gsge, out_cm = 0, seen = 0, obuf = 0;
    uint32_t out_d = 0, conveyor = 0;
    const uint64_t steps = len + 31;
    for (uint64_t s = 0; s < steps; ++s) {
        if ((s & 31) == 0) { // refill: lane l holds the symbols of column s + l
            const uint64_t c = s + lane;
            conveyor = 0;
#pragma unroll
            for (int k = 0; k < W; ++k) {
                const uint64_t col = sec[k].begin + c;
                conveyor |= (col < sec[k].end ? (uint32_t)a.d_db[col - a.db_base] : kDbPad) << (16 * k);
            }
        }
        T up_h = __shfl_up_sync(0xffffffffu, out_h, 1);
        T up_f = __shfl_up_sync(0xffffffffu, out_f, 1);
        T cm = __shfl_up_sync(0xffffffffu, out_cm, 1);
        uint32_t d = __shfl_up_sync(0xffffffffu, out_d, 1);
        if (lane == 0) {
            up_h = 0;
            up_f = neg_gsge; // F[0][c] = max(-inf, H[-1][c] - Gs) - Ge
            cm = 0;
            d = conveyor;
        }
        conveyor = __shfl_down_sync(0xffffffffu, conveyor, 1);
        wavefront_column<L, R>(h, e, q, d, up_h, up_f, diag, cm, neg_ge, neg_gsge, score);
        const long long c = (long long)s - lane;
        if (c < 0) { // before this lane's first column: stay on the zero boundary
            diag = 0;
#pragma unroll
            for (int r = 0; r < R; ++r) {
                h[r] = 0;
                e[r] = L::kNeg;
            }
        }
        out_h = up_h;
        out_f = up_f;
        out_cm = cm;
        out_d = d;
        // Lane 31 finished column s - 31: buffer 32 results, then store them coalesced.
        obuf = __shfl_down_sync(0xffffffffu, obuf, 1);
        if (lane == 31) {
            obuf = cm;
            if (s >= 31) seen = L::max2(seen, cm);
        }
        const long long done = (long long)s - 31; // column lane 31 just finished
        if (done >= 0 && ((done & 31) == 31 || (uint64_t)done + 1 == len)) {
            const long long filled = (done & 31) + 1;
            const long long col = done - 31 + lane; // lane l holds column done - 31 + l
            if (lane >= 32 - filled)
#pragma unroll
                for (int k = 0; k < W; ++k) {
                    const uint64_t g = sec[k].begin + (uint64_t)col;
                    if (g >= sec[k].own_begin && g < sec[k].end) a.d_colmax[g - a.db_base] = L::get(obuf, k);
                }
        }
    }
    if (W == 2 && lane == 31)
#pragma unroll
        for (int k = 0; k < W; ++k)
            if (L::get(seen, k) >= a.limit) a.d_overflow[2 * group + k] = 1;
}

template <class L, int R, bool MATRIX>
__global__ void __launch_bounds__(tuning::kWarpsPerBlock * 32)
    wavefront_kernel(WavefrontArgs a, int match, int mismatch, const int8_t *d_matrix) {
    const uint32_t group = blockIdx.x * tuning::kWarpsPerBlock + (threadIdx.x >> 5);
    if (group >= a.groups) return; // whole warps leave together
    if constexpr (MATRIX)
        wavefront_agent<L, R>(a, MatrixScorer<L>{d_matrix}, group);
    else
        wavefront_agent<L, R>(a, MatchScorer<L>::make(match, mismatch), group);
}

template <class L, int R>
void launch(const WavefrontArgs &a, const dispatch::DeviceScores &s, cudaStream_t stream) {
    const unsigned blocks = (a.groups + tuning::kWarpsPerBlock - 1) / tuning::kWarpsPerBlock;
    if (blocks == 0) return;
    if (s.d_matrix) {
        wavefront_kernel<L, R, true><<<blocks, tuning::kWarpsPerBlock * 32, 0, stream>>>(a, s.match, s.mismatch,
                                                                                          s.d_matrix);
    } else {
        wavefront_kernel<L, R, false><<<blocks, tuning::kWarpsPerBlock * 32, 0, stream>>>(a, s.match, s.mismatch,
                                                                                           nullptr);
    }
    WM_CUDA_CHECK_LAUNCH("wavefront_kernel");
}

} // namespace

int dispatch::wavefront_resident_warps_per_sm(int rows_per_lane) {
    int blocks = 0;
    if (rows_per_lane == tuning::kRowsSmall)
        WM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, wavefront_kernel<Lanes16x2, tuning::kRowsSmall, false>, tuning::kWarpsPerBlock * 32, 0));
    else
        WM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, wavefront_kernel<Lanes16x2, tuning::kRowsLarge, false>, tuning::kWarpsPerBlock * 32, 0));
    return std::max(1, blocks) * tuning::kWarpsPerBlock;
}

void dispatch::wavefront(const uint16_t *d_query, int rows_per_lane, const uint8_t *d_db, uint64_t db_base,
                         const Section *d_sections, uint32_t count, const uint32_t *d_list, bool lanes32,
                         const DeviceScores &s, int32_t *d_colmax, uint8_t *d_overflow, cudaStream_t stream) {
    WavefrontArgs a{d_query, d_db, db_base, d_sections, lanes32 ? count : count / 2, d_list, d_colmax, d_overflow,
                    s.gap_open, s.gap_extend, 32767 - s.max_score};
    if (rows_per_lane == tuning::kRowsSmall) {
        if (lanes32) launch<Lanes32, tuning::kRowsSmall>(a, s, stream);
        else launch<Lanes16x2, tuning::kRowsSmall>(a, s, stream);
    } else {
        if (lanes32) launch<Lanes32, tuning::kRowsLarge>(a, s, stream);
        else launch<Lanes16x2, tuning::kRowsLarge>(a, s, stream);
    }
}

} // namespace wm::align
