// tests/gpu/test_set_order.cpp - CPU property tests of the Set-mode output
// order (gpu/ac_set_order.h): the device sorts each chunk's distinct keys over
// bits [0, set_sort_end_bit(max payload)); the host decodes the chunks in
// order and repairs payloads that span chunks. Here the device part is
// modelled (hash order = shuffle, radix sort = std::sort after checking the
// bits above end_bit are zero) over real ChunkPlanner chunks, and the result
// must be strictly sorted by (payload, pattern) and equal the dedup of all hits.
#include "gpu/ac_plan.h"
#include "gpu/ac_set_keys.h"
#include "gpu/ac_set_order.h"
#include "reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <tuple>

using namespace wm::gpu;
using namespace wm::gpu::test;

namespace {

bool strictly_sorted(const std::vector<Match> &m) {
    for (size_t i = 1; i < m.size(); ++i)
        if (!set_order_less(m[i - 1], m[i])) return false;
    return true;
}

} // namespace

TEST(SetOrder, KeyOrderIsPayloadThenPattern) {
    std::mt19937 rng(5);
    std::vector<uint32_t> edge = {0, 1, 2, 0x7fffffff, 0x80000000u, 0xfffffffeu, 0xffffffffu};
    auto pick = [&] { return rng() % 3 == 0 ? edge[rng() % edge.size()] : static_cast<uint32_t>(rng()); };
    for (int i = 0; i < 100000; ++i) {
        const uint32_t p1 = pick(), q1 = pick(), p2 = pick(), q2 = pick();
        ASSERT_EQ(set_key(p1, q1) < set_key(p2, q2), std::tie(p1, q1) < std::tie(p2, q2));
        const unsigned long long k = set_key(p1, q1);
        std::vector<Match> m;
        append_set_keys(&k, 1, m);
        ASSERT_EQ(m.size(), 1u);
        EXPECT_EQ(m[0].payload, p1);
        EXPECT_EQ(m[0].pattern, q1);
        EXPECT_EQ(m[0].end, 0u);
    }
}

TEST(SetOrder, EndBitCoversEveryKeyAndNoMore) {
    EXPECT_EQ(set_sort_end_bit(0), 32);
    EXPECT_EQ(set_sort_end_bit(1), 33);
    EXPECT_EQ(set_sort_end_bit(0xffffffffu), 64);
    for (uint32_t b = 0; b < 32; ++b) {
        const uint32_t p = 1u << b;
        const int e = set_sort_end_bit(p);
        EXPECT_EQ(e, 33 + static_cast<int>(b));
        // the largest key with payload <= p fits below end_bit; payload p sets bit end_bit - 1
        if (e < 64) EXPECT_EQ(set_key(p, 0xffffffffu) >> e, 0u);
        EXPECT_NE((set_key(p, 0) >> (e - 1)) & 1u, 0u);
        if (p > 1) EXPECT_EQ(set_sort_end_bit(p - 1), e - 1);
    }
}

TEST(SetOrder, JoinLeavesUnsplitOutputAlone) {
    std::vector<Match> m = {{3, 0, 0}, {1, 1, 0}, {1, 1, 0}};
    auto copy = m;
    join_set_chunks(m, false);
    EXPECT_TRUE(m == copy);
    join_set_chunks(m, true);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_TRUE(strictly_sorted(m));
}

// Random batches cut by the real planner (tiny chunks split payloads, few
// segments per chunk); every segment reports random hits of its payload,
// pieces of one payload overlapping in patterns.
TEST(SetOrder, SortedChunksJoinToSortedDedup) {
    int split_cases = 0;
    for (uint32_t seed = 0; seed < 300; ++seed) {
        std::mt19937 rng(seed);
        const Case lens = random_lengths(rng, seed);
        const BatchView batch = lens.view();
        const std::vector<uint32_t> &offs = lens.offs;
        const uint32_t npats = 1 + rng() % (seed % 3 == 0 ? 5 : 3000);
        const size_t max_bytes = 256 + rng() % 2048, max_segs = 1 + rng() % 8;
        ChunkPlanner plan(batch, max_bytes, max_segs, 124, 1 + rng() % 40);

        std::set<std::pair<uint32_t, uint32_t>> all; // (payload, pattern)
        std::vector<Match> out;
        bool split = false;
        Chunk c;
        while (plan.next(c)) {
            split |= c.splits_payload;
            std::set<unsigned long long> distinct; // the chunk's hash table
            uint32_t max_payload = 0;
            for (const Segment &g : c.segs) {
                max_payload = std::max(max_payload, g.payload);
                const uint32_t hits = rng() % 12;
                for (uint32_t h = 0; h < hits; ++h) {
                    const uint32_t pat = rng() % npats;
                    distinct.insert(set_key(g.payload, pat));
                    all.insert({g.payload, pat});
                }
            }
            std::vector<unsigned long long> keys(distinct.begin(), distinct.end());
            std::shuffle(keys.begin(), keys.end(), rng); // hash-table order
            const int end_bit = set_sort_end_bit(max_payload);
            for (unsigned long long k : keys)
                if (end_bit < 64) ASSERT_EQ(k >> end_bit, 0u) << "bits above end_bit would be ignored";
            std::sort(keys.begin(), keys.end()); // the device radix sort
            append_set_keys(keys.data(), keys.size(), out);
        }
        split_cases += split;
        join_set_chunks(out, split);
        ASSERT_TRUE(strictly_sorted(out)) << "seed " << seed;
        std::vector<Match> want;
        for (const auto &pq : all) want.push_back(Match{pq.second, pq.first, 0});
        ASSERT_TRUE(out == want) << "seed " << seed << " split " << split;
    }
    EXPECT_GT(split_cases, 50); // the planner really split payloads across chunks
}

TEST(SetUnitKeys, RoundTripAndRefuseWhatDoesNotFit) {
    // The Set kernel's shared table holds (payload - unit's first payload,
    // pattern) in 32 bits: every pattern id of the set and every payload
    // offset below the field's top value come back whole; the top offset and
    // beyond are refused (they go to the global table), so a key is never
    // the empty slot.
    std::mt19937 rng(5);
    for (uint32_t patterns : {1u, 2u, 3u, 1000u, 17918u, 1u << 20, (1u << 20) + 1, 1u << 30}) {
        const uint32_t bits = set_pattern_bits(patterns);
        ASSERT_GE(bits, 1u);
        ASSERT_LE(bits, 30u);
        ASSERT_LE(uint64_t{patterns} - 1, (uint64_t{1} << bits) - 1) << patterns << " patterns";
        if (patterns > 2) ASSERT_GT(uint64_t{patterns} - 1, (uint64_t{1} << (bits - 1)) - 1) << "bits are not minimal";
        const uint32_t top = ~0u >> bits; // first offset refused
        for (int i = 0; i < 2000; ++i) {
            const uint32_t first = rng(), pattern = rng() % patterns;
            const uint32_t rel = i % 4 == 0 ? top - 1 - rng() % 2 : rng() % top;
            const uint32_t k = set_unit_key(first + rel, pattern, first, bits);
            ASSERT_NE(k, kEmptySetSlot);
            ASSERT_EQ(set_full_key(k, first, bits), set_key(first + rel, pattern)) << patterns << " patterns";
        }
        const uint32_t first = rng();
        EXPECT_EQ(set_unit_key(first + top, 0, first, bits), kEmptySetSlot);
        EXPECT_EQ(set_unit_key(first - 1, 0, first, bits), kEmptySetSlot); // before the unit: never, refused
    }
}
