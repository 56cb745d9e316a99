// gpu/seed_ac/seed_ac_automaton.cpp - trie, failure links, dense DFA, reordering.
#include "gpu/seed_ac/seed_ac_automaton.h"

#include <stdexcept>
#include <string>

namespace wm::seed_ac {
namespace {

// Trie in creation order: child[s * alphabet + c], -1 when absent.
struct Trie {
    std::vector<int32_t> child;
    std::vector<int32_t> depth;
    std::vector<int32_t> terminal_of; // per pattern
};

Trie build_trie(const std::vector<Pattern> &patterns, int alphabet) {
    Trie t;
    t.child.assign(alphabet, -1);
    t.depth.assign(1, 0);
    for (size_t k = 0; k < patterns.size(); ++k) {
        const Pattern &p = patterns[k];
        if (p.empty()) throw std::invalid_argument("pattern " + std::to_string(k) + " is empty");
        int32_t s = 0;
        for (uint8_t c : p) {
            if (c >= alphabet)
                throw std::invalid_argument("pattern " + std::to_string(k) + " has character " +
                                            std::to_string(c) + " outside the alphabet");
            const size_t at = static_cast<size_t>(s) * alphabet + c;
            if (t.child[at] < 0) {
                t.child[at] = static_cast<int32_t>(t.depth.size());
                t.depth.push_back(t.depth[s] + 1);
                t.child.resize(t.child.size() + alphabet, -1); // invalidates references: index only
            }
            s = t.child[at];
        }
        t.terminal_of.push_back(s);
    }
    return t;
}

std::vector<int32_t> breadth_first(const Trie &t, int alphabet) {
    std::vector<int32_t> order{0};
    order.reserve(t.depth.size());
    for (size_t head = 0; head < order.size(); ++head)
        for (int c = 0; c < alphabet; ++c) {
            const int32_t ch = t.child[static_cast<size_t>(order[head]) * alphabet + c];
            if (ch >= 0) order.push_back(ch);
        }
    return order;
}

template <class V>
std::vector<uint64_t> fold(const Automaton &a, const V *visits) {
    std::vector<uint64_t> total(visits, visits + a.num_states);
    // Reverse breadth-first: every state is final before its failure target
    // (strictly shallower) receives it.
    for (size_t k = a.bfs.size(); k-- > 1;) {
        const int32_t s = a.bfs[k];
        total[a.fail[s]] += total[s];
    }
    std::vector<uint64_t> out(a.pattern_state.size());
    for (size_t k = 0; k < out.size(); ++k) out[k] = total[a.pattern_state[k]];
    return out;
}

} // namespace

Automaton build_automaton(const std::vector<Pattern> &patterns, int alphabet, StateOrder order) {
    if (alphabet < 1 || alphabet > 256) throw std::invalid_argument("alphabet must be in [1, 256]");
    if (patterns.empty()) throw std::invalid_argument("no patterns");
    const Trie t = build_trie(patterns, alphabet);
    const std::vector<int32_t> bfs_old = breadth_first(t, alphabet);
    const int32_t n = static_cast<int32_t>(t.depth.size());

    // id[old] = new id; identity in insertion order.
    std::vector<int32_t> id(n);
    for (int32_t s = 0; s < n; ++s) id[s] = s;
    if (order == StateOrder::kBreadthFirst)
        for (int32_t k = 0; k < n; ++k) id[bfs_old[k]] = k;

    Automaton a;
    a.alphabet = alphabet;
    a.num_states = n;
    a.order = order;
    a.next.assign(static_cast<size_t>(n) * alphabet, 0);
    a.fail.assign(n, 0);
    a.depth.assign(n, 0);
    a.bfs.resize(n);
    for (int32_t k = 0; k < n; ++k) a.bfs[k] = id[bfs_old[k]];
    for (int32_t s = 0; s < n; ++s) a.depth[id[s]] = t.depth[s];

    // Classic construction in breadth-first order: a missing child takes the
    // failure target's transition, which is already complete (shallower).
    for (int32_t old : bfs_old) {
        const int32_t s = id[old];
        for (int c = 0; c < alphabet; ++c) {
            const int32_t ch = t.child[static_cast<size_t>(old) * alphabet + c];
            int32_t &slot = a.next[static_cast<size_t>(s) * alphabet + c];
            if (ch >= 0) {
                slot = id[ch];
                a.fail[id[ch]] = (s == 0) ? 0 : a.next[static_cast<size_t>(a.fail[s]) * alphabet + c];
            } else {
                slot = (s == 0) ? 0 : a.next[static_cast<size_t>(a.fail[s]) * alphabet + c];
            }
        }
    }

    a.pattern_length = static_cast<int>(patterns[0].size());
    for (const Pattern &p : patterns)
        if (static_cast<int>(p.size()) != a.pattern_length) a.pattern_length = 0;
    a.pattern_state.reserve(patterns.size());
    for (int32_t s : t.terminal_of) a.pattern_state.push_back(id[s]);

    if (order == StateOrder::kBreadthFirst && a.pattern_length > 0) {
        // Equal lengths: accepting states are exactly the depth-M states, and
        // breadth-first order puts them last.
        int32_t k = n;
        while (k > 0 && a.depth[k - 1] == a.pattern_length) --k;
        a.first_leaf = k;
    }
    return a;
}

std::vector<uint64_t> pattern_counts(const Automaton &a, const uint32_t *visits) {
    return fold(a, visits);
}
std::vector<uint64_t> pattern_counts(const Automaton &a, const uint64_t *visits) {
    return fold(a, visits);
}

} // namespace wm::seed_ac
