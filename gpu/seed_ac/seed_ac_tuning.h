// gpu/seed_ac/seed_ac_tuning.h - every tuning constant of the seed_ac kernel
// family, in one place (CUB's tuning_*.cuh habit).
#pragma once

namespace wm::seed_ac {

struct CountPolicy {
    // Threads per block. 256 leaves room for several blocks per SM with a
    // 48 KB counter bin (occupancy hides the DFA's dependent loads).
    static constexpr int kBlockThreads = 256;
    // __launch_bounds__ minimum blocks per SM: lets ptxas use up to 64
    // registers (with no minimum it capped these kernels at 32 and spilled).
    static constexpr int kMinBlocksPerSm = 4;
    // Characters per thread tile; the study's TILE_SIZE. A multiple of 32 so
    // every tile starts on a word boundary for every packed width.
    static constexpr int kTileChars = 32;
    // Block-local counters in shared memory; states (or leaves) beyond this
    // fall back to global atomics (the study's split; BFS order makes the
    // states that fit the hot shallow ones).
    static constexpr int kMaxSharedCounters = 12288; // 48 KB
    // Longest overlap (M - 1) a launch accepts; bounds the staged text.
    static constexpr int kMaxOverlap = 1023;
    // Threads per block of the text generator and packer.
    static constexpr int kUtilThreads = 256;
};

static_assert(CountPolicy::kTileChars % 32 == 0, "tiles must start on word boundaries");
// Worst case: all counters plus staged byte text (one pad word per 8 words).
static_assert(CountPolicy::kMaxSharedCounters * 4 +
                      (CountPolicy::kBlockThreads * CountPolicy::kTileChars + CountPolicy::kMaxOverlap + 64) *
                              9 / 8 <=
                  227 * 1024,
              "shared-memory budget of one block exceeds the H100's 227 KB");

} // namespace wm::seed_ac
