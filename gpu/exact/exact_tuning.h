// gpu/exact/exact_tuning.h - every tuning constant of the exact (duel / brute
// force) kernels. Host-safe: the CPU reference walks the same shapes.
#pragma once

#include <cstdint>

namespace wm::gpu::exact::tuning {

// Threads per block of every exact kernel.
constexpr uint32_t kBlockThreads = 256;
// Most candidate positions one thread reduces by sequential duels (a power of
// two: tiles are kBlockThreads * kMaxItems * kPasses positions for every shape).
constexpr uint32_t kMaxItems = 8;
// Passes of the block over its tile at the widest shape; narrower shapes
// (short periods) make proportionally more passes over the same tile.
constexpr uint32_t kPasses = 4;
// Positions per block tile; text staged in shared memory = tile + m - 1 halo.
constexpr uint32_t kTilePositions = kBlockThreads * kMaxItems * kPasses;
// Lanes that cooperate in one duel tree (a warp).
constexpr uint32_t kWarpLanes = 32;
// Threads per block of the brute-force and survivor-verify kernels.
constexpr uint32_t kSimpleThreads = 256;
// Multi-literal (batch) matcher: output records per text byte allocated up
// front (grown and rerun on overflow), and its minimum.
constexpr uint64_t kBatchRecordsMin = uint64_t{1} << 16;
constexpr uint64_t kBatchBytesPerRecord = 64;

} // namespace wm::gpu::exact::tuning
