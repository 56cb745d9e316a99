// gpu/seed_ac/seed_ac_gpu.h - host entry of the seed_ac kernels (CUDA builds).
//
// Lifecycle: build an Automaton on the host (seed_ac_automaton.h), copy its
// `next` table to the device once, put the text on the device in the word
// layout of seed_ac_walk.h (generate_text / pack_text, or your own copy),
// zero a visits buffer, then count_visits() per variant; every call takes a
// stream and allocates nothing.
#pragma once

#include "gpu/seed_ac/seed_ac_variants.h"

#include <cuda_runtime_api.h>
#include <cstdint>

namespace wm::seed_ac {

// The dense DFA on the device (input, read only).
struct DeviceAutomaton {
    const int32_t *d_next = nullptr; // [num_states * alphabet]
    int num_states = 0;
    int alphabet = 0;
    int32_t first_leaf = -1;         // Automaton::first_leaf; needed by kSharedLeaf
};

// Text on the device (input, read only), `bits` per character.
struct DeviceText {
    const uint32_t *d_words = nullptr;
    uint64_t length = 0;    // characters
    int bits = 8;           // 1, 2, 4 or 8
    uint64_t num_words = 0; // allocated words: text_words(length, bits) or more
};

// Words to allocate for `length` characters of `bits` bits: rounded up to
// whole 16-byte vectors, which the staging loads read.
uint64_t text_words(uint64_t length, int bits);

// What a launch used, for the benchmark's report.
struct LaunchInfo {
    int grid = 0;
    int block = 0;
    size_t shared_bytes = 0;
    int shared_counters = 0; // states (or leaves) counted in shared memory
};

// Adds, for each state, the number of times the walk of `variant` enters it
// to d_visits[state] (output, num_states uint32, zeroed by the caller):
// every state for kGlobalAll/kSharedAll, leaves only for kSharedLeaf. The
// text layout must match the variant (traits(v).packed: bits_for_alphabet,
// else 8) and `a` its order. pattern_length is M (the walk overlaps M - 1).
// Throws std::invalid_argument on mismatches, std::runtime_error on CUDA errors.
LaunchInfo count_visits(Variant variant, const DeviceAutomaton &a, const DeviceText &text,
                        int pattern_length, uint32_t *d_visits, cudaStream_t stream);

// Writes text stream `seed` (seed_ac_hd.h random_char) as one-byte characters
// into d_bytes (output, num_words words, zero past `length`).
void generate_text(uint32_t *d_bytes, uint64_t num_words, uint64_t length, int alphabet, uint64_t seed,
                   cudaStream_t stream);

// Packs one-byte text (input, text_words(length, 8) words) into `bits`-wide
// characters in d_packed (output, num_words words, zero past `length`).
void pack_text(const uint32_t *d_bytes, uint64_t length, int bits, uint32_t *d_packed,
               uint64_t num_words, cudaStream_t stream);

} // namespace wm::seed_ac
