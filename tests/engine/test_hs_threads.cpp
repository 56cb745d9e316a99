// Hyperscan on several threads (wm_scanner_options_t::cpu_threads): the
// same matches in the same order as on the calling thread alone, whatever
// the thread count and however the batch is cut (sort_matches() order); and
// equal to the plain reference matcher.
#include "compiled_ruleset.h"
#include "hs_engine.h"
#include "random_rules.h"
#include "reference_matcher.h"

#include <gtest/gtest.h>

using namespace wm;

namespace {

std::vector<Match> scan(HyperscanEngine &e, const BatchView &b, wm_output_mode mode) {
    std::vector<Match> out;
    e.scan(b, mode, out);
    return out;
}

// A batch big enough to be cut into many runs: payloads of 0 to 4 KB, some
// runs of empty ones, over a small alphabet so that matches are dense.
test::OwnedBatch dense_batch(std::mt19937 &rng, size_t bytes, const std::string &alphabet) {
    test::OwnedBatch b;
    size_t total = 0;
    while (total < bytes) {
        const size_t n = rng() % 8 == 0 ? 0 : rng() % 4097;
        b.add(test::random_bytes(rng, n, alphabet));
        total += n;
    }
    return b;
}

TEST(HyperscanThreads, SameMatchesInTheSameOrderAsOneThread) {
    std::mt19937 rng(11);
    CompiledRuleSet rs(test::random_ruleset(rng, 300, "abcdefghAB", 6));
    const test::OwnedBatch batch = dense_batch(rng, 1200 << 10, "abcdefghAB");
    ASSERT_GE(batch.view().offsets[batch.view().count], 2 * HyperscanEngine::kMinRunBytes * 8);
    HyperscanEngine one(rs, 1);
    for (auto mode : {WM_OUTPUT_POSITIONS, WM_OUTPUT_SET}) {
        const std::vector<Match> want = scan(one, batch.view(), mode);
        ASSERT_GT(want.size(), mode == WM_OUTPUT_SET ? 1000u : 100000u) << "case too weak";
        std::vector<Match> sorted = want; // already in the scanner's order
        sort_matches(sorted);
        EXPECT_TRUE(sorted == want);
        for (unsigned threads : {2u, 3u, 8u}) {
            HyperscanEngine many(rs, threads);
            EXPECT_EQ(many.threads(), threads);
            SCOPED_TRACE(testing::Message() << "mode " << mode << ", " << threads << " threads");
            // Twice: the set-mode stamps and the per-run buffers are reused.
            for (int rep = 0; rep < 2; ++rep) EXPECT_TRUE(scan(many, batch.view(), mode) == want);
        }
    }
}

TEST(HyperscanThreads, EqualTheReferenceWithOffsetsAndDepths) {
    std::mt19937 rng(12);
    rules::RuleSet rules = test::random_ruleset(rng, 120, "xyXY", 5);
    for (size_t i = 0; i < rules.rules.size(); i += 3) { // a third scoped by offset and depth
        rules.rules[i].offset = rng() % 40;
        rules.rules[i].depth = rules.rules[i].pattern.size() + rng() % 200;
    }
    CompiledRuleSet rs(rules);
    const test::OwnedBatch batch = dense_batch(rng, 600 << 10, "xyXY");
    HyperscanEngine many(rs, 4);
    ReferenceMatcher ref(rs.rules());
    for (auto mode : {WM_OUTPUT_POSITIONS, WM_OUTPUT_SET}) {
        std::vector<Match> got = scan(many, batch.view(), mode), want;
        ref.scan(batch.view(), mode, want);
        sort_matches(got);
        sort_matches(want);
        EXPECT_EQ(got.size(), want.size()) << "mode " << mode;
        EXPECT_TRUE(got == want) << "mode " << mode;
    }
}

// A small batch stays on the calling thread; one big payload cannot be cut;
// a batch that does not start at offset 0 is cut by its own bytes.
TEST(HyperscanThreads, SmallBatchesOnePayloadAndOffsetBatches) {
    std::mt19937 rng(13);
    CompiledRuleSet rs(test::random_ruleset(rng, 50, "ab", 4));
    HyperscanEngine one(rs, 1), many(rs, 4);
    test::OwnedBatch small;
    small.add(test::random_bytes(rng, 1000, "ab"));
    small.add("");
    EXPECT_TRUE(scan(many, small.view(), WM_OUTPUT_POSITIONS) == scan(one, small.view(), WM_OUTPUT_POSITIONS));
    test::OwnedBatch big;
    big.add(test::random_bytes(rng, 512 << 10, "ab"));
    EXPECT_TRUE(scan(many, big.view(), WM_OUTPUT_SET) == scan(one, big.view(), WM_OUTPUT_SET));
    // The tail of a batch: offsets start past 0, payload indexes from 0.
    const test::OwnedBatch whole = dense_batch(rng, 1 << 20, "ab");
    BatchView tail = whole.view();
    tail.offsets += tail.count / 2;
    tail.count -= tail.count / 2;
    EXPECT_GT(tail.offsets[0], 0u);
    EXPECT_TRUE(scan(many, tail, WM_OUTPUT_POSITIONS) == scan(one, tail, WM_OUTPUT_POSITIONS));
    // Both thread counts could share a mistake in the batch's base offset:
    // the reference says what the tail and the one big payload hold.
    ReferenceMatcher ref(rs.rules());
    for (const BatchView &v : {tail, big.view()}) {
        std::vector<Match> want;
        ref.scan(v, WM_OUTPUT_POSITIONS, want);
        sort_matches(want);
        std::vector<Match> got = scan(many, v, WM_OUTPUT_POSITIONS);
        sort_matches(got);
        EXPECT_FALSE(want.empty());
        EXPECT_TRUE(got == want);
    }
}

} // namespace
