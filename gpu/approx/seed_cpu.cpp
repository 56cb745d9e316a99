// gpu/approx/seed_cpu.cpp - CPU versions of the seed's ASM (see seed_asm.h).
#include "gpu/approx/seed_asm.h"

#include "gpu/approx/approx_hd.h"

#include <algorithm>
#include <vector>

namespace wm::approx {

uint64_t seed_segment_stride(uint64_t n, uint32_t m, uint32_t d) {
    if (d == 0) d = 1;
    const uint64_t span = n > 2ull * m ? n - 2ull * m : 0;
    return std::max<uint64_t>(1, (span + d - 1) / d);
}

uint32_t seed_strip_rows(uint32_t m) {
    uint32_t r = 1;
    while (32 * r < m) r *= 2;
    return r;
}

namespace {

// The warp of seed_strip_kernel in lockstep: lanes run from the last to the
// first so each still reads its upper neighbour's bottom row of the previous
// step, as __shfl_up_sync does.
template <uint32_t R>
void strip_segment(const uint8_t *x, uint32_t m, const uint8_t *seg, uint32_t len, uint64_t lo,
                   AsmResult &best) {
    uint32_t col[32][R], xs[32][R], top_prev[32], bottom[32];
    for (uint32_t t = 0; t < 32; ++t) {
        for (uint32_t r = 0; r < R; ++r) {
            const uint32_t row = t * R + r + 1;
            col[t][r] = row;
            xs[t][r] = row <= m ? x[row - 1] : 0x100u;
        }
        top_prev[t] = t * R;
        bottom[t] = col[t][R - 1];
    }
    const uint32_t out_lane = (m - 1) / R, out_r = (m - 1) % R;
    for (uint32_t s = 1; s <= len + 31; ++s)
        for (int t = 31; t >= 0; --t) {
            const int64_t j = int64_t(s) - t;
            if (j < 1 || j > len) continue;
            const uint32_t top = t == 0 ? 0 : bottom[t - 1];
            seed_strip_column<R>(col[t], xs[t], top_prev[t], top, seg[j - 1]);
            top_prev[t] = top;
            bottom[t] = col[t][R - 1];
            const uint32_t v = col[t][out_r];
            if (uint32_t(t) == out_lane &&
                (v < best.distance || (v == best.distance && lo + uint64_t(j) < best.end)))
                best = {v, lo + uint64_t(j)};
        }
}

} // namespace

AsmResult asm_strips(const uint8_t *x, uint32_t m, const uint8_t *y, uint64_t n, uint32_t d) {
    const uint64_t stride = seed_segment_stride(n, m, d);
    AsmResult best{m, 0};
    for (uint32_t s = 0; s < std::max<uint32_t>(d, 1); ++s) {
        const uint64_t lo = uint64_t{s} * stride;
        if (lo >= n) break;
        const uint32_t len = uint32_t(std::min<uint64_t>(n, lo + stride + 2ull * m) - lo);
        with_seed_strip_rows(m, [&](auto rows) { strip_segment<decltype(rows)::value>(x, m, y + lo, len, lo, best); });
    }
    return best;
}

AsmResult asm_sequential(const uint8_t *x, uint32_t m, const uint8_t *y, uint64_t n) {
    // col[i] = c[i][j] for the current column j; c[0][j] = 0, c[i][0] = i.
    std::vector<uint32_t> col(m + 1);
    for (uint32_t i = 0; i <= m; ++i) col[i] = i;
    AsmResult best{m, 0}; // j = 0: the empty substring, distance m
    for (uint64_t j = 1; j <= n; ++j) {
        uint32_t diag = col[0]; // c[i-1][j-1]
        const uint8_t yc = y[j - 1];
        for (uint32_t i = 1; i <= m; ++i) {
            const uint32_t left = col[i]; // c[i][j-1]
            const uint32_t v = seed_cell(left, col[i - 1], diag, x[i - 1], yc);
            diag = left;
            col[i] = v;
        }
        if (col[m] < best.distance) best = {col[m], j};
    }
    return best;
}

AsmResult asm_antidiagonal(const uint8_t *x, uint32_t m, const uint8_t *y, uint64_t n,
                           uint32_t d) {
    const uint64_t stride = seed_segment_stride(n, m, d);
    const uint32_t pitch = (m + 1 + 31) / 32 * 32; // as in shared memory on the GPU
    std::vector<uint32_t> buf(3 * pitch, 0);
    AsmResult best{m, 0};
    for (uint32_t s = 0; s < std::max<uint32_t>(d, 1); ++s) {
        const uint64_t lo = uint64_t{s} * stride;
        if (lo >= n) break;
        const uint64_t len = std::min<uint64_t>(n, lo + stride + 2ull * m) - lo;
        std::fill(buf.begin(), buf.end(), 0u);
        uint32_t *rows[3] = {buf.data(), buf.data() + pitch, buf.data() + 2 * pitch};
        for (uint64_t k = 1; k + 1 <= len + m; ++k) {
            uint32_t *cur = rows[k % 3], *prev = rows[(k + 2) % 3], *prev2 = rows[(k + 1) % 3];
            // "thread" i = 1..m computes cell (i, j = k - i + 1); it reads only
            // diagonals k-1 and k-2, so the order of the i loop does not matter.
            for (uint32_t i = 1; i <= m; ++i) {
                if (i > k) break; // j = k - i + 1 >= 1
                const uint64_t j = k + 1 - i;
                if (j > len) continue;
                const uint32_t left = j == 1 ? i : prev[i];
                const uint32_t diag = j == 1 ? i - 1 : prev2[i - 1];
                const uint32_t v = seed_cell(left, prev[i - 1], diag, x[i - 1], y[lo + j - 1]);
                cur[i] = v;
                if (i == m && (v < best.distance || (v == best.distance && lo + j < best.end)))
                    best = {v, lo + j};
            }
        }
    }
    return best;
}

} // namespace wm::approx
