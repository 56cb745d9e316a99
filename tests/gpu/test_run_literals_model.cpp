// tests/gpu/test_run_literals_model.cpp - the run-literal pass of the study
// (gpu/run_literals_model.h, which bench_run_literals checks its kernel
// against): tile by tile, with the bytes before each tile setting the runs,
// it finds exactly the run literals a naive search finds in each payload.
#include "gpu/run_literals_model.h"
#include "gpu/walk_hits_host.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace wm::gpu;
using namespace wm::gpu::study;

namespace {

bool naive_occurs(const std::string &payload, const Literal &l) {
    auto eq = [&](char a, char b) {
        const auto x = static_cast<uint8_t>(a), y = static_cast<uint8_t>(b);
        return l.nocase ? fold_ascii(x) == fold_ascii(y) : x == y;
    };
    return std::search(payload.begin(), payload.end(), l.bytes.begin(), l.bytes.end(), eq) != payload.end();
}

// Every payload's mask from the model, tile by tile, as the kernel runs it.
// A last payload of one byte takes the zeros that pad the last tile (the
// kernel's text has them too); its mask is left out.
std::vector<unsigned long long> model_masks(std::vector<std::string> payloads, const RunTables &t) {
    payloads.push_back("#");
    const bench::Corpus c = bench::corpus_of(payloads);
    const HitText text = hit_text(c.bytes.data(), c.offsets, c.bytes.size());
    const auto lookback = run_lookback<kHitTile>(text.starts);
    std::vector<unsigned long long> masks(payloads.size(), 0);
    for (size_t x = 0; x < text.tiles; ++x) {
        const uint8_t *tile = text.raw.data() + x * kHitTile;
        run_tile<kHitTile>(
            t, [&](int j) { return uint32_t{tile[j]}; }, lookback[x], text.starts[x],
            [&](uint32_t k, unsigned long long m) { masks[text.first_payload[x] + k] |= m; });
    }
    masks.pop_back();
    return masks;
}

std::vector<unsigned long long> naive_masks(const std::vector<std::string> &payloads, const std::vector<Literal> &runs) {
    std::vector<unsigned long long> masks(payloads.size(), 0);
    for (size_t p = 0; p < payloads.size(); ++p)
        for (size_t i = 0; i < runs.size(); ++i)
            if (naive_occurs(payloads[p], runs[i])) masks[p] |= 1ull << i;
    return masks;
}

} // namespace

TEST(RunLiterals, WhichLiteralsAreRuns) {
    EXPECT_TRUE(is_run_literal({"x", false}));
    EXPECT_TRUE(is_run_literal({std::string(5, '\0'), false}));
    EXPECT_TRUE(is_run_literal({"aAaA", true}));
    EXPECT_FALSE(is_run_literal({"aAaA", false}));
    EXPECT_FALSE(is_run_literal({"aab", false}));
    EXPECT_FALSE(is_run_literal({std::string(kRunCap + 1, 'a'), false}));
    EXPECT_THROW(run_tables({{"ab", false}}), std::invalid_argument);
    EXPECT_THROW(run_tables(std::vector<Literal>(kMaxRunLiterals + 1, Literal{"z", false})), std::invalid_argument);
}

// Runs of a few bytes (letters in both cases, |00|, |90|, digits) in
// payloads of 1 to 300 bytes, so runs cross tiles and payloads end mid-run.
TEST(RunLiterals, ModelEqualsNaiveSearchOnRandomPayloads) {
    const std::string alphabet("aAxX1\0\x90;", 8);
    for (uint32_t seed = 1; seed <= 6; ++seed) {
        std::mt19937 rng(seed);
        std::vector<Literal> runs;
        for (uint32_t i = 0; i < 40; ++i) {
            const char b = alphabet[rng() % alphabet.size()];
            const bool nocase = rng() % 2;
            std::string bytes(1 + rng() % (seed % 2 ? 12 : kRunCap), b);
            if (nocase) // mixed case in the literal itself: it is still one byte folded
                for (char &c : bytes)
                    if (rng() % 2 && ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) c ^= 0x20;
            runs.push_back({bytes, nocase});
        }
        std::vector<std::string> payloads;
        for (uint32_t p = 0; p < 300; ++p) {
            std::string s;
            const uint32_t len = 1 + rng() % (p % 7 == 0 ? 300 : 40);
            while (s.size() < len) s.append(1 + rng() % (rng() % 4 ? 3 : 40), alphabet[rng() % alphabet.size()]);
            s.resize(len);
            payloads.push_back(s);
        }
        const auto want = naive_masks(payloads, runs);
        EXPECT_EQ(model_masks(payloads, run_tables(runs)), want) << "seed " << seed;
        // Not vacuous: some payloads hold some of the literals, none holds all.
        EXPECT_GT(std::count_if(want.begin(), want.end(), [](auto m) { return m != 0; }), 50) << "seed " << seed;
        EXPECT_GT(std::count(want.begin(), want.end(), 0ull), 0) << "seed " << seed;
    }
}

// A run that starts in one tile and ends in the next is found only through
// the next tile's lookback; a run across two payloads is no run.
TEST(RunLiterals, RunsAcrossTilesButNotAcrossPayloads) {
    const std::vector<Literal> runs = {{std::string(8, 'A'), false}, {std::string(6, '\0'), false}};
    std::string first(60, 'b');
    first += std::string(8, 'A'); // bytes 60..67: tile 0 holds four, tile 1 the rest
    first += "c";
    const std::string second(3, '\0'), third(3, '\0'); // three and three: no run of six
    const std::vector<std::string> payloads = {first, second, third, std::string(6, '\0')};
    const auto got = model_masks(payloads, run_tables(runs));
    EXPECT_EQ(got, (std::vector<unsigned long long>{1, 0, 0, 2}));
    EXPECT_EQ(got, naive_masks(payloads, runs));
}
