// gpu/exact/exact_kernels.cu - thin __global__ kernels (build an emitter, call
// the agent) and their launchers (grid sizing, smem opt-in, launch checks).
#include "gpu/cuda_check.h"
#include "gpu/exact/exact_agent.cuh"
#include "gpu/exact/exact_dispatch.h"

namespace wm::gpu::exact {
namespace {

using tuning::kBlockThreads;
using tuning::kTilePositions;

__device__ __forceinline__ void append(uint32_t *d_pos, uint32_t cap, uint32_t *d_count,
                                       uint32_t value) {
    const uint32_t idx = atomicAdd(d_count, 1u);
    if (idx < cap) d_pos[idx] = value;
}

// Match vector + positions of one tile.
struct VectorEmit {
    uint64_t tile_base, n;
    DeviceOutputs o;
    __device__ void operator()(const LaneResult &r) const {
        const uint32_t hit = r.matched ? r.survivor : kNone;
        if (o.d_positions && r.leader && r.matched)
            append(o.d_positions, o.capacity, o.d_count, static_cast<uint32_t>(tile_base + hit));
        if (!o.d_match) return;
        const uint64_t a = tile_base + r.first;
        if (r.items == 8 && a + 8 <= n) { // aligned: a is a multiple of 8
            uint64_t v = 0;
            if (hit - r.first < 8u) v = uint64_t{1} << (8 * (hit - r.first));
            *reinterpret_cast<uint64_t *>(o.d_match + a) = v;
            return;
        }
        for (uint32_t k = 0; k < r.items && a + k < n; ++k)
            o.d_match[a + k] = (r.first + k == hit) ? 1 : 0;
    }
};

struct SurvivorEmit {
    uint64_t tile_base;
    uint32_t *d_survivors;
    uint32_t group;
    __device__ void operator()(const LaneResult &r) const {
        if (!r.leader) return;
        d_survivors[(tile_base + r.first) / group] =
            r.survivor == kNone ? kNone : static_cast<uint32_t>(tile_base + r.survivor);
    }
};

struct BatchEmit {
    uint64_t tile_base;
    uint32_t pattern;
    BatchRecord *d_out;
    uint32_t cap;
    uint32_t *d_count;
    __device__ void operator()(const LaneResult &r) const {
        if (!(r.leader && r.matched)) return;
        const uint32_t idx = atomicAdd(d_count, 1u);
        if (idx < cap) d_out[idx] = BatchRecord{pattern, static_cast<uint32_t>(tile_base + r.survivor)};
    }
};

__device__ __forceinline__ uint32_t tile_valid(uint64_t tile_base, uint64_t n, uint32_t m) {
    const uint32_t nv = valid_positions(n, m);
    return nv > tile_base ? static_cast<uint32_t>(min(uint64_t{kTilePositions}, nv - tile_base)) : 0u;
}

__global__ void __launch_bounds__(kBlockThreads) brute_kernel(PatternView p, const uint8_t *d_text,
                                                              uint64_t n, DeviceOutputs o) {
    const uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const bool hit = i < valid_positions(n, p.m) && verify_at(d_text, p, static_cast<uint32_t>(i));
    if (o.d_match) o.d_match[i] = hit ? 1 : 0;
    if (hit && o.d_positions) append(o.d_positions, o.capacity, o.d_count, static_cast<uint32_t>(i));
}

template <bool kPatternInSmem>
__global__ void __launch_bounds__(kBlockThreads) duel_kernel(PatternView p, const uint8_t *d_text,
                                                             uint64_t n, DeviceOutputs o) {
    extern __shared__ uint4 smem_vec[];
    uint8_t *smem = reinterpret_cast<uint8_t *>(smem_vec);
    const uint64_t tile_base = uint64_t{blockIdx.x} * kTilePositions;
    const uint32_t stage = stage_bytes(p.m);
    if (kPatternInSmem) { // pattern after the text, witnesses after the pattern
        uint8_t *s_bytes = smem + stage;
        uint16_t *s_wit = reinterpret_cast<uint16_t *>(s_bytes + (p.m + 15) / 16 * 16);
        for (uint32_t k = threadIdx.x; k < p.m; k += blockDim.x) s_bytes[k] = p.bytes[k];
        for (uint32_t k = threadIdx.x; k < p.span; k += blockDim.x) s_wit[k] = p.witness[k];
        p.bytes = s_bytes;
        p.witness = s_wit;
    }
    const uint32_t shift = stage_text(smem, d_text, n, tile_base, kTilePositions + p.m - 1);
    __syncthreads();
    VectorEmit emit{tile_base, n, o};
    duel_tile<true>(smem + shift, p, tile_valid(tile_base, n, p.m), emit);
}

__global__ void __launch_bounds__(kBlockThreads) eliminate_kernel(PatternView p,
                                                                  const uint8_t *d_text, uint64_t n,
                                                                  uint32_t *d_survivors) {
    extern __shared__ uint4 smem_vec[];
    uint8_t *smem = reinterpret_cast<uint8_t *>(smem_vec);
    const uint64_t tile_base = uint64_t{blockIdx.x} * kTilePositions;
    const uint32_t shift = stage_text(smem, d_text, n, tile_base, kTilePositions + p.m - 1);
    __syncthreads();
    const DuelShape sh = duel_shape(p.span);
    SurvivorEmit emit{tile_base, d_survivors, sh.items * sh.lanes};
    duel_tile<false>(smem + shift, p, tile_valid(tile_base, n, p.m), emit);
}

__global__ void __launch_bounds__(tuning::kSimpleThreads)
    verify_kernel(PatternView p, const uint8_t *d_text, const uint32_t *d_survivors, uint64_t slots,
                  DeviceOutputs o) {
    const uint64_t g = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (g >= slots) return;
    const uint32_t s = d_survivors[g];
    if (s == kNone || !verify_at(d_text, p, s)) return;
    if (o.d_match) o.d_match[s] = 1;
    if (o.d_positions) append(o.d_positions, o.capacity, o.d_count, s);
}

__global__ void __launch_bounds__(kBlockThreads)
    duel_batch_kernel(const PatternView *d_patterns, uint32_t count, uint32_t max_m,
                      const uint8_t *d_text, uint64_t n, BatchRecord *d_out, uint32_t cap,
                      uint32_t *d_count) {
    extern __shared__ uint4 smem_vec[];
    uint8_t *smem = reinterpret_cast<uint8_t *>(smem_vec);
    const uint64_t tile_base = uint64_t{blockIdx.x} * kTilePositions;
    const uint32_t shift = stage_text(smem, d_text, n, tile_base, kTilePositions + max_m - 1);
    __syncthreads();
    for (uint32_t k = 0; k < count; ++k) {
        const PatternView p = d_patterns[k];
        BatchEmit emit{tile_base, k, d_out, cap, d_count};
        duel_tile<true>(smem + shift, p, tile_valid(tile_base, n, p.m), emit);
    }
}

uint32_t tiles_for(uint64_t n) { return static_cast<uint32_t>((n + kTilePositions - 1) / kTilePositions); }

template <class Kernel> void allow_smem(Kernel k, size_t bytes) {
    if (bytes > 48 * 1024)
        WM_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes)));
}

