// sort_matches(): canonical order (payload, end, rule, start) on random input
// of both sizes (comparison sort below 4096 matches, payload buckets above),
// and the already-sorted fast path (the GPU engine's set-mode output) leaves
// its input as is.
#include "engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

using namespace wm;

namespace {

bool canonical(const Match &a, const Match &b) {
    return std::tie(a.payload, a.end, a.rule, a.start) < std::tie(b.payload, b.end, b.rule, b.start);
}

std::vector<Match> random_matches(std::mt19937 &rng, size_t n, bool set_mode) {
    std::vector<Match> m;
    for (size_t i = 0; i < n; ++i) {
        Match x{static_cast<uint32_t>(rng() % 50), static_cast<uint32_t>(rng() % 300), 0, 0};
        if (!set_mode) {
            x.end = rng() % 100;
            x.start = x.end - std::min<uint32_t>(x.end, rng() % 10);
        }
        m.push_back(x);
    }
    return m;
}

} // namespace

TEST(SortMatches, RandomInputGetsCanonicalOrder) {
    std::mt19937 rng(11);
    for (size_t n : {0u, 1u, 2u, 100u, 4095u, 4096u, 20000u}) {
        for (bool set_mode : {false, true}) {
            auto m = random_matches(rng, n, set_mode);
            auto want = m;
            std::stable_sort(want.begin(), want.end(), canonical);
            sort_matches(m);
            ASSERT_TRUE(std::is_sorted(m.begin(), m.end(), canonical)) << n;
            // same multiset: equal after a full (stable) sort of both
            std::stable_sort(m.begin(), m.end(), canonical);
            ASSERT_TRUE(m == want) << n;
        }
    }
}

TEST(SortMatches, SortedInputIsLeftAsIs) {
    std::mt19937 rng(12);
    for (size_t n : {3u, 5000u, 100000u}) {
        for (bool set_mode : {true, false}) {
            auto m = random_matches(rng, n, set_mode);
            std::sort(m.begin(), m.end(), canonical);
            if (set_mode) m.erase(std::unique(m.begin(), m.end()), m.end()); // the GPU set output
            // distinct scores among equal keys: the fast path must not reorder them either
            for (size_t i = 0; i < m.size(); ++i) m[i].score = static_cast<int32_t>(i);
            const auto before = m;
            sort_matches(m);
            ASSERT_TRUE(m == before) << n;
        }
    }
}

TEST(SortMatches, NearlySortedInputIsSorted) {
    // sorted except one pair at the end: the fast path must not fire
    std::mt19937 rng(13);
    auto m = random_matches(rng, 10000, true);
    std::sort(m.begin(), m.end(), canonical);
    m.push_back(Match{0, 0, 0, 0});
    sort_matches(m);
    ASSERT_TRUE(std::is_sorted(m.begin(), m.end(), canonical));
    EXPECT_EQ(m.front().payload, 0u);
}

TEST(SortMatches, OneInversionAnywhereIsFound) {
    // The sortedness check runs in blocks, a whole field pair at a time: an
    // inversion in any one field, at a block's edge or inside one, must not
    // pass as sorted.
    std::vector<Match> sorted;
    for (uint32_t p = 0; sorted.size() < 10000; ++p)
        for (uint32_t k = 0; k < 16; ++k) sorted.push_back(Match{k % 4, p, k / 4, k / 2});
    std::sort(sorted.begin(), sorted.end(), canonical);
    for (size_t i : {size_t{1}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{8193}, sorted.size() - 1}) {
        for (int field = 0; field < 4; ++field) {
            auto m = sorted;
            Match a = m[i - 1]; // make m[i] differ from m[i - 1] in one field only, then swap them
            Match b = a;
            (field == 0 ? b.payload : field == 1 ? b.end : field == 2 ? b.rule : b.start) += 1;
            m[i - 1] = b;
            m[i] = a;
            sort_matches(m);
            ASSERT_TRUE(std::is_sorted(m.begin(), m.end(), canonical)) << "inversion at " << i << " field " << field;
        }
    }
}

TEST(SortMatches, InputSortedButForTiesIsSortedWithinThem) {
    // Hyperscan's order: by payload and end, an end's rules in any order.
    std::mt19937 rng(14);
    for (size_t n : {5000u, 100000u}) {
        auto m = random_matches(rng, n, false);
        std::sort(m.begin(), m.end(), canonical);
        auto want = m;
        for (size_t i = 0, j; i < m.size(); i = j) { // shuffle each (payload, end) run
            for (j = i + 1; j < m.size() && m[j].payload == m[i].payload && m[j].end == m[i].end; ++j) {
            }
            std::shuffle(m.begin() + i, m.begin() + j, rng);
        }
        ASSERT_FALSE(std::is_sorted(m.begin(), m.end(), canonical)) << n; // the shuffle broke some tie
        sort_matches(m);
        ASSERT_TRUE(m == want) << n;
    }
}
