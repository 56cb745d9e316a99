// gpu/approx/approx_hd.h - the per-thread logic of every approximate-matching
// kernel, as __host__ __device__ functions, so the CPU walks (and the tests
// that run without a GPU) execute exactly the code the kernels run.
//
//  * seed_cell: one cell of the Man-Nakano-Ito anti-diagonal DP;
//    seed_strip_column: R rows of one column of it (our warp schedule).
//  * myers_block_step: one 64-row block of Myers/Hyyro's bit-parallel
//    Levenshtein column update (search version: row 0 is all zeros).
//  * hamming_levels_step: Shift-And with k+1 mismatch levels (Wu-Manber
//    without insertions/deletions), one 64-row block.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define WM_APPROX_HD __host__ __device__ __forceinline__
#else
#define WM_APPROX_HD inline
#endif

namespace wm::approx {

// c[i][j] = min(c[i][j-1] + 1, c[i-1][j] + 1, c[i-1][j-1] + [x_i != y_j]).
WM_APPROX_HD uint32_t seed_cell(uint32_t left, uint32_t up, uint32_t diag, uint8_t x, uint8_t y) {
    uint32_t a = left < up ? left : up;
    uint32_t b = diag + (x != y ? 1u : 0u);
    a += 1;
    return a < b ? a : b;
}

// min(a + b, c); one DPX instruction on Hopper.
WM_APPROX_HD uint32_t add_min(uint32_t a, uint32_t b, uint32_t c) {
#if defined(__CUDA_ARCH__)
    return __viaddmin_u32(a, b, c);
#else
    return a + b < c ? a + b : c;
#endif
}

// The strip schedule of the same DP (our faster variant of the seed's
// kernel): a lane owns R consecutive rows base+1..base+R in registers and
// advances them by one column per step. col[r]: c[base+r+1][j-1] in,
// c[base+r+1][j] out; top_prev = c[base][j-1] and top = c[base][j] come from
// the lane above (row 0 is all zeros). Equal to seed_cell row by row, with
// min(left + 1, diag + [x != y]) taken first so the chain down the column is
// one add_min per row. xs[r] > 255 marks a row past the pattern.
template <uint32_t R>
WM_APPROX_HD void seed_strip_column(uint32_t (&col)[R], const uint32_t (&xs)[R], uint32_t top_prev,
                                    uint32_t top, uint32_t yc) {
    uint32_t up = top, diag = top_prev;
#pragma unroll
    for (uint32_t r = 0; r < R; ++r) {
        const uint32_t left = col[r];
        up = add_min(up, 1, add_min(left, 1, diag + (xs[r] != yc ? 1u : 0u)));
        diag = left;
        col[r] = up;
    }
}

// Vertical delta state of one 64-row block of the DP column: bit r of pv (mv)
// says D[r][j] - D[r-1][j] is +1 (-1).
struct MyersBlock {
    uint64_t pv;
    uint64_t mv;
};

// Advances one block by one text byte. eq: the block's pattern-equality
// bits for the byte. hin: horizontal delta entering the block at its top row
// (0 for block 0 in search mode, else the previous block's hout). Returns the
// horizontal delta at row `out_bit` (the block's last row, or the pattern's
// last row for the final block) via *hout_at, and at bit 63 (carry to the
// next block) as the return value.
WM_APPROX_HD int myers_block_step(MyersBlock &b, uint64_t eq, int hin, uint64_t out_mask,
                                  int *hout_at) {
    const uint64_t xv = eq | b.mv;
    if (hin < 0) eq |= 1;
    const uint64_t xh = (((eq & b.pv) + b.pv) ^ b.pv) | eq;
    uint64_t ph = b.mv | ~(xh | b.pv);
    uint64_t mh = b.pv & xh;
    *hout_at = (ph & out_mask) ? 1 : ((mh & out_mask) ? -1 : 0);
    const int hout = (ph >> 63) ? 1 : ((mh >> 63) ? -1 : 0);
    ph <<= 1;
    mh <<= 1;
    if (hin < 0)
        mh |= 1;
    else if (hin > 0)
        ph |= 1;
    b.pv = mh | ~(xv | ph);
    b.mv = ph & xv;
    return hout;
}

// Shift-And with mismatch levels, one word of level d:
//   R_d' = ((R_d << 1 | cin_d) & eq) | (R_{d-1} << 1 | cin_{d-1})
// where cin is the carry from the word below (1 for word 0: a match may start
// at every byte). prev_old is R_{d-1} before this step (0 for d = 0).
WM_APPROX_HD uint64_t hamming_level_step(uint64_t r, uint64_t cin, uint64_t prev_old,
                                         uint64_t prev_cin, uint64_t eq, bool has_prev) {
    uint64_t v = ((r << 1) | cin) & eq;
    if (has_prev) v |= (prev_old << 1) | prev_cin;
    return v;
}

// ASCII case folding used for nocase rules (same as Hyperscan HS_FLAG_CASELESS
// on non-UTF-8 patterns).
WM_APPROX_HD uint8_t fold_ascii(uint8_t c) { return (c >= 'A' && c <= 'Z') ? uint8_t(c + 32) : c; }

} // namespace wm::approx
