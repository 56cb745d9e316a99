// ApproxEngine (CPU backend: Hyperscan extended parameters) vs the plain DP,
// with offset/depth/nocase and exact rules mixed in (they are ignored).
#include "approx_engine.h"
#include "cases.h"
#include "rules/rule.h"
#include "gpu/approx/approx_matcher.h"
#include "gpu/gpu_matcher.h"

#include <gtest/gtest.h>

using namespace wm;
using namespace wm::approx::test;

namespace {
rules::Rule rule(uint32_t id, std::string pat, std::optional<uint32_t> edits,
                 std::optional<uint32_t> mism, uint32_t offset = 0, uint32_t depth = 0) {
    rules::Rule r;
    r.id = id;
    r.pattern = std::move(pat);
    r.max_edits = edits;
    r.max_mismatches = mism;
    r.offset = offset;
    r.depth = depth;
    return r;
}

// Expected engine output from the plain DP and the documented filter.
std::vector<Match> expected(const std::vector<rules::Rule> &rs, const OwnedBatch &b) {
    std::vector<Match> out;
    for (uint32_t i = 0; i < rs.size(); ++i) {
        const auto &r = rs[i];
        if (!r.max_edits && !r.max_mismatches) continue;
        approx::ApproxPattern p{r.pattern, r.max_edits ? *r.max_edits : *r.max_mismatches,
                                r.max_edits ? approx::Metric::Levenshtein : approx::Metric::Hamming, r.nocase};
        for (const auto &m : reference_scan({p}, b.view())) {
            const uint32_t start = m.end >= r.pattern.size() ? m.end - uint32_t(r.pattern.size()) : 0;
            if (start < r.offset || (r.depth && m.end > r.offset + r.depth)) continue;
            out.push_back(Match{i, m.payload, start, m.end});
        }
    }
    sort_matches(out);
    return out;
}

BatchView view(const OwnedBatch &b) {
    BatchView v;
    v.data = b.data.data();
    v.offsets = b.offsets.data();
    v.count = b.offsets.size() - 1;
    return v;
}
} // namespace

TEST(ApproxEngineCpu, MatchesReferenceWithOffsetDepth) {
    std::vector<rules::Rule> rs = {rule(1, "password", 2, {}), rule(2, "admin", {}, {}),
                                   rule(3, "secret", {}, 1), rule(4, "passwd", 1, {}, 4, 20),
                                   rule(5, "root:x:0", 1, {}, 0, 12)};
    rs[0].nocase = true;
    OwnedBatch b;
    for (const char *t : {"user=admin&pasword=1", "PASSWORD", "xxxxpasswdxxxxxxxxxxpassxd", "sekret secrat",
                          "root:x:0:0", "", "p", "root:y:0 root:x:0"})
        b.add(t);
    ApproxEngine e(rs, ApproxBackend::Cpu);
    EXPECT_EQ(e.rule_count(), 4u);
    std::vector<Match> out;
    e.scan(view(b), WM_OUTPUT_POSITIONS, out);
    EXPECT_EQ(out, expected(rs, b));
    EXPECT_FALSE(out.empty());
    std::vector<Match> set;
    e.scan(view(b), WM_OUTPUT_SET, set);
    auto want = expected(rs, b);
    to_set(want);
    EXPECT_EQ(set, want);
}

TEST(ApproxEngineCpu, RandomRulesMatchReference) {
    for (uint32_t seed = 300; seed < 305; ++seed) {
        const Case c = random_case(seed, 20, 24, 20, 400);
        std::vector<rules::Rule> rs;
        for (uint32_t i = 0; i < c.pats.size(); ++i) {
            const auto &p = c.pats[i];
            if (p.bytes.size() <= p.k + 1 || p.k > 4) continue; // rules/ rejects short ones; big k: slow HS compile
            auto r = rule(i + 1, p.bytes, {}, {});
            (p.metric == approx::Metric::Levenshtein ? r.max_edits : r.max_mismatches) = p.k;
            r.nocase = p.nocase;
            rs.push_back(r);
        }
        ApproxEngine e(rs, ApproxBackend::Cpu);
        std::vector<Match> out;
        e.scan(view(c.batch), WM_OUTPUT_POSITIONS, out);
        EXPECT_EQ(out, expected(rs, c.batch)) << "seed " << seed;
    }
}

TEST(ApproxEngineCpu, GpuBackendWithoutDeviceSaysWhy) {
    std::string why;
    if (approx::approx_gpu_usable(0, &why)) GTEST_SKIP() << "a GPU is usable here";
    EXPECT_THROW(ApproxEngine({rule(1, "abcdef", 1, {})}, ApproxBackend::Gpu), wm::gpu::GpuError);
}
