// gpu/ac_set_keys.h - the Set kernel's level-1 keys (ac_set_hash.cuh):
// host-safe, so the CPU tests check the packing the kernel uses.
#pragma once

#include "gpu/ac_blob.h"  // kOutIdMask
#include "gpu/ac_scope.h" // WM_HD, significant_bits

#include <cstdint>

namespace wm::gpu {

// Level 1 holds 32-bit keys relative to the unit's first payload (its tiles'
// payloads follow it): (payload - first) << pattern_bits | pattern, so a
// slot is half as wide and the table holds twice the keys in the same
// shared memory. A key whose payload offset does not fit goes to level 2 as
// it is. kEmptySetSlot (every bit set) is never a key: the offset's top
// value is left out.
constexpr uint32_t kEmptySetSlot = ~0u;

// Bits of a level-1 key's pattern field for num_patterns patterns: those of
// the largest pattern id, 1 to 30 (a blob holds at most 2^29 patterns, kOutIdMask).
static_assert(kOutIdMask <= (1u << 30) - 1, "pattern ids fit 30 bits");
WM_HD inline uint32_t set_pattern_bits(uint32_t num_patterns) {
    const uint32_t b = significant_bits(num_patterns > 2 ? num_patterns - 1 : 1);
    return b < 30 ? b : 30;
}

// The level-1 key of (payload, pattern) in a unit whose first payload is
// `first`, or kEmptySetSlot when the payload lies too far from it.
WM_HD inline uint32_t set_unit_key(uint32_t payload, uint32_t pattern, uint32_t first, uint32_t bits) {
    const uint32_t rel = payload - first;
    return rel < (~0u >> bits) ? rel << bits | pattern : kEmptySetSlot;
}

// The full key of level-1 key k (set_unit_key's inverse).
WM_HD inline unsigned long long set_full_key(uint32_t k, uint32_t first, uint32_t bits) {
    return static_cast<unsigned long long>(first + (k >> bits)) << 32 | (k & ((1u << bits) - 1));
}

} // namespace wm::gpu