constexpr size_t kSmemPatternLimit = 96 * 1024; // beyond: pattern stays in global (L1)

} // namespace

void launch_brute(const PatternView &p, const uint8_t *d_text, uint64_t n, const DeviceOutputs &o,
                  cudaStream_t stream) {
    if (n == 0) return;
    const uint64_t blocks = (n + tuning::kSimpleThreads - 1) / tuning::kSimpleThreads;
    brute_kernel<<<static_cast<uint32_t>(blocks), tuning::kSimpleThreads, 0, stream>>>(p, d_text, n, o);
    WM_CUDA_CHECK_LAUNCH("brute_kernel");
}

void launch_duel(const PatternView &p, bool pattern_in_smem, const uint8_t *d_text, uint64_t n,
                 const DeviceOutputs &o, cudaStream_t stream) {
    if (n == 0) return;
    const size_t text_bytes = stage_bytes(p.m);
    const size_t with_pattern = text_bytes + (p.m + 15) / 16 * 16 + size_t{p.span} * 2;
    if (pattern_in_smem && with_pattern <= kSmemPatternLimit) {
        allow_smem(duel_kernel<true>, with_pattern);
        duel_kernel<true><<<tiles_for(n), kBlockThreads, with_pattern, stream>>>(p, d_text, n, o);
        WM_CUDA_CHECK_LAUNCH("duel_kernel<smem pattern>");
    } else {
        allow_smem(duel_kernel<false>, text_bytes);
        duel_kernel<false><<<tiles_for(n), kBlockThreads, text_bytes, stream>>>(p, d_text, n, o);
        WM_CUDA_CHECK_LAUNCH("duel_kernel");
    }
}

uint64_t survivor_slots(uint32_t span, uint64_t n) {
    const DuelShape sh = duel_shape(span);
    return uint64_t{tiles_for(n)} * (kTilePositions / (sh.items * sh.lanes));
}

void launch_eliminate(const PatternView &p, const uint8_t *d_text, uint64_t n,
                      uint32_t *d_survivors, cudaStream_t stream) {
    if (n == 0) return;
    const size_t bytes = stage_bytes(p.m);
    allow_smem(eliminate_kernel, bytes);
    eliminate_kernel<<<tiles_for(n), kBlockThreads, bytes, stream>>>(p, d_text, n, d_survivors);
    WM_CUDA_CHECK_LAUNCH("eliminate_kernel");
}

void launch_verify_survivors(const PatternView &p, const uint8_t *d_text, uint64_t,
                             const uint32_t *d_survivors, uint64_t slots, const DeviceOutputs &o,
                             cudaStream_t stream) {
    if (slots == 0) return;
    const uint64_t blocks = (slots + tuning::kSimpleThreads - 1) / tuning::kSimpleThreads;
    verify_kernel<<<static_cast<uint32_t>(blocks), tuning::kSimpleThreads, 0, stream>>>(
        p, d_text, d_survivors, slots, o);
    WM_CUDA_CHECK_LAUNCH("verify_kernel");
}

void launch_duel_batch(const PatternView *d_patterns, uint32_t pattern_count, uint32_t max_m,
                       const uint8_t *d_text, uint64_t n, BatchRecord *d_out, uint32_t capacity,
                       uint32_t *d_count, cudaStream_t stream) {
    if (n == 0 || pattern_count == 0) return;
    const size_t bytes = stage_bytes(max_m);
    allow_smem(duel_batch_kernel, bytes);
    duel_batch_kernel<<<tiles_for(n), kBlockThreads, bytes, stream>>>(
        d_patterns, pattern_count, max_m, d_text, n, d_out, capacity, d_count);
    WM_CUDA_CHECK_LAUNCH("duel_batch_kernel");
}

} // namespace wm::gpu::exact
