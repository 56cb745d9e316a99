// gpu/align/sw_traceback_warp.cu - traceback of one hit per block of 1 or 4
// warps (trace_lanes), for queries up to tuning::kMaxQueryRows rows. Lane t
// holds R = trace_rows_per_lane(m) query rows in registers and at step s
// advances them to window column j = s - t, taking H and F of the row above
// from lane t-1's last row of step s-1 (a shuffle; between warps, shared
// memory and one barrier per step): the production kernel's schedule in plain
// ints. Each lane stores its R direction bytes per column contiguously
// (WarpDirs); the block picks the end row and thread 0 walks back
// (traceback_walk, shared with the CPU). The block-per-row-scan kernel it
// replaces needed a BlockScan per 1024-column chunk of every row.
#include "gpu/align/sw_hd.h"
#include "gpu/align/sw_kernels.h"
#include "gpu/align/sw_tuning.h"
#include "gpu/cuda_check.h"

namespace wm::align::dispatch {
namespace {

using namespace detail;
constexpr int kNeg = -(1 << 29);

struct PlainScore {
    int match, mismatch;
    const int8_t *matrix;
    __device__ int operator()(uint32_t q, uint32_t d) const {
        if (matrix) return MatrixScorer<Lanes32>::one(matrix, q, d);
        return q == d ? match : mismatch;
    }
};

template <int R> __device__ __forceinline__ void store_dirs(uint8_t *p, const uint8_t (&dirs)[R]) {
    if constexpr (R % 4 == 0) {
        uint32_t w[R / 4];
#pragma unroll
        for (int k = 0; k < R / 4; ++k)
            w[k] = dirs[4 * k] | (uint32_t)dirs[4 * k + 1] << 8 | (uint32_t)dirs[4 * k + 2] << 16 |
                   (uint32_t)dirs[4 * k + 3] << 24;
        if constexpr (R % 16 == 0) {
#pragma unroll
            for (int k = 0; k < R / 16; ++k)
                reinterpret_cast<uint4 *>(p)[k] = make_uint4(w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]);
        } else if constexpr (R == 8) {
            *reinterpret_cast<uint2 *>(p) = make_uint2(w[0], w[1]);
        } else {
            *reinterpret_cast<uint32_t *>(p) = w[0];
        }
    } else {
#pragma unroll
        for (int r = 0; r < R; ++r) p[r] = dirs[r];
    }
}

// One hit per block of TW warps (32 * TW lanes of R rows each).
template <int TW, int R>
__global__ void __launch_bounds__(TW * 32)
    traceback_warp_kernel(const uint8_t *__restrict__ d_q, uint32_t m, const uint8_t *__restrict__ d_db,
                          const TraceJob *__restrict__ d_jobs, uint32_t max_win, DeviceScores s, uint8_t *d_dirs,
                          TraceResult *d_res, char *d_ops, uint32_t max_ops) {
    constexpr int kLanes = TW * 32;
    // Last lane of each warp -> first lane of the next, by step parity.
    __shared__ int s_bot_h[2][TW], s_bot_f[2][TW];
    __shared__ unsigned long long s_key[TW];
    const int g = (int)threadIdx.x, lane = g & 31, warp = g >> 5;
    const TraceJob job = d_jobs[blockIdx.x];
    const int w = (int)job.win_len;
    const uint8_t *__restrict__ db = d_db + job.win_begin;
    uint8_t *dirs_base = d_dirs + (size_t)blockIdx.x * max_win * kLanes * R;
    const PlainScore score{s.match, s.mismatch, s.d_matrix};
    uint32_t q[R];
    int h[R], e[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const uint32_t row = (uint32_t)(g * R + r);
        q[r] = row < m ? d_q[row] : kQueryPad;
        h[r] = 0;    // the zero column left of the window
        e[r] = kNeg;
    }
    int diag = 0, bot_h = 0, bot_f = kNeg, best = 0, best_row = 0;
    for (int st = 0; st < w + kLanes - 1; ++st) {
        int from_h = __shfl_up_sync(0xffffffffu, bot_h, 1);
        int from_f = __shfl_up_sync(0xffffffffu, bot_f, 1);
        if (TW > 1 && lane == 0 && warp > 0) { // written at step st - 1, then the barrier
            from_h = s_bot_h[(st + 1) & 1][warp - 1];
            from_f = s_bot_f[(st + 1) & 1][warp - 1];
        }
        const int j = st - g;
        if (j >= 0 && j < w) {
            int up_h = g ? from_h : 0, up_f = g ? from_f : kNeg; // row -1: zeros, no F
            uint8_t dirs[R];
            trace_column<R>(h, e, q, db[j], up_h, up_f, diag, dirs, s.gap_open, s.gap_extend, score);
            bot_h = up_h;
            bot_f = up_f;
            store_dirs<R>(dirs_base + ((size_t)j * kLanes + g) * R, dirs);
            if (j == w - 1) // end column: the best row, first row on ties
#pragma unroll
                for (int r = 0; r < R; ++r)
                    if ((uint32_t)(g * R + r) < m && h[r] > best) {
                        best = h[r];
                        best_row = g * R + r;
                    }
        }
        if constexpr (TW > 1) {
            if (lane == 31) {
                s_bot_h[st & 1][warp] = bot_h;
                s_bot_f[st & 1][warp] = bot_f;
            }
            __syncthreads();
        }
    }
    // Highest score, then lowest row: lanes hold increasing rows.
    unsigned long long key = (unsigned long long)(uint32_t)best << 32 | (uint32_t)(~best_row);
#pragma unroll
    for (int o = 16; o; o >>= 1) {
        const unsigned long long other = __shfl_xor_sync(0xffffffffu, key, o);
        key = other > key ? other : key;
    }
    if (lane == 0) s_key[warp] = key;
    __syncthreads(); // also makes every lane's direction bytes visible to thread 0
    if (g != 0) return;
#pragma unroll
    for (int k = 1; k < TW; ++k) key = s_key[k] > key ? s_key[k] : key;
    best = (int)(key >> 32);
    best_row = (int)~(uint32_t)key;
    TraceResult r{};
    r.score = best;
    r.query_end = best_row + 1;
    if (best > 0) {
        int si = 0, sj = 0;
        r.n_ops = traceback_walk(WarpDirs{dirs_base, kLanes, R}, best_row, w - 1,
                                 d_ops + (size_t)blockIdx.x * max_ops, (int)max_ops, &si, &sj);
        r.query_begin = si;
        r.db_begin = sj;
    } else {
        r.query_end = 0;
        r.db_begin = w;
    }
    d_res[blockIdx.x] = r;
}

template <int TW, int R>
void launch(const uint8_t *d_q, uint32_t m, const uint8_t *d_db, const TraceJob *d_jobs, uint32_t jobs,
            uint32_t max_win, const DeviceScores &s, uint8_t *d_dirs, TraceResult *d_res, char *d_ops,
            uint32_t max_ops, cudaStream_t stream) {
    traceback_warp_kernel<TW, R>
        <<<jobs, TW * 32, 0, stream>>>(d_q, m, d_db, d_jobs, max_win, s, d_dirs, d_res, d_ops, max_ops);
    WM_CUDA_CHECK_LAUNCH("traceback_warp_kernel");
}

} // namespace

