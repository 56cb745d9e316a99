// gpu/approx/seed_kernels.h - dispatch layer of the seed ASM kernel (CUDA
// translation units only; the host entry is seed_asm.h).
#pragma once

#include "gpu/approx/seed_asm.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace wm::approx {

// Shared memory of one block: 3 rotating diagonals of pad32(m + 1) words.
size_t seed_smem_bytes(uint32_t m);

// Runs the D segments on `stream`: D blocks of m threads (Antidiagonal) or D
// warps (Strips). d_x: [in] m bytes; d_y: [in] n bytes; d_best: [out]
// (distance << 32 | end), initialised here (async). Throws GpuError on a bad
// m or a launch error. n < 2^32.
void seed_asm_dispatch(const uint8_t *d_x, uint32_t m, const uint8_t *d_y, uint64_t n, uint32_t d,
                       unsigned long long *d_best, cudaStream_t stream,
                       SeedSchedule schedule = SeedSchedule::Antidiagonal);

// The strip kernel alone (seed_strip_kernel.cu); d_best already initialised.
void seed_strip_launch(const uint8_t *d_x, uint32_t m, const uint8_t *d_y, uint64_t n, uint64_t stride,
                       uint32_t d, unsigned long long *d_best, cudaStream_t stream);

} // namespace wm::approx
