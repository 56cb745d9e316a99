// tests/gpu/test_gram_filter_model.cpp - the gram-filter study
// (gpu/gram_filter_model.h, which bench_gram_filter checks its kernels
// against): tile by tile, its filter and checks find exactly the (payload,
// literal) pairs a naive search finds, for every literal it covers, whatever
// the Bloom filter's size and the windows chosen.
#include "gpu/gram_filter_host.h"
#include "gpu/walk_hits_host.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <utility>

using namespace wm::gpu;
using namespace wm::gpu::study;

namespace {

using Pairs = std::set<std::pair<uint32_t, uint32_t>>; // (payload, literal index in the
                                                       // caller's list)

bool naive_occurs(const std::string &payload, const Literal &l) {
    auto eq = [&](char a, char b) {
        const auto x = static_cast<uint8_t>(a), y = static_cast<uint8_t>(b);
        return l.nocase ? fold_ascii(x) == fold_ascii(y) : x == y;
    };
    return std::search(payload.begin(), payload.end(), l.bytes.begin(), l.bytes.end(), eq) != payload.end();
}

Pairs naive_pairs(const std::vector<std::string> &payloads, const std::vector<Literal> &literals) {
    Pairs out;
    for (size_t p = 0; p < payloads.size(); ++p)
        for (size_t i = 0; i < literals.size(); ++i)
            if (is_gram_literal(literals[i]) && naive_occurs(payloads[p], literals[i]))
                out.insert({static_cast<uint32_t>(p), static_cast<uint32_t>(i)});
    return out;
}

// The model over the payloads laid out as the kernels see them; counts the hits
// reported.
Pairs model_pairs(const std::vector<std::string> &payloads, const GramTables &t, size_t *hits = nullptr) {
    const bench::Corpus c = bench::corpus_of(payloads);
    const HitText text = hit_text(c.bytes.data(), c.offsets, c.bytes.size());
    Pairs out;
    for (size_t x = 0; x < text.tiles; ++x)
        gram_tile_host(t.view(), text.raw.data(), x, text.starts[x], text.first_payload[x], c.offsets.data(),
                       [&](uint32_t p, uint32_t lit) {
                           out.insert({p, t.source[lit]});
                           if (hits) ++*hits;
                       });
    return out;
}

std::string random_bytes(std::mt19937 &rng, const std::string &alphabet, size_t lo, size_t hi) {
    std::string s(std::uniform_int_distribution<size_t>(lo, hi)(rng), ' ');
    for (char &c : s) c = alphabet[rng() % alphabet.size()];
    return s;
}

struct Case {
    std::vector<Literal> literals;
    std::vector<std::string> payloads;
};

// Few distinct bytes, so literals occur often, at payload starts and ends and
// across tile bounds.
Case random_case(uint32_t seed) {
    std::mt19937 rng(seed);
    const std::string alphabet{"abAB\0\x01z-", 8};
    Case c;
    for (int i = 0; i < 120; ++i) {
        Literal l;
        l.bytes = random_bytes(rng, alphabet, 1, 9);
        l.nocase = rng() % 2;
        c.literals.push_back(l);
    }
    for (int p = 0; p < 300; ++p) c.payloads.push_back(random_bytes(rng, alphabet, 1, 200));
    return c;
}

} // namespace

TEST(GramFilter, WhichLiteralsItCovers) {
    EXPECT_FALSE(is_gram_literal({"a", false}));
    EXPECT_FALSE(is_gram_literal({"aaa", false}));
    EXPECT_FALSE(is_gram_literal({"aA", true})); // one byte repeated once folded
    EXPECT_TRUE(is_gram_literal({"aA", false})); // exact case: two bytes
    EXPECT_TRUE(is_gram_literal({"ab", false}));
    EXPECT_TRUE(is_gram_literal({std::string("\0\x01", 2), false}));
}

