// gpu/ac_tuning.h - every tuning constant of the Aho-Corasick kernels.
// Host-only-safe (no CUDA includes): the planner and CPU walk use the same tile.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wm::gpu::tuning {

// Threads per block of the scan/count kernels.
constexpr uint32_t kBlockThreads = 256;
// Blocks per SM the register allocation must allow (__launch_bounds__).
constexpr uint32_t kMinBlocksPerSm = 1;
// Bytes each thread owns (its tile). 124 = 31 words: consecutive threads read
// shared memory at an odd word stride, so a warp's byte loads hit distinct banks.
constexpr uint32_t kTileBytes = 124;
// Bytes staged in shared memory before the block's first tile (warm-up of the
// first threads); bytes further back are read from global memory.
constexpr uint32_t kStageBefore = 64;
// Shared text buffer: the block's tiles, the look-back, 16-byte alignment slack.
constexpr uint32_t kStageBytes = kBlockThreads * kTileBytes + kStageBefore + 32;
// Trie depth limit (key bytes), see ac_compile.h.
constexpr uint32_t kKeyBytes = 32;
// Dense-row budget over all groups (H100 L2 is 50 MB, H200 60 MB).
constexpr size_t kDenseBudgetBytes = 24u << 20;
// Set mode: shared-memory dedupe table per block (slots of 8 bytes, power of
// two) and the linear-probe limit before a key goes straight to the global table.
constexpr uint32_t kSetHashSlots = 2048;
constexpr uint32_t kSetHashProbes = 16;
// Probe limit in the chunk-wide table (load <= 1/2 when the output fits, so
// ~2 probes expected); past it the chunk is rescanned with bigger buffers.
constexpr uint32_t kSetGlobalProbes = 64;
// Match queue per warp (entries of 8 bytes, shared memory): a warp drains it
// together once it could overflow on the next step (> kWarpQueue - 64 entries).
// 120 keeps the Set kernel at 4 blocks per SM (56.9 KB of shared memory each).
constexpr uint32_t kWarpQueue = 120;
// Queue entries keep a state id in 26 bits (the kernels refuse bigger groups).
constexpr uint32_t kQueueStateBits = 26;

// Chunks in flight (one CUDA stream each).
constexpr uint32_t kStreams = 3;
// Initial output records per stream: max(kMinOutputRecords, chunk bytes / kBytesPerOutput).
constexpr size_t kMinOutputRecords = size_t{1} << 16;
constexpr size_t kBytesPerOutput = 32;

} // namespace wm::gpu::tuning
