// tests/seed_ac/test_seed_ac_cpu_walk.cpp - the kernels' per-thread walk run
// on the host (walk_tile via cpu_walk) and the CPU peer, against the naive
// count; the text generator and packed layout.
#include "gpu/seed_ac/seed_ac_cpu_walk.h"
#include "gpu/seed_ac/seed_ac_hd.h"
#include "gpu/seed_ac/seed_ac_problem.h"
#include "gpu/seed_ac/seed_ac_walk.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <stdexcept>

namespace {

using namespace wm::seed_ac;

TEST(SeedAcText, GeneratorIsDeterministicAndUniform) {
    const auto a = random_text(1 << 20, 4, 11), b = random_text(1 << 20, 4, 11), c = random_text(1 << 20, 4, 12);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    for (uint64_t i : std::initializer_list<uint64_t>{0, 1, 12345, (1u << 20) - 1}) EXPECT_EQ(a[i], random_char(11, i, 4));
    for (int alphabet : {2, 3, 4, 5}) {
        const auto t = random_text(1 << 20, alphabet, 99);
        std::vector<double> freq(alphabet, 0);
        for (uint8_t x : t) {
            ASSERT_LT(x, alphabet);
            freq[x] += 1.0 / t.size();
        }
        for (double f : freq) EXPECT_NEAR(f, 1.0 / alphabet, 0.005) << "C=" << alphabet;
    }
}

TEST(SeedAcText, PackedLayout) {
    const std::vector<uint8_t> text = {1, 0, 3, 2, 1, 1};
    const auto w2 = pack_text(text, 2);
    ASSERT_EQ(w2.size(), 1u);
    EXPECT_EQ(w2[0], 1u | 0u << 2 | 3u << 4 | 2u << 6 | 1u << 8 | 1u << 10);
    const auto w8 = pack_text(text, 8, 4);
    ASSERT_EQ(w8.size(), 4u);
    EXPECT_EQ(w8[0], 0x02030001u);
    EXPECT_EQ(w8[1], 0x0101u);
    EXPECT_EQ(w8[3], 0u);
    EXPECT_THROW(pack_text(text, 1), std::invalid_argument); // 3 does not fit one bit
    EXPECT_THROW(pack_text(text, 3), std::invalid_argument);
    EXPECT_EQ(bits_for_alphabet(2), 1);
    EXPECT_EQ(bits_for_alphabet(4), 2);
    EXPECT_EQ(bits_for_alphabet(5), 4);
    EXPECT_EQ(bits_for_alphabet(17), 8);
}

TEST(SeedAcNaive, HandCases) {
    const std::vector<uint8_t> text = {0, 0, 0, 0, 1, 0};
    EXPECT_EQ(naive_counts(text, {{0, 0}, {0, 1, 0}, {1, 1}, {0, 0, 0, 0, 1, 0, 0}}),
              (std::vector<uint64_t>{3, 1, 0, 0}));
}

// The tiled walk (the kernels' rule) gives the naive counts for equal-length
// patterns at every edge size, tile and packed width; leaves-only equals all.
TEST(SeedAcCpuWalk, TiledWalkMatchesNaive) {
    struct Case { int c, n, m; };
    const Case cases[] = {{2, 16, 1}, {2, 64, 10}, {3, 40, 4}, {4, 100, 8}, {4, 30, 13}, {5, 50, 6}, {16, 40, 3}, {17, 25, 2}};
    for (const Case &k : cases)
        for (uint64_t len : std::initializer_list<uint64_t>{0, 1, uint64_t(k.m - 1), uint64_t(k.m), 31, 32, 33, 8191, 8197, 20011}) {
            const auto pats = random_patterns(k.n, k.m, k.c, k.n * 31 + k.m);
            const auto text = random_text(len, k.c, len + 5);
            const auto want = naive_counts(text, pats);
            const Automaton ins = build_automaton(pats, k.c, StateOrder::kInsertion);
            const Automaton bfs = build_automaton(pats, k.c, StateOrder::kBreadthFirst);
            for (int bits : {8, bits_for_alphabet(k.c)}) {
                const auto words = pack_text(text, bits);
                for (uint64_t tile : std::initializer_list<uint64_t>{32, 64, 8192}) {
                    SCOPED_TRACE(::testing::Message() << "C=" << k.c << " N=" << k.n << " M=" << k.m << " L=" << len
                                                      << " bits=" << bits << " tile=" << tile);
                    const WalkOptions all{tile, k.m - 1, false}, leaves{tile, k.m - 1, true};
                    const auto vi = cpu_walk(ins, words.data(), bits, len, all);
                    const auto vb = cpu_walk(bfs, words.data(), bits, len, all);
                    const auto vl = cpu_walk(bfs, words.data(), bits, len, leaves);
                    EXPECT_EQ(pattern_counts(ins, vi.data()), want);
                    EXPECT_EQ(pattern_counts(bfs, vb.data()), want);
                    EXPECT_EQ(pattern_counts(bfs, vl.data()), want);
                    for (int32_t s = 0; s < bfs.num_states; ++s)
                        ASSERT_EQ(vl[s], s >= bfs.first_leaf ? vb[s] : 0u) << "state " << s;
                }
            }
        }
}

// Visit counts do not depend on the packed width: same walk, same numbers.
TEST(SeedAcCpuWalk, VisitsIndependentOfPackedWidth) {
    const auto pats = random_patterns(200, 7, 2, 1);
    const auto text = random_text(10000, 2, 2);
    const Automaton a = build_automaton(pats, 2, StateOrder::kInsertion);
    const WalkOptions opt{32, 6, false};
    const auto w8 = pack_text(text, 8), w4 = pack_text(text, 4), w2 = pack_text(text, 2), w1 = pack_text(text, 1);
    const auto ref = cpu_walk(a, w8.data(), 8, text.size(), opt);
    EXPECT_EQ(cpu_walk(a, w4.data(), 4, text.size(), opt), ref);
    EXPECT_EQ(cpu_walk(a, w2.data(), 2, text.size(), opt), ref);
    EXPECT_EQ(cpu_walk(a, w1.data(), 1, text.size(), opt), ref);
}

// One tile covering the text (no overlap) is the plain Aho-Corasick walk:
// exact for patterns of mixed lengths through the failure-tree fold.
TEST(SeedAcCpuWalk, SingleTileFoldHandlesMixedLengths) {
    std::vector<Pattern> pats;
    for (int m : {1, 2, 4, 6, 9})
        for (const auto &p : random_patterns(20, m, 3, 40 + m)) pats.push_back(p);
    const auto text = random_text(30001, 3, 8);
    const auto words = pack_text(text, 4);
    for (StateOrder order : {StateOrder::kInsertion, StateOrder::kBreadthFirst}) {
        const Automaton a = build_automaton(pats, 3, order);
        const auto v = cpu_walk(a, words.data(), 4, text.size(), {(text.size() + 31) / 32 * 32, 0, false});
        EXPECT_EQ(pattern_counts(a, v.data()), naive_counts(text, pats));
    }
}

TEST(SeedAcCpuWalk, PeerMatchesNaiveOnAnyThreadCount) {
    const auto pats = random_patterns(300, 8, 4, 3);
    const Automaton a = build_automaton(pats, 4, StateOrder::kBreadthFirst);
    for (uint64_t len : std::initializer_list<uint64_t>{0, 7, (1u << 20) + 3, (3u << 20) + 1}) {
        const auto text = random_text(len, 4, len);
        const auto want = naive_counts(text, pats);
        for (unsigned threads : {1u, 3u, 16u}) {
            const auto v = cpu_peer_visits(a, text.data(), len, threads);
            EXPECT_EQ(pattern_counts(a, v.data()), want) << "L=" << len << " threads=" << threads;
        }
    }
}

TEST(SeedAcCpuWalk, RejectsBadOptions) {
    const auto pats = random_patterns(5, 4, 2, 3);
    const Automaton ins = build_automaton(pats, 2, StateOrder::kInsertion);
    const std::vector<uint32_t> words(4, 0);
    EXPECT_THROW(cpu_walk(ins, words.data(), 8, 16, {16, 3, false}), std::invalid_argument);
    EXPECT_THROW(cpu_walk(ins, words.data(), 8, 16, {32, 3, true}), std::invalid_argument);
    EXPECT_THROW(cpu_walk(ins, words.data(), 3, 16, {32, 3, false}), std::invalid_argument);
    const std::vector<uint8_t> text(16, 0);
    EXPECT_THROW(cpu_peer_visits(ins, text.data(), 16), std::invalid_argument);
}

} // namespace
