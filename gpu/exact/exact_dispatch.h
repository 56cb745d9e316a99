// gpu/exact/exact_dispatch.h - launchers of the exact kernels (internal; CUDA
// translation units and the CUDA host entries only). Each sizes the grid,
// raises the shared-memory limit when needed, launches on the given stream and
// checks the launch error (GpuError naming the kernel). Device pointers: d_.
#pragma once

#include "gpu/exact/exact_hd.h"

#include <cuda_runtime_api.h>

namespace wm::gpu::exact {

// Where a single-pattern kernel writes (each output optional: null = skip).
struct DeviceOutputs {
    uint8_t *d_match = nullptr;      // [n] match vector, 1 iff P occurs at i
    uint32_t *d_positions = nullptr; // [capacity] starts, unordered
    uint32_t capacity = 0;
    uint32_t *d_count = nullptr;     // [1] occurrences found (may exceed capacity); caller zeroes
};

// One occurrence of pattern `pattern` starting at byte `start` of the text.
struct BatchRecord {
    uint32_t pattern;
    uint32_t start;
};

// p: device view (bytes/witness are device pointers). Text: n < 2^32 bytes,
// d_text 16-byte aligned. Brute force: one thread per position.
void launch_brute(const PatternView &p, const uint8_t *d_text, uint64_t n, const DeviceOutputs &o,
                  cudaStream_t stream);

// Fused duel: eliminate + verify + emit in one kernel. pattern_in_smem copies
// P and its witnesses to shared memory (ignored when they do not fit).
void launch_duel(const PatternView &p, bool pattern_in_smem, const uint8_t *d_text, uint64_t n,
                 const DeviceOutputs &o, cudaStream_t stream);

// Two-kernel duel (the seed's stages): elimination writes one survivor per
// group (kNone where none), verify brute-forces them. o.d_match must be zeroed
// by the caller before verify (it writes only the 1s).
uint64_t survivor_slots(uint32_t span, uint64_t n);
void launch_eliminate(const PatternView &p, const uint8_t *d_text, uint64_t n,
                      uint32_t *d_survivors, cudaStream_t stream);
void launch_verify_survivors(const PatternView &p, const uint8_t *d_text, uint64_t n,
                             const uint32_t *d_survivors, uint64_t slots, const DeviceOutputs &o,
                             cudaStream_t stream);

// Many patterns over one text: each block stages its tile once (halo max_m-1)
// and runs the duel for every pattern. d_patterns: device array of views.
// Records past `capacity` are counted in *d_count but not written.
void launch_duel_batch(const PatternView *d_patterns, uint32_t pattern_count, uint32_t max_m,
                       const uint8_t *d_text, uint64_t n, BatchRecord *d_out, uint32_t capacity,
                       uint32_t *d_count, cudaStream_t stream);

} // namespace wm::gpu::exact