TEST(GramFilter, WindowIsTheRarestQuadInTraining) {
    const Literal l{"GET /admin", false};
    const QuadCounts counts = quad_counts({l}, {bench::corpus_of({"GET /index GET /home GET /x adm"})});
    EXPECT_EQ(counts.at(folded_quad(reinterpret_cast<const uint8_t *>("GET "))), 3u);
    // "GET ", "ET /", "T /a", " /ad", "/adm" seen 3, 3, 0, 0, 0 times: the first
    // unseen one.
    EXPECT_EQ(quad_window(l, counts), 2u);
    EXPECT_EQ(quad_window(l, QuadCounts{}), 0u); // nothing known: the first
}

TEST(GramFilter, ModelFindsWhatANaiveSearchFinds) {
    for (uint32_t seed = 1; seed <= 6; ++seed) {
        const Case c = random_case(seed);
        const std::vector<std::string> seen(c.payloads.begin(), c.payloads.begin() + 40); // training: part of the traffic
        const QuadCounts counts = quad_counts(c.literals, {bench::corpus_of(seen)});
        const Pairs want = naive_pairs(c.payloads, c.literals);
        ASSERT_GT(want.size(), 100u) << "seed " << seed; // the case exercises the checks
        for (uint32_t bloom_log2 : {10u, 19u}) {         // a saturated filter and the study's size
            const GramTables t = gram_tables(c.literals, counts, bloom_log2);
            EXPECT_GT(t.pair_literals, 0u);
            EXPECT_GT(t.triple_literals, 0u);
            EXPECT_GT(t.quad_literals, 0u);
            EXPECT_EQ(model_pairs(c.payloads, t), want) << "seed " << seed << ", 2^" << bloom_log2 << " bits";
        }
        // Windows chosen without training find the same.
        EXPECT_EQ(model_pairs(c.payloads, gram_tables(c.literals, QuadCounts{}, 19)), want) << "seed " << seed;
    }
}

TEST(GramFilter, LiteralsAtPayloadEdgesAndAcrossTiles) {
    // Literals that end a payload, start the next, or straddle a 64-byte tile
    // bound; a window must not reach across a payload start.
    const std::vector<Literal> literals{{"xyzw", false}, {"qr", false}, {"HeLlo", true}, {"abc", false}};
    std::vector<std::string> payloads{std::string(62, '.') + "xy",
                                      "zw" + std::string(70, '.') + "xyzw",
                                      "hello" + std::string(58, '.') + "qr",
                                      "bc",
                                      std::string(63, '.') + "abc",
                                      "q",
                                      "r.HELLO"};
    const Pairs want{{1, 0}, {2, 1}, {2, 2}, {4, 3}, {6, 2}};
    ASSERT_EQ(naive_pairs(payloads, literals), want);
    size_t hits = 0;
    EXPECT_EQ(model_pairs(payloads, gram_tables(literals, QuadCounts{}, 16), &hits), want);
    EXPECT_EQ(hits, want.size());
}

TEST(GramFilter, ALaneReportsAPairOnceInARow) {
    // "abab..." over one tile: "ab" occurs 32 times, reported once by the lane.
    std::string one(64, 'a');
    for (size_t i = 1; i < one.size(); i += 2) one[i] = 'b';
    size_t hits = 0;
    EXPECT_EQ(model_pairs({one}, gram_tables({{"ab", false}}, QuadCounts{}, 16), &hits), (Pairs{{0, 0}}));
    EXPECT_EQ(hits, 1u);
}

TEST(GramFilter, TablesRejectWhatTheyCannotHold) {
    EXPECT_THROW(gram_tables({{"ab", false}}, QuadCounts{}, 9), std::invalid_argument);
    std::vector<Literal> same_window; // nothing known of the traffic: each takes
                                      // its first quad, "abcd"
    for (int i = 0; i < 256; ++i) same_window.push_back({std::string("abcd") + static_cast<char>(i), false});
    EXPECT_THROW(gram_tables(same_window, QuadCounts{}, 16), std::invalid_argument);
    same_window.pop_back();
    EXPECT_EQ(gram_tables(same_window, QuadCounts{}, 16).quads, 1u);
}
