// gpu/seed_ac/bench_seed_ac_configs.h - the seed study's configurations and
// published milliseconds (TITAN V; ../shared/SEEDS.md section 3), which
// bench_seed_ac prints beside ours. NaN: not published for that variant.
#pragma once

#include "gpu/seed_ac/seed_ac_variants.h"

#include <array>
#include <cmath>
#include <vector>

namespace wm::seed_ac::bench {

constexpr double kNone = NAN;

struct SeedConfig {
    int table;        // 2 or 5
    int alphabet;     // C
    int patterns;     // N
    int length;       // M
    int log2_text;    // L = 2^log2_text
    int their_states; // 0: not published
    // Their ms per Variant (kAllVariants order); Combined has no counterpart.
    std::array<double, 8> their_ms;
    double their_wu_manber_ms; // Table 2's 2014 AC + Wu-Manber GPU code (NaN: OOM / n.a.)
};

// Table 5 columns map one to one; Table 2's "Opt 1 (shared counters)"
// includes their BFS reordering -> SharedMem-Reord; "Opt 4 (leaf-only)" -> EqLength.
inline std::vector<SeedConfig> seed_configs() {
    const double n = kNone;
    return {
        //  T  C     N   M  lgL states Baseline Reord  Coalesc SharedM SM-Reord Compact EqLen Combined
        {5, 2, 256, 10, 27, 824, {35.63, 39.52, 31.97, 1.231, 1.183, 31.99, 1.018, n}, n},
        {5, 2, 256, 30, 27, 5946, {19.58, 46.95, 14.31, 4.739, 2.749, 11.04, 1.502, n}, n},
        {5, 2, 4000, 13, 27, 9438, {23.76, 15.71, 15.04, 5.333, 5.038, 7.826, 3.576, n}, n},
        {5, 2, 400, 30, 27, 9013, {15.07, 32.25, 11.61, 6.308, 3.226, 8.868, 1.552, n}, n},
        {5, 4, 256, 10, 27, 1763, {33.32, 60.36, 25.28, 1.334, 1.242, 25.11, 0.943, n}, n},
        {5, 4, 256, 30, 27, 6855, {14.15, 56.53, 11.37, 5.442, 3.780, 9.629, 1.403, n}, n},
        {5, 4, 4000, 8, 27, 11289, {10.65, 9.803, 9.471, 4.650, 4.931, 8.392, 3.573, n}, n},
        {5, 4, 1500, 12, 27, 11307, {14.16, 16.87, 11.44, 5.166, 5.786, 9.680, 1.490, n}, n},
        {2, 4, 1000, 8, 30, 0, {n, n, n, n, 28.55, n, 8.37, n}, 141.25},
        {2, 4, 4000, 8, 30, 0, {n, n, n, n, 38.95, n, 28.31, n}, 159.97},
        {2, 4, 8000, 8, 30, 0, {n, n, n, n, 53.11, n, 32.35, n}, 167.33},
        {2, 4, 12000, 8, 30, 0, {n, n, n, n, 51.89, n, 30.62, n}, n},
        {2, 4, 16000, 8, 30, 0, {n, n, n, n, 50.10, n, n, n}, n}, // their Opt 4: OOM
    };
}

} // namespace wm::seed_ac::bench
