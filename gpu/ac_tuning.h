// gpu/ac_tuning.h - every tuning constant of the Aho-Corasick kernels.
// Host-only-safe (no CUDA includes): the planner and CPU walk use the same tile.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wm::gpu::tuning {

// Threads per block of the scan/count kernels.
constexpr uint32_t kBlockThreads = 256;
// Shared memory of an SM's resident blocks, at most (H100/H200: the carveout
// steps are 132, 164, 196 and 228 KB; the rest of the 256 KB is L1, which
// caches the hot transition rows). Six blocks in 196 KB left 60 KB of L1:
// against 228 KB (28 KB of L1) the ET Set kernel ran 3k patterns 45% and
// the full set 8% faster (run 108); five blocks with 92 KB of L1 were
// slower than six with 60 (run 108). Six in 164 KB (92 KB of L1, bought with
// 52-byte tiles and 88-entry queues) against 196: Count +4% / +2% at 3k /
// 18k patterns, Positions +9% / +1%, Set +1% / 0 (run 114). The kernels
// assert they fit (ac_agent.cuh).
constexpr uint32_t kSmemPerSmBytes = 164u << 10;
// Shared memory the hardware reserves per resident block.
constexpr uint32_t kSmemReservedPerBlock = 1024;
// Blocks per SM the register allocation must allow (__launch_bounds__): 6
// caps the kernels at 40 registers (75% occupancy with the shared memory
// below). Without it ptxas took 48, and 88 with a minimum of 1 (2 blocks);
// the ET Set kernel ran 40 GB/s at 2 blocks, 48 at 4, 65 at 6 (runs 41-42).
constexpr uint32_t kMinBlocksPerSm = 6;
// Bytes each thread owns (its tile). 52 = 13 words: consecutive threads read
// shared memory at an odd word stride, so a warp's byte loads hit distinct banks.
// 52 instead of 60 cost 1-2% alone (more tiles, more run-outs, run 114) and
// frees the staging bytes that fit kSmemPerSmBytes.
// Small tiles keep the staging buffer small (occupancy) and the lanes of a
// warp balanced on tiny payloads. A lane walks on past its tile until no key
// that starts in it can still end (ac_walk.cuh): ~1-2 bytes on real traffic.
constexpr uint32_t kTileBytes = 52;
// Tiles between the tiles of consecutive lanes of a warp: thread t of a
// block walks tile (t * kLaneTileStride) mod kBlockThreads of its unit, so
// each warp's 32 tiles are spread over the whole unit rather than being 32
// neighbours. Neighbouring tiles share a payload and its match density, so
// warps of contiguous tiles finished a unit at different times and the
// block waited at the unit's end on its slowest warp (ET Open on zeek: the
// slowest warp took 14% longer than the mean, spread 4%; a CPU count of
// steps and drain rounds). Odd, so lanes of one payload still read
// distinct shared-memory banks (13-word tiles: 13 * 9 = 117 words apart).
constexpr uint32_t kLaneTileStride = 9;
static_assert(kLaneTileStride % 2 == 1, "an odd stride: a permutation of a unit's tiles");
static_assert(kTileBytes % 4 == 0 && (kTileBytes / 4 * kLaneTileStride) % 2 == 1,
              "lanes within one payload an odd number of words apart: distinct banks");
