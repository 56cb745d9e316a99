// tests/gpu/test_positions_order.cpp - CPU property tests of the Positions
// output order (gpu/ac_positions_order.h): the device packs each chunk's
// matches, and the holes its warps left in their output slabs, into keys
// with the chunk's codec, radix-sorts them over [0, codec.sort_bits()) and
// the host decodes the chunks' first (slots - holes) keys in order. Here the
// device part is modelled (kernel order = shuffle, radix sort = std::sort
// after checking the bits above sort_bits() are zero) over real ChunkPlanner
// chunks, and the concatenation must be sorted by (payload, end, pattern)
// and hold every match and no hole; with PositionsKept::FirstPerPattern,
// each chunk's first match per (payload, pattern).
#include "gpu/ac_plan.h"
#include "gpu/ac_positions_order.h"
#include "reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

using namespace wm::gpu;
using namespace wm::gpu::test;

namespace {

// A chunk's matches and a few holes (how many: *holes) in kernel order
// (shuffled), packed by `codec` (PositionsKeyCodec or FirstsKeyCodec), sorted.
template <typename Codec>
void sorted_device_keys(const Codec &codec, std::vector<Match> chunk, std::mt19937 &rng,
                        std::vector<unsigned long long> &keys, size_t *holes) {
    *holes = rng() % 4 == 0 ? 0 : rng() % 700;
    for (size_t i = 0; i < *holes; ++i) chunk.push_back(Match{kHolePattern, static_cast<uint32_t>(rng()), 0});
    std::shuffle(chunk.begin(), chunk.end(), rng);
    keys.clear();
    for (const Match &m : chunk) {
        keys.push_back(codec.encode(m));
        ASSERT_EQ(keys.back() >> codec.sort_bits(), 0u) << "bits above sort_bits() would be ignored";
    }
    std::sort(keys.begin(), keys.end());
}

// The device's part for one chunk: its keys sorted, the first (slots -
// holes) decoded.
void device_model(const PositionsKeyCodec &codec, const std::vector<Match> &chunk, std::mt19937 &rng,
                  std::vector<Match> &out) {
    std::vector<unsigned long long> keys;
    size_t holes = 0;
    sorted_device_keys(codec, chunk, rng, keys, &holes);
    for (size_t i = 0; i < keys.size(); ++i) {
        if (i < keys.size() - holes) out.push_back(codec.decode(keys[i]));
        else ASSERT_EQ(keys[i], 1ull << codec.bits) << "a hole's key";
    }
}

// The same for PositionsKept::FirstPerPattern: packed by (payload, pattern,
// end), sorted, each run's first marked and selected (first_of_run), those
// sorted again in the chunk's codec; all of them decoded.
void firsts_model(const PositionsKeyCodec &codec, const std::vector<Match> &chunk, std::mt19937 &rng,
                  std::vector<Match> &out) {
    const FirstsKeyCodec f(codec);
    std::vector<unsigned long long> keys, firsts;
    size_t holes = 0;
    sorted_device_keys(f, chunk, rng, keys, &holes);
    for (uint32_t i = 0; i < keys.size(); ++i) {
        const unsigned long long k = f.first_of_run(keys.data(), i);
        if (k == kNotFirst) continue;
        ASSERT_LT(k, 1ull << codec.bits) << "a first is a match, never a hole";
        firsts.push_back(k);
    }
    std::sort(firsts.begin(), firsts.end());
    for (unsigned long long k : firsts) out.push_back(codec.decode(k));
}

// The real planner over batch with random limits: tiny chunks that split
// payloads, few segments per chunk, whole-payload runs for one seed in four.
ChunkPlanner random_planner(const BatchView &batch, uint32_t seed, std::mt19937 &rng) {
    const size_t max_bytes = 256 + rng() % 2048, max_segs = 1 + rng() % 8;
    const uint32_t max_len = 1 + rng() % 40;
    return ChunkPlanner(batch, max_bytes, max_segs, 124, max_len, seed % 4 == 1);
}

// Random matches of planner chunk c, as its tiles report them: up to
// `most` - 1 per segment (or run payload), each ending in the bytes it owns.
std::vector<Match> random_chunk_matches(const Chunk &c, const std::vector<uint32_t> &offs, uint32_t npats,
                                        uint32_t most, std::mt19937 &rng) {
    std::vector<Match> chunk;
    auto add = [&](uint32_t payload, uint32_t own_begin, uint32_t own_end) { // ends in (own_begin, own_end]
        if (own_end <= own_begin) return;
        for (uint32_t h = rng() % most; h > 0; --h)
            chunk.push_back(Match{static_cast<uint32_t>(rng() % npats), payload,
                                  static_cast<uint32_t>(own_begin + 1 + rng() % (own_end - own_begin))});
    };
    if (c.whole_run) {
        for (uint32_t p = c.first_payload; p < c.end_payload; ++p) add(p, 0, offs[p + 1] - offs[p]);
    } else {
        for (const Segment &g : c.segs) add(g.payload, g.pos_base + g.skip, g.pos_base + g.data_end - g.data_begin);
    }
    return chunk;
}

// Seed's random batch (random_lengths) cut by the real planner
// (random_planner): fn(chunk, the batch's offsets, its codec) for each chunk
// in order, the codec for npats patterns.
template <typename Fn> void for_each_planned_chunk(uint32_t seed, std::mt19937 &rng, uint32_t npats, Fn fn) {
    const Case lens = random_lengths(rng, seed);
    ChunkPlanner plan = random_planner(lens.view(), seed, rng);
    Chunk c;
    while (plan.next(c)) {
        PositionsKeyCodec codec;
        ASSERT_TRUE(positions_key_codec(npats, c.first_payload, c.last_payload, chunk_max_end(c, lens.offs.data()), &codec));
        fn(c, lens.offs, codec);
    }
}

} // namespace

