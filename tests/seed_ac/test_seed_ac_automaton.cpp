// tests/seed_ac/test_seed_ac_automaton.cpp - the dense DFA against its
// definition (brute-force longest suffix), state orders, errors.
#include "gpu/seed_ac/seed_ac_automaton.h"
#include "gpu/seed_ac/seed_ac_problem.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>

namespace {

using namespace wm::seed_ac;

// The string each state stands for, recovered through the DFA from the root
// along trie edges (depth + 1 == child depth), breadth first.
std::vector<Pattern> state_strings(const Automaton &a) {
    std::vector<Pattern> str(a.num_states);
    std::vector<bool> seen(a.num_states, false);
    seen[0] = true;
    for (int32_t s : a.bfs)
        for (int c = 0; c < a.alphabet; ++c) {
            const int32_t t = a.next[size_t(s) * a.alphabet + c];
            if (!seen[t] && a.depth[t] == a.depth[s] + 1) {
                seen[t] = true;
                str[t] = str[s];
                str[t].push_back(uint8_t(c));
            }
        }
    return str;
}

// Checks every transition and failure link against the definition: the
// longest suffix of (string + c) that is a trie node.
void check_against_definition(const Automaton &a) {
    const auto str = state_strings(a);
    std::map<Pattern, int32_t> node;
    for (int32_t s = 0; s < a.num_states; ++s) node[str[s]] = s;
    ASSERT_EQ(node.size(), size_t(a.num_states)) << "state strings are not distinct";
    auto longest_suffix = [&](const Pattern &w, size_t min_drop) {
        for (size_t drop = min_drop; drop <= w.size(); ++drop) {
            auto it = node.find(Pattern(w.begin() + drop, w.end()));
            if (it != node.end()) return it->second;
        }
        return int32_t(0);
    };
    for (int32_t s = 0; s < a.num_states; ++s) {
        if (s != 0) EXPECT_EQ(a.fail[s], longest_suffix(str[s], 1)) << "fail of state " << s;
        for (int c = 0; c < a.alphabet; ++c) {
            Pattern w = str[s];
            w.push_back(uint8_t(c));
            EXPECT_EQ(a.next[size_t(s) * a.alphabet + c], longest_suffix(w, 0))
                << "state " << s << " char " << c;
        }
    }
}

TEST(SeedAcAutomaton, TransitionsMatchDefinitionOnRandomSets) {
    for (int alphabet : {2, 3, 4, 7})
        for (StateOrder order : {StateOrder::kInsertion, StateOrder::kBreadthFirst}) {
            SCOPED_TRACE(::testing::Message() << "C=" << alphabet << " bfs=" << (order == StateOrder::kBreadthFirst));
            // Mixed lengths, duplicates likely for C=2.
            std::vector<Pattern> pats;
            for (int m : {1, 2, 3, 5, 8})
                for (const auto &p : random_patterns(12, m, alphabet, 77 + m)) pats.push_back(p);
            const Automaton a = build_automaton(pats, alphabet, order);
            check_against_definition(a);
            for (size_t k = 0; k < pats.size(); ++k)
                EXPECT_EQ(a.depth[a.pattern_state[k]], int(pats[k].size()));
            EXPECT_EQ(a.pattern_length, 0);
            EXPECT_EQ(a.first_leaf, -1);
        }
}

TEST(SeedAcAutomaton, CompleteTreeHasExpectedStateCount) {
    // All 2^k strings of length k: a complete binary trie of 2^(k+1) - 1 states.
    for (int k = 1; k <= 10; ++k) {
        std::vector<Pattern> pats;
        for (int x = 0; x < (1 << k); ++x) {
            Pattern p(k);
            for (int j = 0; j < k; ++j) p[j] = uint8_t((x >> j) & 1);
            pats.push_back(p);
        }
        const Automaton a = build_automaton(pats, 2, StateOrder::kBreadthFirst);
        EXPECT_EQ(a.num_states, (2 << k) - 1);
        EXPECT_EQ(a.num_leaves(), 1 << k);
    }
}

TEST(SeedAcAutomaton, BreadthFirstPutsShallowFirstAndLeavesLast) {
    const auto pats = random_patterns(500, 9, 4, 5);
    const Automaton a = build_automaton(pats, 4, StateOrder::kBreadthFirst);
    for (int32_t s = 1; s < a.num_states; ++s) EXPECT_LE(a.depth[s - 1], a.depth[s]);
    ASSERT_GT(a.first_leaf, 0);
    std::set<int32_t> accepting(a.pattern_state.begin(), a.pattern_state.end());
    for (int32_t s = 0; s < a.num_states; ++s)
        EXPECT_EQ(s >= a.first_leaf, accepting.count(s) == 1) << "state " << s;
    check_against_definition(a);
}

TEST(SeedAcAutomaton, OrdersAreTheSameAutomatonRenumbered) {
    const auto pats = random_patterns(300, 10, 2, 9);
    const Automaton ins = build_automaton(pats, 2, StateOrder::kInsertion);
    const Automaton bfs = build_automaton(pats, 2, StateOrder::kBreadthFirst);
    ASSERT_EQ(ins.num_states, bfs.num_states);
    // Same walk, mapped through the pattern states: same counts per pattern.
    const auto text = random_text(5000, 2, 3);
    std::vector<uint64_t> vi(ins.num_states), vb(bfs.num_states);
    int32_t si = 0, sb = 0;
    for (uint8_t c : text) {
        si = ins.next[size_t(si) * 2 + c];
        sb = bfs.next[size_t(sb) * 2 + c];
        ++vi[si];
        ++vb[sb];
        ASSERT_EQ(ins.depth[si], bfs.depth[sb]);
    }
    EXPECT_EQ(pattern_counts(ins, vi.data()), pattern_counts(bfs, vb.data()));
    EXPECT_EQ(pattern_counts(bfs, vb.data()), naive_counts(text, pats));
}

TEST(SeedAcAutomaton, DuplicatesShareAState) {
    const std::vector<Pattern> pats = {{1, 0, 1}, {0, 1}, {1, 0, 1}};
    const Automaton a = build_automaton(pats, 2, StateOrder::kBreadthFirst);
    EXPECT_EQ(a.pattern_state[0], a.pattern_state[2]);
    EXPECT_EQ(a.num_states, 6); // root, 1, 10, 101, 0, 01
}

TEST(SeedAcAutomaton, RejectsBadInput) {
    EXPECT_THROW(build_automaton({}, 4, StateOrder::kInsertion), std::invalid_argument);
    EXPECT_THROW(build_automaton({Pattern{}}, 4, StateOrder::kInsertion), std::invalid_argument);
    EXPECT_THROW(build_automaton({Pattern{0, 4}}, 4, StateOrder::kInsertion), std::invalid_argument);
    EXPECT_THROW(build_automaton({Pattern{0}}, 0, StateOrder::kInsertion), std::invalid_argument);
}

} // namespace
