// gpu/ac_set_hash.cuh - Set-mode dedupe of (payload, pattern) keys on the
// device, in two levels (device only; the CPU walk has no Set mode), and at
// the end Count's shared (pattern, count) table, which works like level 1:
//   1. a small open-addressing table in shared memory per block and work unit
//      absorbs the repeats (real traffic: ~0.3 matches per byte, most of them
//      the same few rules again and again in one payload); its keys are 32
//      bits, relative to the unit's first payload (ac_set_keys.h);
//   2. at the end of the unit each distinct key of a payload that other units
//      share goes into a chunk-wide table in global memory (2x the output
//      capacity, so probing stays short), and only a key inserted for the
//      first time is appended to the output; a key of a payload that lies
//      wholly inside the unit is final as it is and appended directly (a key
//      is either in the shared table or, when its probes found no room, in
//      the global one, never in both: slots are not freed within a unit).
// The output thus holds every distinct key once, with no sort afterwards.
// A key that finds neither itself nor a free slot within PROBES slots raises
// d_count[1]; the host then grows the buffers and rescans (never a silent
// drop). The bound keeps an overflowing chunk from probing a full table.
#pragma once

#include "gpu/ac_set_keys.h"

#include <cstdint>

namespace wm::gpu {

constexpr unsigned long long kEmptyKey = ~0ull; // payload 2^32-1 and pattern 2^32-1 never occur

__device__ inline uint32_t set_hash(unsigned long long key) {
    return static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ull) >> 32);
}

// Inserts `key` into the chunk-wide table d_hash[mask + 1]; returns true when
// it was not there yet (the caller appends it). A key that finds neither
// itself nor a free slot raises d_count[1] and returns false.
template <uint32_t PROBES>
__device__ inline bool set_global_claim(unsigned long long key, unsigned long long *d_hash, uint32_t mask,
                                        uint32_t *d_count) {
    uint32_t h = set_hash(key) & mask;
    for (uint32_t probe = 0; probe < PROBES && probe <= mask; ++probe) {
        const unsigned long long prev = atomicCAS(&d_hash[h], kEmptyKey, key);
        if (prev == kEmptyKey) return true;
        if (prev == key) return false;
        h = (h + 1) & mask;
    }
    atomicAdd(&d_count[1], 1u); // crowded table: force grow + rescan
    return false;
}

// set_global_claim, then appends a new key to d_keys (capacity entries,
// d_count[0] appended so far). One lane's key; the flush at the end of a unit
// appends a warp's keys together instead.
template <uint32_t PROBES>
__device__ inline void set_global_insert(unsigned long long key, unsigned long long *d_hash, uint32_t mask,
                                         unsigned long long *d_keys, uint32_t capacity, uint32_t *d_count) {
    if (!set_global_claim<PROBES>(key, d_hash, mask, d_count)) return;
    const uint32_t idx = atomicAdd(&d_count[0], 1u);
    if (idx < capacity) d_keys[idx] = key;
}

// First probe slot of a 32-bit key in a shared table of SLOTS (a power of
// two, at most 2^16) slots: Fibonacci hashing, bits 16 and up.
template <uint32_t SLOTS> __device__ inline uint32_t shared_slot(uint32_t key) {
    static_assert((SLOTS & (SLOTS - 1)) == 0 && SLOTS <= (1u << 16), "SLOTS is a power of two, at most 2^16");
    return (key * 0x9E3779B1u) >> 16 & (SLOTS - 1);
}

// Inserts level-1 key `key` into the block's shared table s_hash[SLOTS];
// returns false when PROBES slots were taken by other keys (the caller
// inserts globally instead).
template <uint32_t SLOTS, uint32_t PROBES>
__device__ inline bool set_shared_insert(uint32_t key, uint32_t *s_hash) {
    uint32_t h = shared_slot<SLOTS>(key);
    for (uint32_t probe = 0; probe < PROBES; ++probe) {
        const uint32_t prev = atomicCAS(&s_hash[h], kEmptySetSlot, key);
        if (prev == kEmptySetSlot || prev == key) return true;
        h = (h + 1) & (SLOTS - 1);
    }
    return false;
}

constexpr uint32_t kEmptyPattern = ~0u; // a free slot of the Count table

// Count: adds one to `pattern`'s slot in the block's shared table (SLOTS
// pattern ids, kEmptyPattern when free, then SLOTS counts); returns false when
// PROBES slots were taken by other patterns (the caller adds globally).
// Slots are only claimed (never freed) until the flush after a barrier, so
// a plain read that sees another pattern is final.
template <uint32_t SLOTS, uint32_t PROBES>
__device__ inline bool count_shared_add(uint32_t pattern, uint32_t *s_table) {
    uint32_t h = shared_slot<SLOTS>(pattern);
    for (uint32_t probe = 0; probe < PROBES; ++probe) {
        uint32_t k = s_table[h];
        if (k == kEmptyPattern) {
            k = atomicCAS(&s_table[h], kEmptyPattern, pattern);
            if (k == kEmptyPattern) k = pattern;
        }
        if (k == pattern) {
            atomicAdd(&s_table[SLOTS + h], 1u);
            return true;
        }
        h = (h + 1) & (SLOTS - 1);
    }
    return false;
}

} // namespace wm::gpu
