// gpu/seed_ac/seed_ac_problem.h - the study's inputs: uniform random text and
// N random patterns of length M over [0, C), from fixed seeds, plus the plain
// references every kernel is checked against.
#pragma once

#include "gpu/seed_ac/seed_ac_automaton.h"

#include <cstdint>
#include <vector>

namespace wm::seed_ac {

// N patterns of length M, character j of pattern k = random_char(seed, k*M+j).
// Duplicates are kept (the study draws them independently too).
std::vector<Pattern> random_patterns(int count, int length, int alphabet, uint64_t seed);

// Characters [0, length) of text stream `seed`, one byte each, generated on
// all host cores; identical to what the device generator writes.
std::vector<uint8_t> random_text(uint64_t length, int alphabet, uint64_t seed);

// Packs one-byte characters into the `bits`-wide word layout of
// seed_ac_walk.h (bits in {1, 2, 4, 8}), zero-filled to `min_words` words.
std::vector<uint32_t> pack_text(const std::vector<uint8_t> &text, int bits, uint64_t min_words = 0);

// Naive reference: for each pattern, the number of positions where it occurs
// (overlapping occurrences counted). O(L * N * M): small cases only.
std::vector<uint64_t> naive_counts(const std::vector<uint8_t> &text,
                                   const std::vector<Pattern> &patterns);

} // namespace wm::seed_ac
