// tests/gpu/test_bench_inputs.cpp - the benchmarks' inputs
// (gpu/ac_bench_corpus.h): corpus and literal files survive a round trip,
// tiling repeats whole corpora, subsets are fixed by their seed, and
// drop_byte_runs leaves out exactly the literals that are one byte repeated.
#include "gpu/ac_bench_corpus.h"
#include "tests/scratch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

using namespace wm::gpu;
using namespace wm::gpu::bench;

namespace {

Literal lit(std::string bytes, bool nocase = false) { return Literal{std::move(bytes), nocase}; }

std::vector<std::pair<std::string, bool>> keys(const std::vector<Literal> &v) {
    std::vector<std::pair<std::string, bool>> k;
    for (const Literal &l : v) k.emplace_back(l.bytes, l.nocase);
    return k;
}

Corpus three_payloads() {
    Corpus c;
    for (std::string p : {std::string("GET /"), std::string(1, '\0'), std::string("\xff\x00z", 3)}) {
        c.bytes.insert(c.bytes.end(), p.begin(), p.end());
        c.offsets.push_back(static_cast<uint32_t>(c.bytes.size()));
    }
    return c;
}

} // namespace

TEST(BenchInputs, DropByteRunsLeavesOutOnlyRunsOfOneByte) {
    const std::vector<Literal> all = {
        lit("x"),                      // one byte
        lit(std::string(3, '\0')),     // |00 00 00|
        lit("aaaa"),                   // a run
        lit("aA", true),               // a run once case is folded
        lit("aA"),                     // not a run when case matters
        lit("ab"),                     // two bytes
        lit(std::string("\0\0\1", 3)), // a run with another byte after it
        lit("AAAAAAAA", true),
        lit("1;"),
    };
    const auto kept = drop_byte_runs(all);
    const std::vector<std::pair<std::string, bool>> want = {
        {"aA", false}, {"ab", false}, {std::string("\0\0\1", 3), false}, {"1;", false}};
    EXPECT_EQ(keys(kept), want); // and in their original order
    EXPECT_TRUE(drop_byte_runs({}).empty());
}

TEST(BenchInputs, LiteralsRoundTripThroughTheirFile) {
    const std::vector<Literal> v = {lit(std::string("\0\xff\x7f", 3)), lit("Host:", true), lit("|"), lit("\n\r")};
    const std::string path = wm::test::scratch_path("literals.txt");
    save_literals(v, path);
    EXPECT_EQ(keys(load_literals(path)), keys(v));
}

TEST(BenchInputs, CorpusRoundTripsAndATruncatedFileIsRefused) {
    const Corpus c = three_payloads();
    const std::string path = wm::test::scratch_path("zeek.corpus");
    save_corpus(c, path);
    const Corpus back = load_corpus(path);
    EXPECT_EQ(back.bytes, c.bytes);
    EXPECT_EQ(back.offsets, c.offsets);

    // Cut the file one byte short: the loader names the file and says why.
    std::ifstream in(path, std::ios::binary);
    std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string cut = wm::test::scratch_path("cut.corpus");
    std::ofstream(cut, std::ios::binary).write(whole.data(), static_cast<std::streamsize>(whole.size() - 1));
    try {
        load_corpus(cut);
        FAIL() << "a truncated corpus loaded";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(cut), std::string::npos) << e.what();
    }
    std::ofstream(cut, std::ios::binary) << "PCAP";
    EXPECT_THROW(load_corpus(cut), std::runtime_error);
}

TEST(BenchInputs, TilingRepeatsWholeCorpora) {
    const Corpus c = three_payloads(); // 9 bytes, 3 payloads
    ASSERT_EQ(c.bytes.size(), 9u);
    EXPECT_EQ(tiled_size(c, 1), 9u);
    EXPECT_EQ(tiled_size(c, 9), 9u);
    EXPECT_EQ(tiled_size(c, 10), 18u);
    EXPECT_EQ(tiled_size(Corpus{}, 100), 0u);

    std::vector<uint8_t> dst(30, 0xee);
    std::vector<uint32_t> offsets;
    EXPECT_THROW(tile_corpus(c, 20, dst.data(), 26, offsets), std::runtime_error); // 27 bytes needed
    ASSERT_EQ(tile_corpus(c, 20, dst.data(), dst.size(), offsets), 27u);
    ASSERT_EQ(offsets.size(), 10u);
    for (size_t k = 0; k < 3; ++k) {
        EXPECT_TRUE(std::equal(c.bytes.begin(), c.bytes.end(), dst.begin() + k * 9)) << "copy " << k;
        for (size_t i = 0; i <= 3; ++i) EXPECT_EQ(offsets[k * 3 + i], k * 9 + c.offsets[i]);
    }
    EXPECT_EQ(dst[27], 0xee); // nothing written past the copies
}

TEST(BenchInputs, SubsetsAreFixedByTheirSeed) {
    std::vector<Literal> all;
    for (int i = 0; i < 50; ++i) all.push_back(lit("p" + std::to_string(i)));
    EXPECT_EQ(keys(literal_subset(all, 10, 7)), keys(literal_subset(all, 10, 7)));
    EXPECT_NE(keys(literal_subset(all, 10, 7)), keys(literal_subset(all, 10, 8)));
    auto every = keys(literal_subset(all, 500, 7)); // more than there are: all of them, shuffled
    auto sorted = keys(all);
    std::sort(every.begin(), every.end());
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(every, sorted);
    // A smaller subset is a prefix of a larger one with the same seed (the sweep's sets nest).
    const auto small = keys(literal_subset(all, 10, 7)), large = keys(literal_subset(all, 30, 7));
    EXPECT_TRUE(std::equal(small.begin(), small.end(), large.begin()));
}
