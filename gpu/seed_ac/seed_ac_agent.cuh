// gpu/seed_ac/seed_ac_agent.cuh - the block-level algorithm of every seed_ac
// kernel: for each block tile (grid-stride, so the grid is one resident
// wave and counters are flushed once per block), optionally stage the text
// in shared memory, walk each thread's tile (walk_tile, shared with the CPU),
// count visits the variant's way, and flush the shared counters at the end.
#pragma once

#include "gpu/seed_ac/seed_ac_variants.h"
#include "gpu/seed_ac/seed_ac_walk.h"

#include <cstdint>

namespace wm::seed_ac::detail {

struct CountParams {
    const int32_t *d_next;
    int alphabet;
    const uint32_t *d_words;
    uint64_t num_words;       // allocated, a multiple of 4
    uint64_t length;          // characters
    int overlap;              // M - 1
    uint32_t *d_visits;       // [num_states]
    int32_t counter_base;     // first state held in shared counters (first_leaf or 0)
    int shared_counters;      // how many states from counter_base live in shared memory
    uint64_t num_tiles;       // block tiles
    uint32_t stage_words;     // words staged per block tile (multiple of 4)
};

// Shared-memory text layout: each thread's words are contiguous, and one pad
// word follows every thread when that stride would be even, so the 32 lanes
// of a warp reading "their" word j hit 32 different banks.
template <int kWordsPerThread>
struct StagedLayout {
    static constexpr uint32_t kStride = kWordsPerThread + ((kWordsPerThread % 2 == 0) ? 1 : 0);
    __device__ __forceinline__ static uint32_t phys(uint32_t v) {
        return (v / kWordsPerThread) * kStride + v % kWordsPerThread;
    }
    __host__ __device__ static uint32_t size(uint32_t words) {
        return (words + kWordsPerThread - 1) / kWordsPerThread * kStride;
    }
};

// Policy P (seed_ac_tuning.h), kBits per character, kStaged: text staged in
// shared memory, kMode: how visits are counted.
template <class P, int kBits, bool kStaged, CountMode kMode>
struct CountAgent {
    static constexpr int kWordsPerThread = P::kTileChars * kBits / 32;
    static constexpr uint32_t kTileWords = P::kBlockThreads * kWordsPerThread;
    using Layout = StagedLayout<kWordsPerThread>;
    static_assert(kTileWords % 4 == 0, "block tiles must start on 16-byte vectors");

    const CountParams &p;
    uint32_t *s_counters; // [p.shared_counters] (kMode != kGlobalAll)
    uint32_t *s_text;     // [Layout::size(p.stage_words)] (kStaged)

    __device__ CountAgent(const CountParams &params, uint32_t *smem)
        : p(params), s_counters(smem),
          s_text(smem + (kMode == CountMode::kGlobalAll ? 0 : params.shared_counters)) {}

    __device__ __forceinline__ void count(int32_t s) const {
        if constexpr (kMode == CountMode::kGlobalAll) {
            atomicAdd(&p.d_visits[s], 1u);
        } else {
            if (kMode == CountMode::kSharedLeaf && s < p.counter_base) return;
            const int32_t u = s - p.counter_base;
            // The study's split: states past the shared bin go to global memory.
            if (u < p.shared_counters)
                atomicAdd(&s_counters[u], 1u);
            else
                atomicAdd(&p.d_visits[s], 1u);
        }
    }

    // Coalesced 16-byte loads of the block tile plus its overlap; streaming
    // hint (read once) so the text does not evict the DFA table from L2.
    __device__ __forceinline__ void stage(uint64_t w0) const {
        const uint64_t avail = p.num_words - w0;
        const uint32_t n = avail < p.stage_words ? static_cast<uint32_t>(avail) : p.stage_words;
        const uint4 *src = reinterpret_cast<const uint4 *>(p.d_words + w0);
        for (uint32_t v4 = threadIdx.x; v4 < n / 4; v4 += P::kBlockThreads) {
            const uint4 x = __ldcs(src + v4);
            s_text[Layout::phys(4 * v4 + 0)] = x.x;
            s_text[Layout::phys(4 * v4 + 1)] = x.y;
            s_text[Layout::phys(4 * v4 + 2)] = x.z;
            s_text[Layout::phys(4 * v4 + 3)] = x.w;
        }
    }

    __device__ void run() const {
        if constexpr (kMode != CountMode::kGlobalAll) {
            for (int i = threadIdx.x; i < p.shared_counters; i += P::kBlockThreads) s_counters[i] = 0;
            __syncthreads();
        }
        constexpr uint32_t kPer = 32 / kBits;
        const auto counter = [this](int32_t s) { count(s); };
        for (uint64_t tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
            const uint64_t w0 = tile * kTileWords;
            const uint64_t begin = w0 * kPer + static_cast<uint64_t>(threadIdx.x) * P::kTileChars;
            uint64_t end = begin + P::kTileChars + p.overlap;
            if (end > p.length) end = p.length;
            if constexpr (kStaged) {
                stage(w0);
                __syncthreads();
                const uint32_t *st = s_text;
                const auto words = [st, w0](uint64_t w) {
                    return st[Layout::phys(static_cast<uint32_t>(w - w0))];
                };
                if (begin < end) walk_tile<kBits>(p.d_next, p.alphabet, words, begin, end, counter);
                __syncthreads(); // before the next tile overwrites s_text
            } else {
                const uint32_t *g = p.d_words;
                const auto words = [g](uint64_t w) { return __ldg(g + w); };
                if (begin < end) walk_tile<kBits>(p.d_next, p.alphabet, words, begin, end, counter);
            }
        }
        if constexpr (kMode != CountMode::kGlobalAll) {
            __syncthreads();
            // Once per block: only non-zero bins cost a global atomic.
            for (int i = threadIdx.x; i < p.shared_counters; i += P::kBlockThreads) {
                const uint32_t v = s_counters[i];
                if (v) atomicAdd(&p.d_visits[p.counter_base + i], v);
            }
        }
    }
};

} // namespace wm::seed_ac::detail
