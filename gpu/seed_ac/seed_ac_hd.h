// gpu/seed_ac/seed_ac_hd.h - the one macro and the counter-based generator that
// host and device code share, so g++ compiles the same per-thread logic the
// kernels run and CI without a GPU tests it.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define WM_SEED_HD __host__ __device__ __forceinline__
#else
#define WM_SEED_HD inline
#endif

namespace wm::seed_ac {

// splitmix64 finaliser: a stateless hash, so character i of a random text is
// a pure function of (seed, i) and host and device generate identical texts
// in any order, with any number of threads.
WM_SEED_HD uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Character i of stream `seed`, uniform over [0, alphabet) (multiply-shift
// on the high 32 bits: bias below 2^-32 for the alphabets used here).
WM_SEED_HD uint32_t random_char(uint64_t seed, uint64_t i, uint32_t alphabet) {
    const uint64_t h = mix64(seed * 0xD1B54A32D192ED03ull ^ i);
    return static_cast<uint32_t>(((h >> 32) * alphabet) >> 32);
}

} // namespace wm::seed_ac
