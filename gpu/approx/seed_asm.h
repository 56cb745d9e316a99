// gpu/approx/seed_asm.h - the seed study's problem (Man, Nakano, Ito 2014,
// ../shared/SEEDS.md section 1): ASM(X, Y) = min over substrings Y' of Y of
// ED(X, Y'), with the position where it is attained.
//
// Three implementations of one function, for the Table 1 reproduction:
//   asm_sequential      the plain column-by-column DP (the paper's CPU baseline);
//   asm_antidiagonal    the GPU algorithm's schedule run on the CPU: Y cut into
//                       D overlapping segments of S + 2m bytes, each swept by
//                       anti-diagonals with 3 rotating diagonal buffers, using
//                       the kernel's own cell function (approx_hd.h);
//   seed_asm_gpu_host   the kernel (seed_kernel.cu): one block of m threads per
//                       segment, then the minimum over segments.
// and our faster schedule of the same segments (SeedSchedule::Strips): one
// warp per segment, each lane holding R = seed_strip_rows(m) rows of the DP
// in registers and passing its bottom row to the next lane by a shuffle, so
// a step does R cells per lane with no barrier (seed_strip_kernel.cu;
// asm_strips runs that schedule on the CPU with the kernel's code).
// All return the minimum distance and the smallest exclusive end offset in Y
// where it is attained. Requires 1 <= m; the GPU path also m <= 1024.
#pragma once

#include <cstdint>
#include <type_traits>

namespace wm::approx {

struct AsmResult {
    uint32_t distance;
    uint64_t end; // exclusive end offset in Y of a best substring (smallest such)
    bool operator==(const AsmResult &o) const { return distance == o.distance && end == o.end; }
};

// Segment stride S = ceil((n - 2m) / D) (at least 1); segment i covers
// Y[i*S, min(n, (i+1)*S + 2m)). Any substring of length <= 2m (every optimal
// one: ED >= |Y'| - m and ASM <= m) lies wholly inside one segment.
uint64_t seed_segment_stride(uint64_t n, uint32_t m, uint32_t d);

enum class SeedSchedule { Antidiagonal, Strips };

// Rows per lane of the strip schedule: the smallest power of two with 32 * R >= m.
uint32_t seed_strip_rows(uint32_t m);

// Calls f(std::integral_constant<uint32_t, R>{}) for R = seed_strip_rows(m),
// so the kernel launch and its CPU run pick the same instance.
template <typename F> void with_seed_strip_rows(uint32_t m, F &&f) {
    switch (seed_strip_rows(m)) {
    case 1: return f(std::integral_constant<uint32_t, 1>{});
    case 2: return f(std::integral_constant<uint32_t, 2>{});
    case 4: return f(std::integral_constant<uint32_t, 4>{});
    case 8: return f(std::integral_constant<uint32_t, 8>{});
    case 16: return f(std::integral_constant<uint32_t, 16>{});
    default: return f(std::integral_constant<uint32_t, 32>{});
    }
}

AsmResult asm_sequential(const uint8_t *x, uint32_t m, const uint8_t *y, uint64_t n);
AsmResult asm_antidiagonal(const uint8_t *x, uint32_t m, const uint8_t *y, uint64_t n,
                           uint32_t d);
AsmResult asm_strips(const uint8_t *x, uint32_t m, const uint8_t *y, uint64_t n, uint32_t d);

// GPU: copies X and Y, runs the kernel, returns the result. Throws
// wm::gpu::GpuError (also "built without CUDA support").
AsmResult seed_asm_gpu_host(const uint8_t *x, uint32_t m, const uint8_t *y, uint64_t n,
                            uint32_t d, SeedSchedule schedule = SeedSchedule::Antidiagonal);

} // namespace wm::approx
