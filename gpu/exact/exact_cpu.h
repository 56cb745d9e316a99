// gpu/exact/exact_cpu.h - the duel matcher on the CPU, walking exactly the
// kernel's shapes (lane runs, xor shuffle tree, one survivor per group) with
// the same exact_hd.h functions: CI without a GPU tests the device logic here.
#pragma once

#include "gpu/exact/exact_hd.h"

#include <cstdint>
#include <vector>

namespace wm::gpu::exact {

// Sorted start positions of every occurrence of p in text[0, n) (n < 2^32).
std::vector<uint32_t> duel_search_cpu(const uint8_t *text, uint64_t n, const PatternView &p);

// The survivors the elimination stage leaves (one entry per group of
// items * lanes positions, kNone where the group has none): what the
// two-kernel GPU variant writes before its verify kernel.
std::vector<uint32_t> duel_survivors_cpu(const uint8_t *text, uint64_t n, const PatternView &p);

} // namespace wm::gpu::exact
