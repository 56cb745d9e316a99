// gpu/approx/kdiff_lane.h - one lane's state of the k-differences walk, shared
// by the CUDA kernels and the CPU walk (templated on the word class so the
// state stays in registers).
#pragma once

#include "gpu/approx/approx_hd.h"

#include <cstdint>

namespace wm::approx {

constexpr uint32_t kFar = 0xffffffffu; // "no substring within the levels kept"

// Myers/Hyyro, W blocks of 64 rows. Lanes with fewer words than the class run
// the extra blocks on zero Peq bits: blocks only influence the blocks above
// them, so rows past the pattern never disturb the score.
template <uint32_t W> struct MyersLane {
    MyersBlock b[W];
    uint32_t score;

    WM_APPROX_HD void init(uint32_t m) {
#pragma unroll
        for (uint32_t w = 0; w < W; ++w) b[w] = MyersBlock{~0ull, 0ull};
        score = m;
    }
    // eq(w): Peq word w of the current byte. Returns the distance at this end.
    template <typename Eq>
    WM_APPROX_HD uint32_t step(const Eq &eq, uint32_t last_word, uint64_t out_mask) {
        int hin = 0, delta = 0;
#pragma unroll
        for (uint32_t w = 0; w < W; ++w) {
            int at = 0;
            hin = myers_block_step(b[w], eq(w), hin, w == last_word ? out_mask : 0, &at);
            if (w == last_word) delta = at;
        }
        score = static_cast<uint32_t>(static_cast<int>(score) + delta);
        return score;
    }
};

// Shift-And with K + 1 mismatch levels over W words.
template <uint32_t W, uint32_t K> struct HammingLane {
    uint64_t r[K + 1][W];

    WM_APPROX_HD void init(uint32_t) {
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
