// gpu/seed_ac/seed_ac_cpu_walk.h - the kernels' walk run on the host: the same
// walk_tile() (seed_ac_walk.h) over the same tiles, so its per-state visit
// counts equal a kernel's exactly; and the CPU peer of the benchmark.
#pragma once

#include "gpu/seed_ac/seed_ac_automaton.h"

#include <cstdint>
#include <vector>

namespace wm::seed_ac {

struct WalkOptions {
    uint64_t tile = 32;        // characters per thread tile (multiple of 32)
    int overlap = 0;           // M - 1: characters walked past the tile end
    bool leaves_only = false;  // count only states >= first_leaf (EqLength)
};

// Visits per state of a walk over text `words` (layout of seed_ac_walk.h,
// `bits` wide, `length` characters), tile by tile, one tile at a time.
std::vector<uint64_t> cpu_walk(const Automaton &a, const uint32_t *words, int bits, uint64_t length,
                               const WalkOptions &opt);

// The CPU peer: the same walk split into one large tile per worker (on
// `threads` threads, 0 = all host cores), leaves only, over one-byte text.
// Requires equal-length patterns and breadth-first order. Returns visits per
// state (non-leaves zero).
std::vector<uint64_t> cpu_peer_visits(const Automaton &a, const uint8_t *text, uint64_t length,
                                      unsigned threads = 0);

} // namespace wm::seed_ac