TEST(PositionsOrder, KeysOrderLikeTheirFieldsAndDecodeBack) {
    std::mt19937 rng(9);
    auto R = [&] { return static_cast<uint32_t>(rng()); };
    for (int round = 0; round < 2000; ++round) {
        const uint32_t patterns = 1 + (round % 3 == 0 ? R() % 4 : R() % 200000);
        const uint32_t first = R() % 3 == 0 ? 0 : R(), span = round % 5 == 0 ? 0 : R() % (1u << 20);
        const uint32_t max_end = round % 7 == 0 ? 0xffffffu : 1 + R() % 70000;
        PositionsKeyCodec c;
        ASSERT_TRUE(positions_key_codec(patterns, first, first + span, max_end, &c));
        const FirstsKeyCodec f(c);
        auto pick = [&] {
            return Match{R() % 3 ? R() % patterns : patterns - 1, first + (R() % 3 ? R() % (span + 1) : span),
                         R() % 3 ? R() % (max_end + 1) : max_end};
        };
        for (int i = 0; i < 50; ++i) {
            const Match a = pick(), b = pick();
            const unsigned long long ka = c.encode(a), kb = c.encode(b);
            ASSERT_TRUE(c.decode(ka) == a) << "round " << round;
            ASSERT_EQ(ka < kb, positions_order_less(a, b)) << "round " << round;
            ASSERT_EQ(ka >> c.bits, 0u);
            ASSERT_LT(ka, c.encode(Match{kHolePattern, a.payload, a.end})) << "a hole sorts after every match";
            // The firsts' codec: (payload, pattern, end) order, runs by
            // (payload, pattern), re-packed exactly in c.
            const unsigned long long fa = f.encode(a), fb = f.encode(b);
            ASSERT_EQ(f.to_positions(fa), ka) << "round " << round;
            ASSERT_EQ(fa < fb, std::tie(a.payload, a.pattern, a.end) < std::tie(b.payload, b.pattern, b.end));
            ASSERT_EQ(f.run_of(fa) == f.run_of(fb), a.payload == b.payload && a.pattern == b.pattern);
            ASSERT_LT(fa, f.encode(Match{kHolePattern, a.payload, a.end}));
        }
    }
}

TEST(PositionsOrder, CodecUsesTheFewestBitsAndRefusesWhatDoesNotFit) {
    PositionsKeyCodec c;
    ASSERT_TRUE(positions_key_codec(1, 7, 7, 1, &c)); // one pattern, one payload: the end alone
    EXPECT_EQ(c.bits, 1u);
    EXPECT_TRUE(c.decode(c.encode(Match{0, 7, 1})) == (Match{0, 7, 1}));
    ASSERT_TRUE(positions_key_codec(17918, 100, 100 + 300000, 65535, &c)); // ET Open, a 64 MB chunk
    EXPECT_EQ(c.end_shift, 15u);
    EXPECT_EQ(c.payload_shift, 31u);
    EXPECT_EQ(c.bits, 50u);
    ASSERT_TRUE(positions_key_codec(0x80000000u, 5, 5 + 0xff, 0xffffffu, &c)); // 31 + 24 + 8 bits: full
    EXPECT_EQ(c.bits, 63u);
    EXPECT_EQ(c.sort_bits(), 64u); // the holes' bit
    const Match top{0x7fffffffu, 5 + 0xff, 0xffffffu};
    EXPECT_TRUE(c.decode(c.encode(top)) == top);
    EXPECT_EQ(c.encode(top), ~0ull >> 1);
    EXPECT_EQ(c.encode(Match{kHolePattern, 5, 0}), 1ull << 63);
    EXPECT_EQ(FirstsKeyCodec(c).encode(top), ~0ull >> 1);
    EXPECT_EQ(FirstsKeyCodec(c).to_positions(~0ull >> 1), c.encode(top));
    EXPECT_FALSE(positions_key_codec(0x80000000u, 5, 5 + 0x1ff, 0xffffffu, &c)); // 64 bits: no room for holes
    EXPECT_FALSE(positions_key_codec(0x80000000u, 5, 5 + 0x200, 0xffffffu, &c)); // 65 bits
    EXPECT_FALSE(positions_key_codec(0xffffffffu, 0, 0xffffffffu, 0xffffffffu, &c));
}

