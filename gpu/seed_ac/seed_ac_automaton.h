// gpu/seed_ac/seed_ac_automaton.h - the study's automaton, built on the host:
// a trie over a small alphabet, failure links, and the dense DFA table
// next[state * alphabet + c] with failure transitions folded in. Kernels
// count visits per state; pattern_counts() sums them along the failure tree.
#pragma once

#include <cstdint>
#include <vector>

namespace wm::seed_ac {

// Patterns are strings over [0, alphabet), one byte per character.
using Pattern = std::vector<uint8_t>;

enum class StateOrder {
    kInsertion, // ids in trie creation order, as the study's baseline builds them
    kBreadthFirst, // ids by depth: hot shallow states first, leaves last (the study's reordering)
};

struct Automaton {
    int alphabet = 0;
    int num_states = 0;           // including the root (state 0)
    int pattern_length = 0;       // common length of all patterns, 0 when lengths differ
    StateOrder order = StateOrder::kInsertion;
    std::vector<int32_t> next;    // [num_states * alphabet], the full DFA
    std::vector<int32_t> fail;    // failure link per state (root: 0)
    std::vector<int32_t> depth;   // distance from the root
    std::vector<int32_t> bfs;     // state ids in breadth-first order (root first)
    std::vector<int32_t> pattern_state; // per input pattern: its accepting state
    // Breadth-first order with equal-length patterns puts every accepting
    // state (all at depth M, all trie leaves) in [first_leaf, num_states);
    // -1 when that does not hold (insertion order or mixed lengths).
    int32_t first_leaf = -1;

    int num_leaves() const { return first_leaf < 0 ? 0 : num_states - first_leaf; }
    uint64_t table_bytes() const { return next.size() * sizeof(int32_t); }
};

// Builds the automaton. Throws std::invalid_argument on an empty pattern, a
// character >= alphabet, alphabet outside [1, 256] or no patterns.
Automaton build_automaton(const std::vector<Pattern> &patterns, int alphabet, StateOrder order);

// Per-pattern occurrence counts from per-state visit counts (`visits` has
// num_states entries): each state's visits are added to its failure
// ancestors, deepest first, so a state's total counts every position whose
// longest matched suffix passes through it.
std::vector<uint64_t> pattern_counts(const Automaton &a, const uint32_t *visits);
std::vector<uint64_t> pattern_counts(const Automaton &a, const uint64_t *visits);

} // namespace wm::seed_ac