size_t traceback_warp_bytes(uint32_t jobs, uint32_t max_win, uint32_t m) {
    return (size_t)jobs * max_win * (size_t)trace_lanes(m) * (size_t)trace_rows_per_lane(m);
}

void traceback_warp(const uint8_t *d_q, uint32_t m, const uint8_t *d_db, const TraceJob *d_jobs, uint32_t jobs,
                    uint32_t max_win, const DeviceScores &s, void *d_work, TraceResult *d_res, char *d_ops,
                    uint32_t max_ops, cudaStream_t stream) {
    uint8_t *dirs = (uint8_t *)d_work;
    if (trace_lanes(m) == 32) {
        switch (trace_rows_per_lane(m)) {
        case 1: return launch<1, 1>(d_q, m, d_db, d_jobs, jobs, max_win, s, dirs, d_res, d_ops, max_ops, stream);
        case 2: return launch<1, 2>(d_q, m, d_db, d_jobs, jobs, max_win, s, dirs, d_res, d_ops, max_ops, stream);
        default: return launch<1, 4>(d_q, m, d_db, d_jobs, jobs, max_win, s, dirs, d_res, d_ops, max_ops, stream);
        }
    }
    switch (trace_rows_per_lane(m)) {
    case 2: return launch<4, 2>(d_q, m, d_db, d_jobs, jobs, max_win, s, dirs, d_res, d_ops, max_ops, stream);
    case 4: return launch<4, 4>(d_q, m, d_db, d_jobs, jobs, max_win, s, dirs, d_res, d_ops, max_ops, stream);
    default: return launch<4, 8>(d_q, m, d_db, d_jobs, jobs, max_win, s, dirs, d_res, d_ops, max_ops, stream);
    }
}

} // namespace wm::align::dispatch
