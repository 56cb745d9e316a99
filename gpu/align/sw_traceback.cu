// gpu/align/sw_traceback.cu - the seed's kernel 2, kept for queries longer than
// tuning::kMaxQueryRows (shorter ones take sw_traceback_warp.cu, one warp per
// hit, which has no barrier per row): one block per hit recomputes
// a window of columns ending at the hit (row-parallel inside the block: F and
// H~ per column, a block max-scan for E~, then H), records a direction byte per
// cell, finds the end row and walks back (traceback_walk, shared with the CPU).
#include "gpu/align/sw_hd.h"
#include "gpu/align/sw_kernels.h"
#include "gpu/align/sw_tuning.h"
#include "gpu/cuda_check.h"

#include <cub/block/block_scan.cuh>

namespace wm::align {
namespace {

using namespace detail;
constexpr int kNeg = -(1 << 29);
constexpr int T = tuning::kTraceThreads;

struct MaxOp {
    __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

struct DirAt {
    const uint8_t *dir;
    uint32_t w;
    __device__ uint8_t operator()(int i, int j) const { return dir[(size_t)i * w + j]; }
};

__global__ void __launch_bounds__(T)
    traceback_kernel(const uint8_t *d_q, uint32_t m, const uint8_t *d_db, const dispatch::TraceJob *d_jobs,
                     uint32_t max_win, dispatch::DeviceScores s, uint8_t *d_work, int *d_rows,
                     dispatch::TraceResult *d_res, char *d_ops, uint32_t max_ops) {
    using Scan = cub::BlockScan<int, T>;
    __shared__ typename Scan::TempStorage scan_tmp;
    __shared__ int s_h[T + 1];
    __shared__ int s_best, s_best_row, s_prev_last;
    extern __shared__ int smem_rows[]; // hprev, f: 2 * max_win ints (or d_rows when too wide)
    const dispatch::TraceJob job = d_jobs[blockIdx.x];
    const uint32_t w = job.win_len;
    int *rows = d_rows ? d_rows + (size_t)blockIdx.x * 2 * max_win : smem_rows;
    int *hprev = rows, *f = rows + max_win;
    uint8_t *dir = d_work + (size_t)blockIdx.x * max_win * m;
    const uint8_t *db = d_db + job.win_begin;
    const int gs = s.gap_open, ge = s.gap_extend;
    for (uint32_t j = threadIdx.x; j < w; j += T) {
        hprev[j] = 0;
        f[j] = kNeg;
    }
    if (threadIdx.x == 0) {
        s_best = 0;
        s_best_row = 0;
    }
    __syncthreads();
    for (uint32_t i = 0; i < m; ++i) {
        const uint8_t qi = d_q[i];
        int carry = -ge, left_h = 0; // the zero column left of the window
        for (uint32_t base = 0; base < w; base += T) {
            const uint32_t j = base + threadIdx.x;
            int fj = kNeg, ht = kNeg, a = kNeg, ds = 0, up = 0;
            bool eq = false;
            if (j < w) {
                up = hprev[j];
                fj = rowpar_f(f[j], up, gs, ge);
                const uint8_t dj = db[j];
                eq = qi == dj;
                const int diag = j == 0 ? 0 : threadIdx.x ? hprev[j - 1] : s_prev_last;
                ds = diag + (s.d_matrix ? s.d_matrix[qi * 256 + dj] : (eq ? s.match : s.mismatch));
                ht = rowpar_htilde(ds, 0, fj); // max(diag + s, F, 0)
                a = ht + (int)j * ge;
            }
            int excl, agg;
            Scan(scan_tmp).ExclusiveScan(a, excl, carry, MaxOp{}, agg);
            carry = max(carry, agg);
            const int e = excl - (int)j * ge - gs;
            const int h = max(ht, e);
            s_h[threadIdx.x + 1] = h;
            if (threadIdx.x == 0) s_h[0] = left_h;
            // H[i-1] of this chunk's last column: the next chunk's first diagonal
            // (thread 0 read the previous value before the scan's barriers).
            if (threadIdx.x == T - 1) s_prev_last = up;
            __syncthreads(); // s_h complete; every thread read hprev[j-1] of this chunk
            if (j < w) {
                dir[(size_t)i * w + j] = cell_direction(h, ds, e, fj, s_h[threadIdx.x], up, gs, ge, eq);
                f[j] = fj;
                if (j == w - 1 && h > s_best) { // first row wins ties: rows run in order
                    s_best = h;
                    s_best_row = (int)i;
                }
            }
            left_h = s_h[T];
            __syncthreads(); // all reads of hprev[j-1] done before the row is overwritten
            if (j < w) hprev[j] = h;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        dispatch::TraceResult r{};
        r.score = s_best;
        r.query_end = s_best_row + 1;
        if (s_best > 0) {
            int si = 0, sj = 0;
            r.n_ops = traceback_walk(DirAt{dir, w}, s_best_row, (int)w - 1, d_ops + (size_t)blockIdx.x * max_ops,
                                     (int)max_ops, &si, &sj);
            r.query_begin = si;
            r.db_begin = sj;
        } else {
            r.query_end = 0;
            r.db_begin = (int)w;
        }
        d_res[blockIdx.x] = r;
    }
}

} // namespace

namespace {
// Shared memory a block may use (opt-in limit), once per device.
int smem_optin_limit() {
    int dev = 0, v = 0;
    WM_CUDA_CHECK(cudaGetDevice(&dev));
    WM_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return v;
}
size_t rows_smem_bytes(uint32_t max_win) { return (size_t)2 * max_win * sizeof(int); }
constexpr size_t kStaticSmemReserve = 16384; // scan storage and the other __shared__ variables
} // namespace

size_t dispatch::traceback_workspace_bytes(uint32_t jobs, uint32_t max_win, uint32_t m) {
    if (m <= (uint32_t)tuning::kMaxQueryRows) return traceback_warp_bytes(jobs, max_win, m);
    // direction bytes, plus rows in global memory when the window is too wide for shared memory
    return (size_t)jobs * max_win * m + 256 + (size_t)jobs * rows_smem_bytes(max_win);
}

void dispatch::traceback(const uint8_t *d_q, uint32_t m, const uint8_t *d_db, const TraceJob *d_jobs, uint32_t jobs,
                         uint32_t max_win, const DeviceScores &s, void *d_work, TraceResult *d_results, char *d_ops,
                         uint32_t max_ops, cudaStream_t stream) {
    if (jobs == 0) return;
    if (m <= (uint32_t)tuning::kMaxQueryRows)
        return traceback_warp(d_q, m, d_db, d_jobs, jobs, max_win, s, d_work, d_results, d_ops, max_ops, stream);
    size_t smem = rows_smem_bytes(max_win);
    int *d_rows = nullptr;
    if (smem + kStaticSmemReserve > (size_t)smem_optin_limit()) { // too wide: rows live in global memory
        d_rows = (int *)((uint8_t *)d_work + (((size_t)jobs * max_win * m + 255) & ~size_t(255)));
        smem = 0;
    }
    WM_CUDA_CHECK(cudaFuncSetAttribute(traceback_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    traceback_kernel<<<jobs, T, smem, stream>>>(d_q, m, d_db, d_jobs, max_win, s, (uint8_t *)d_work, d_rows,
                                                d_results, d_ops, max_ops);
    WM_CUDA_CHECK_LAUNCH("traceback_kernel");
}

} // namespace wm::align
