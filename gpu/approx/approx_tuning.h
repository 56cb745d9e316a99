// gpu/approx/approx_tuning.h - every tuning constant of the approximate
// matching kernels, in one place. Host-safe (no CUDA includes): the host
// compiler, planner and CPU walks size things with the same numbers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wm::approx::tuning {

// --- seed (Man, Nakano, Ito 2014): m threads per block, D blocks, by definition.
constexpr uint32_t kSeedMaxM = 1024;  // one thread per pattern row, <= max block size

// --- k-differences search (bit-parallel). One warp scans one payload chunk for
// 32 rules at once (one rule per lane): every lane consumes the same text byte,
// so the Peq table laid out [byte][word][lane] gives conflict-free loads.
constexpr uint32_t kLanes = 32;
constexpr uint32_t kWarpsPerBlock = 8;
constexpr uint32_t kBlockThreads = kLanes * kWarpsPerBlock;
// Bytes of text each warp owns per work item (ends reported there); the warp
// first re-reads up to max(m + k) bytes before it to warm its DP state.
constexpr uint32_t kChunkBytes = 2048;
// Largest pattern on the GPU: 16 words of 64 rows.
constexpr uint32_t kMaxWords = 16;
// Peq tables of groups with at most this many words are staged in shared
// memory (64 KB per word); wider groups read them through L1.
constexpr uint32_t kSmemPeqMaxWords = 2;
// Hamming runs Shift-And with kmax + 1 levels in registers: kmax in {3, 7},
// and words * (kmax + 1) <= kHammingMaxStateWords.
constexpr uint32_t kHammingMaxK = 7;
constexpr uint32_t kHammingMaxStateWords = 16;
// Resident blocks per SM assumed when sizing the persistent grid.
constexpr uint32_t kBlocksPerSm = 2;
// Initial output records (grown and rescanned on overflow).
constexpr size_t kInitialOutputRecords = size_t{1} << 20;
// Prefilter verification: threads per block (one candidate window each).
constexpr uint32_t kVerifyBlockThreads = 128;

} // namespace wm::approx::tuning
