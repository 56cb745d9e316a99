// gpu/approx/kdiff_lane.h - one lane's state of the k-differences walk, shared
// by the CUDA kernels and the CPU walk (templated on the word class so the
// state stays in registers).
#pragma once

#include "gpu/approx/approx_hd.h"

#include <cstdint>

namespace wm::approx {

constexpr uint32_t kFar = 0xffffffffu; // "no substring within the levels kept"

// Myers/Hyyro, W blocks of 64 rows, with Ukkonen's cut-off in Myers' block
// form (as edlib does): only blocks 0..y are computed, where y is the last
// block that can hold a cell <= k. Every cell whose distance is <= k lies in
// an active block (an optimal path never decreases, so its predecessor is
// active too), and a block entered late starts from the largest column its
// upper neighbour allows, which only overestimates cells > k: distances <= k
// at row m are exact, larger ones are reported as kFar. One block enters or
// leaves per byte (leaving late only costs work). Lanes with fewer words than
// the class never activate the extra blocks.
template <uint32_t W> struct MyersLane {
    static constexpr uint64_t kBottom = 1ull << 63;
    MyersBlock b[W];
    int sc[W];     // D at each block's out row: its last row, or row m for the last block
    uint32_t y;    // last active block
    uint32_t last; // block holding row m
    int k;
    int last_rows; // rows of the last block up to row m

    WM_APPROX_HD void init(uint32_t m, uint32_t max_dist) {
        last = (m - 1) / 64;
        last_rows = static_cast<int>((m - 1) % 64 + 1);
        k = static_cast<int>(max_dist);
        y = max_dist / 64 < last ? max_dist / 64 : last; // rows 0..k start <= k
#pragma unroll
        for (uint32_t w = 0; w < W; ++w) {
            b[w] = MyersBlock{~0ull, 0ull};
            sc[w] = w == last ? static_cast<int>(m) : static_cast<int>(64 * (w + 1));
        }
    }
    // eq(w): Peq word w of the current byte. Returns the distance at this end
    // when it is <= k, else kFar. Blocks are only touched at constant indices
    // of the unrolled loop (a "pick block y" select chain would make the
    // compiler index the arrays dynamically, i.e. put them in local memory).
    template <typename Eq>
    WM_APPROX_HD uint32_t step(const Eq &eq, uint32_t /*last_word*/, uint64_t out_mask) {
        int carry = 0, sc_top = 0; // carry out of / score of the last block run
        bool grown = false;
#pragma unroll
        for (uint32_t w = 0; w < W; ++w) {
            uint64_t e;
            if (w <= y) {
                e = eq(w);
            } else {
                // Enter block y + 1 when its first row can reach <= k: from
                // block y's bottom at the previous byte (<= k) by a match, or
                // by a step down. It starts from the largest column allowed.
                // Then leave the loop: a real branch, so the blocks above y
                // cost nothing (predicated code would run all W blocks).
                if (w > last || sc_top - carry > k) break;
                e = eq(w);
                if (!(e & 1) && carry >= 0) break;
                b[w] = MyersBlock{~0ull, 0ull};
                sc[w] = sc_top - carry + (w == last ? last_rows : 64);
                grown = true;
            }
            int at = 0;
            carry = myers_block_step(b[w], e, carry, w == last ? out_mask : kBottom, &at);
            sc[w] += at;
            sc_top = sc[w];
            if (grown) break;
        }
        const uint32_t top = grown ? y + 1 : y;
        if (grown)
            y = top;
        else if (y > 0 && sc_top >= k + 64) // every row of block y is > k (rows differ by <= 1)
            --y;
        return top == last && sc_top <= k ? static_cast<uint32_t>(sc_top) : kFar;
    }
};

// Shift-And with K + 1 mismatch levels over W words.
template <uint32_t W, uint32_t K> struct HammingLane {
    uint64_t r[K + 1][W];

    WM_APPROX_HD void init(uint32_t /*m*/, uint32_t /*k*/) {
#pragma unroll
        for (uint32_t d = 0; d <= K; ++d)
#pragma unroll
            for (uint32_t w = 0; w < W; ++w) r[d][w] = 0;
    }
    template <typename Eq>
    WM_APPROX_HD uint32_t step(const Eq &eq, uint32_t last_word, uint64_t out_mask) {
        uint64_t e[W];
#pragma unroll
        for (uint32_t w = 0; w < W; ++w) e[w] = eq(w);
        // Descending levels and words: every read below sees last step's value.
#pragma unroll
        for (int d = K; d >= 0; --d)
#pragma unroll
            for (int w = W - 1; w >= 0; --w) {
                const uint64_t cin = w == 0 ? 1ull : (r[d][w - 1] >> 63);
                const uint64_t pold = d == 0 ? 0ull : r[d > 0 ? d - 1 : 0][w];
                const uint64_t pcin = d == 0 ? 0ull : (w == 0 ? 1ull : (r[d > 0 ? d - 1 : 0][w > 0 ? w - 1 : 0] >> 63));
                r[d][w] = hamming_level_step(r[d][w], cin, pold, pcin, e[w], d > 0);
            }
        uint32_t dist = kFar;
#pragma unroll
        for (int d = K; d >= 0; --d) {
            uint64_t word = 0;
#pragma unroll
            for (uint32_t w = 0; w < W; ++w)
                if (w == last_word) word = r[d][w];
            if (word & out_mask) dist = static_cast<uint32_t>(d);
        }
        return dist;
    }
};

} // namespace wm::approx