TEST(PositionsOrder, ChunkMaxEndCoversEveryPieceOfItsPayloads) {
    std::vector<uint32_t> offs = {0, 10, 10, 5000, 5030};
    std::vector<uint8_t> data(offs.back() + 1, 'x');
    const BatchView batch{data.data(), offs.data(), 4};
    for (const bool whole : {false, true}) {
        ChunkPlanner plan(batch, 1024, 64, 60, 8, whole);
        Chunk c;
        uint32_t most = 0;
        while (plan.next(c)) {
            const uint32_t m = chunk_max_end(c, offs.data());
            // no payload of the chunk reaches past its max end; its longest reaches it
            uint32_t want = 0;
            if (c.whole_run) {
                for (uint32_t p = c.first_payload; p < c.end_payload; ++p) want = std::max(want, offs[p + 1] - offs[p]);
            } else {
                for (const Segment &g : c.segs) want = std::max(want, g.pos_base + g.data_end - g.data_begin);
            }
            EXPECT_EQ(m, want);
            most = std::max(most, m);
        }
        EXPECT_EQ(most, 4990u) << "whole " << whole; // payload 2 ends at 4990 in its last piece
    }
}

// Random batches cut by the real planner (random_planner), random matches
// in each chunk (random_chunk_matches).
TEST(PositionsOrder, SortedChunksConcatenateSorted) {
    int split_cases = 0;
    for (uint32_t seed = 0; seed < 300; ++seed) {
        std::mt19937 rng(seed);
        const uint32_t npats = 1 + static_cast<uint32_t>(rng()) % (seed % 3 == 0 ? 5 : 30000);
        std::vector<Match> all, out;
        bool split = false;
        for_each_planned_chunk(seed, rng, npats, [&](const Chunk &c, const std::vector<uint32_t> &offs,
                                                     const PositionsKeyCodec &codec) {
            split |= c.splits_payload;
            const std::vector<Match> chunk = random_chunk_matches(c, offs, npats, 12, rng);
            all.insert(all.end(), chunk.begin(), chunk.end());
            device_model(codec, chunk, rng, out);
        });
        split_cases += split;
        ASSERT_TRUE(std::is_sorted(out.begin(), out.end(), positions_order_less)) << "seed " << seed;
        std::sort(all.begin(), all.end(), positions_order_less);
        ASSERT_EQ(out.size(), all.size()) << "seed " << seed;
        for (size_t i = 0; i < out.size(); ++i) ASSERT_TRUE(out[i] == all[i]) << "seed " << seed << " #" << i;
    }
    EXPECT_GT(split_cases, 50); // the planner really split payloads across chunks
}

// Over real planner chunks (as SortedChunksConcatenateSorted), a chunk's
// kept matches are exactly its matches' firsts per (payload, pattern); the
// concatenation is sorted, and a payload split across chunks is the only
// source of a repeated (payload, pattern).
TEST(PositionsOrder, FirstsKeepEachChunksFirstMatchPerPayloadAndPattern) {
    int split_cases = 0, repeats = 0;
    for (uint32_t seed = 0; seed < 300; ++seed) {
        std::mt19937 rng(seed);
        const uint32_t npats = 1 + static_cast<uint32_t>(rng()) % (seed % 3 == 0 ? 3 : 300); // few: many repeats
        std::vector<Match> all, out;
        for_each_planned_chunk(seed, rng, npats, [&](const Chunk &c, const std::vector<uint32_t> &offs,
                                                     const PositionsKeyCodec &codec) {
            const std::vector<Match> chunk = random_chunk_matches(c, offs, npats, 30, rng);
            std::vector<Match> kept;
            firsts_model(codec, chunk, rng, kept);
            ASSERT_TRUE(kept == first_per_pattern(chunk)) << "seed " << seed;
            split_cases += c.splits_payload;
            all.insert(all.end(), chunk.begin(), chunk.end());
            out.insert(out.end(), kept.begin(), kept.end());
        });
        ASSERT_TRUE(std::is_sorted(out.begin(), out.end(), positions_order_less)) << "seed " << seed;
        ASSERT_TRUE(first_per_pattern(out) == first_per_pattern(all)) << "seed " << seed;
        repeats += static_cast<int>(out.size() - first_per_pattern(all).size());
    }
    EXPECT_GT(split_cases, 50);
    EXPECT_GT(repeats, 0); // split payloads did repeat a pattern in a later chunk
}
