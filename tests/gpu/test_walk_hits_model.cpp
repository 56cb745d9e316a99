// tests/gpu/test_walk_hits_model.cpp - the CPU model of the two-kernel Set
// study (gpu/walk_hits_host.h, which bench_walk_hits checks its kernels
// against): its 16-bit rows step like the 32-bit rows, and its tiles, run-outs
// and payload numbering give exactly the naive matcher's distinct pairs.
#include "gpu/ac_compile.h"
#include "gpu/ac_tuning.h"
#include "gpu/walk_hits_host.h"
#include "reference.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>

using namespace wm::gpu;
using namespace wm::gpu::study;
using namespace wm::gpu::test;

namespace {

// Over 65,535 states, so both 16-bit layouts escape to the 32-bit row: long
// random keys over letters the text never holds, plus short patterns and
// pieces of the payloads that do match, across tile boundaries too.
Case study_case(uint32_t seed, bool checked_outputs) {
    std::mt19937 rng(seed);
    Case c;
    const std::string text_letters = "abcdABCD", key_letters = "efghijklmnopqrst";
    for (uint32_t i = 0; i < 40; ++i) {
        const uint32_t n = 1 + rng() % 400;
        for (uint32_t j = 0; j < n; ++j) c.data.push_back(static_cast<uint8_t>(text_letters[rng() % 8]));
        c.offs.push_back(static_cast<uint32_t>(c.data.size()));
    }
    auto add = [&](std::string bytes) {
        Literal l;
        l.bytes = std::move(bytes);
        l.nocase = !checked_outputs || rng() % 2;
        if (checked_outputs && rng() % 3 == 0) l.offset = rng() % 20, l.depth = rng() % 2 ? 0 : rng() % 60;
        c.pats.push_back(l);
    };
    for (uint32_t i = 0; i < 9000; ++i) {
        std::string s(8 + rng() % 9, 'e');
        for (char &ch : s) ch = key_letters[rng() % key_letters.size()];
        add(s);
    }
    for (uint32_t i = 0; i < 60; ++i) {
        std::string s(1 + rng() % 5, 'a');
        for (char &ch : s) ch = text_letters[rng() % 8];
        add(s);
    }
    for (uint32_t i = 0; i < 60; ++i) { // pieces of the text (up to 20 bytes: longer than the 16-byte keys)
        const uint32_t len = 2 + rng() % 19, at = rng() % (static_cast<uint32_t>(c.data.size()) - len);
        add(std::string(c.data.begin() + at, c.data.begin() + at + len));
    }
    return c;
}

// A case, its automaton (one group of 32-bit states, every state dense), the
// study's rows and the naive matcher's distinct pairs.
struct Study {
    Case c;
    AcBlob blob;
    AcView v{};
    HostRows h;
    std::vector<Match> naive;
    const AcGroupView &g() const { return v.groups[0]; }
};

std::unique_ptr<Study> study(uint32_t seed, bool checked_outputs) {
    auto s = std::make_unique<Study>();
    s->c = study_case(seed, checked_outputs);
    const AcCompileOptions co = study_compile_options();
    s->blob = compile_ac(s->c.pats, co);
    s->v = make_ac_view(s->blob.bytes.data(), s->blob.bytes.data());
    EXPECT_EQ(s->v.num_groups, 1u);
    EXPECT_EQ(s->v.state_bytes, 4u);
    EXPECT_TRUE(ac_all_dense(s->v));
    s->h = host_rows(s->g());
    s->naive = dedup_set(naive_matches(s->c.pats, s->c.view()));
    return s;
}

std::vector<Match> model_pairs(const ModelOut &m) {
    std::vector<Match> out;
    for (unsigned long long k : m.keys)
        out.push_back(Match{static_cast<uint32_t>(k & 0xffffffffu), static_cast<uint32_t>(k >> 32), 0});
    return out;
}

template <HitRows R> ModelOut model(const Study &s) {
    const AcGroupView &g = s.g();
    const HitRowsView r{static_cast<const uint32_t *>(g.dense),
                        R == HitRows::Narrow16F ? s.h.narrow16f.data() : s.h.narrow16b.data(), s.h.flags2.data(),
                        g.num_classes};
    const HitText text = hit_text(s.c.data.data(), s.c.offs, s.c.data.size());
    return run_model<R>(r, g, text, text.tiles);
}

TEST(WalkHitsModel, NarrowRowsStepLikeTheWideRows) {
    const auto st = study(1, false);
    const AcGroupView &g = st->g();
    const HostRows &h = st->h;
    ASSERT_GT(g.num_states, 65535u) << "both layouts must escape";
    const auto *wide = static_cast<const uint32_t *>(g.dense);
    const HitRowsView r32{wide, nullptr, nullptr, g.num_classes}, r16f{wide, h.narrow16f.data(), nullptr, g.num_classes},
        r16b{wide, h.narrow16b.data(), h.flags2.data(), g.num_classes};
    uint64_t bad = 0, escapes_f = 0, escapes_b = 0;
    for (uint32_t s = 0; s < g.num_states; ++s)
        for (uint32_t cl = 0; cl < g.num_classes; ++cl) {
            const uint32_t t = hit_step<HitRows::Wide32>(r32, s, cl);
            bad += hit_step<HitRows::Narrow16F>(r16f, s, cl) != t;
            bad += hit_step<HitRows::Narrow16B>(r16b, s, cl) != t;
            escapes_f += h.narrow16f[size_t{s} * g.num_classes + cl] == kEscape16F;
            escapes_b += h.narrow16b[size_t{s} * g.num_classes + cl] == kEscape16B;
        }
    EXPECT_EQ(bad, 0u);
    EXPECT_GT(escapes_f, 0u);
    EXPECT_GT(escapes_b, 0u);
}

// Every pattern nocase with no bounds: the pairs of patterns that fit the
// 16-byte keys are exactly the naive ones; the longer pieces' leading bytes
// go unverified, so they may only add pairs.
TEST(WalkHitsModel, KeysEqualTheNaiveDistinctPairsForEveryRowLayout) {
    const auto st = study(2, false);
    const std::vector<Match> &want_all = st->naive;
    ASSERT_GT(want_all.size(), 200u) << "the case must match often";
    auto exact = [&](std::vector<Match> m) {
        m.erase(std::remove_if(m.begin(), m.end(),
                               [&](const Match &x) { return st->c.pats[x.pattern].bytes.size() > tuning::kKeyBytes; }),
                m.end());
        return m;
    };
    const ModelOut m32 = model<HitRows::Wide32>(*st);
    const std::vector<Match> got = model_pairs(m32);
    EXPECT_EQ(exact(got), exact(want_all));
    EXPECT_TRUE(std::includes(got.begin(), got.end(), want_all.begin(), want_all.end(), positions_order_less));
    const ModelOut m16f = model<HitRows::Narrow16F>(*st);
    EXPECT_EQ(m16f.keys, m32.keys);
    EXPECT_EQ(m16f.records, m32.records);
    EXPECT_EQ(model<HitRows::Narrow16B>(*st).keys, m32.keys);
}

// Checked outputs (exact case, offset/depth, long patterns) go unverified in
// the study: it may report more pairs, never fewer.
TEST(WalkHitsModel, CheckedOutputsOnlyAddPairs) {
    const auto st = study(3, true);
    ASSERT_GT(st->naive.size(), 100u);
    const std::vector<Match> got = model_pairs(model<HitRows::Wide32>(*st));
    EXPECT_TRUE(std::includes(got.begin(), got.end(), st->naive.begin(), st->naive.end(), positions_order_less));
    EXPECT_GT(got.size(), st->naive.size()) << "bounds and case went unverified, so some pairs are extra";
}

TEST(WalkHitsModel, EmptyPayloadsAreRefused) {
    const std::vector<uint8_t> bytes{'a', 'b'};
    EXPECT_THROW(hit_text(bytes.data(), {0, 1, 1, 2}, 2), std::invalid_argument);
}

} // namespace