// Bytes staged in shared memory before the block's first tile (leading bytes
// of long patterns, a continuation piece's warm-up); bytes further back are
// read from global memory.
constexpr uint32_t kStageBefore = 64;
// Trie depth limit (key bytes), see ac_compile.h.
// 16: a run-out of at most 16 bytes per tile and 171k instead of 223k ET Open states. The
// 7,230 of 17,918 ET literals longer than 16 bytes are confirmed by their
// leading bytes on a key hit (kOutCheck); such hits are rare on real traffic.
constexpr uint32_t kKeyBytes = 16;
// Dense-row budget over all groups: 1/16 of the device's memory, at most
// 512 MB. A state past the budget (BFS order) is sparse: a 16-byte record
// of the classes where its row differs from a dense fallback's, so its step
// is a record load, a search and often a second load. The full ET set
// (141,169 states of 230 classes: 130 MB of dense rows) on an H100, 2 GB of
// zeek payloads, Set GB/s: 12 MB 111, 24 MB 115, 40 MB 117 (run 163); in
// run 218: 40 MB 134.5, 48 MB 136.1, 64 MB 137.5, 96 MB 138.5, every row
// dense 141.1. A warp steps its sparse lanes apart from its dense ones,
// and with 40 MB 29% of its steps had a sparse lane (7% of lane steps); the
// cold rows' misses in L2 cost less. With no sparse state at all, the
// kernels walk without the sparse step (ac_all_dense).
constexpr size_t kDenseBudgetMaxBytes = size_t{512} << 20;
// Budget when the device's memory size is unknown (0).
constexpr size_t kDenseBudgetBytes = size_t{24} << 20;
// The dense-row budget for a device with device_bytes of memory.
inline size_t dense_budget_bytes(size_t device_bytes) {
    if (device_bytes == 0) return kDenseBudgetBytes;
    const size_t share = device_bytes / 16;
    return share < kDenseBudgetMaxBytes ? share : kDenseBudgetMaxBytes;
}
// Set mode: shared-memory dedupe table per block (slots of 4 bytes: keys
// relative to the unit's first payload, ac_set_hash.cuh; power of two) and
// the linear-probe limit before a key goes straight to the global table.
// 4 KB fits kSmemPerSmBytes. 256 8-byte slots against 512 had left 3k
// patterns 4% faster and the full ET set 6% slower (run 109); with 512, 16% of
// the full set's units on zeek payloads had more distinct keys than slots
// (p95 1,106 keys), 22% of the keys going to the global table, and each
// repeat of such a key probing 16 slots before its global CAS; with 1024,
// 5% of units and 6% of keys (a CPU count). 1024 4-byte slots against 512
// 8-byte ones, the flush four slots per lane: Set on the full ET set +12%,
// 1k and 3k patterns -1% (H100, runs 142-143). 8 or 32 probes instead of 16
// ran within 1% of it (run 146).
constexpr uint32_t kSetHashSlots = 1024;
constexpr uint32_t kSetHashProbes = 16;
constexpr size_t kSetHashBytes = size_t{kSetHashSlots} * sizeof(uint32_t); // dynamic shared memory
// Count mode past kCountHashSlots * 2 patterns (per-pattern shared counters
// below): a shared table of (pattern, count) slots per block, flushed into the
// totals per unit; a pattern that finds no slot in kCountHashProbes adds to
// its global total directly. 512 slots (4 KB) fit kSmemPerSmBytes.
constexpr uint32_t kCountHashSlots = 512;
constexpr uint32_t kCountHashProbes = 16;
constexpr size_t kCountHashBytes = size_t{kCountHashSlots} * 2 * sizeof(uint32_t); // keys, counts
// Probe limit in the chunk-wide table (load <= 1/2 when the output fits, so
// ~2 probes expected); past it the chunk is rescanned with bigger buffers.
constexpr uint32_t kSetGlobalProbes = 64;
// Match queue per warp (entries of 8 bytes, shared memory): a warp drains it
// together once it could overflow on the next step (> kWarpQueue - 32 per
// group entries). 88: 25.7 KB of shared memory per Set block with its table,
// six blocks in kSmemPerSmBytes; 80 against 120 changed nothing (run 109).
constexpr uint32_t kWarpQueue = 88;
// Positions: records a warp stages in shared memory (12 bytes each) before
// one atomic reserves their output slots; flushed once another round of up
// to 32 could overflow it, so a flush writes 17-48 records. 48 (4.5 KB per
// block) is what fits kSmemPerSmBytes.
constexpr uint32_t kPositionsStage = 48;
// Positions: output slots a warp reserves at once, at most (one atomic on
// the chunk's counter); the slots a warp leaves unused (the rest of a slab a
// flush did not fit, and of its last slab) are holes the host skips
// (ac_positions_order.h). ac_dispatch_scan halves it, to 128 at least, while
// the last slabs' holes could exceed a sixteenth of the output capacity.
// 256 to 2048 ran the same (run 133).
constexpr uint32_t kPositionsSlab = 512;
static_assert(kPositionsStage <= 128, "a flush's records fit one new slab");
// Queue entries keep a state id in 26 bits (the kernels refuse bigger groups).
constexpr uint32_t kQueueStateBits = 26;

// Chunks in flight (one CUDA stream each). 4: the host waits on chunk k while
// k + 1 .. k + 3 are queued, which keeps the copy engine busy (H2D per chunk
// is about as long as its scan on the ET set). 6 was tried (run 88): the C
// API four batches deep was unchanged (44.3-44.6 against 44.2-44.9 GB/s), and
// the matcher two calls deep over 74 MB calls fell from 41.3-41.5 to 30.5-31.2
// GB/s, some chunks' pair copies back finishing ~1.5 ms late.
constexpr uint32_t kStreams = 4;
// Largest chunk the matcher cuts a batch into, whatever the caller's batch
// size: a 256 MB batch in one chunk ran plan, copy, scan and copy-back one
// after another (15.6 GB/s, run 43); in chunks, the host plans chunk k + 1 and
// its copy runs while chunk k is scanned.
constexpr size_t kMaxChunkBytes = size_t{32} << 20;
// A batch's last chunk may be this fraction larger (buffers are sized for
// it): chunks end at payload boundaries below their limit, so a 64 MB batch
// was two chunks and a sliver of a few bytes, and each sliver held a slot
// through a launch and its passes (run 86: 8 of 41 chunks).
constexpr size_t kChunkTailSlackDivisor = 32;
// Initial output records per stream: max(kMinOutputRecords, chunk bytes / kBytesPerOutput).
constexpr size_t kMinOutputRecords = size_t{1} << 16;
constexpr size_t kBytesPerOutput = 32;

} // namespace wm::gpu::tuning
