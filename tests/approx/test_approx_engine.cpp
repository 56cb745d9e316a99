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

char fold(char c, bool nocase) { return nocase && c >= 'A' && c <= 'Z' ? char(c + 32) : c; }

// Levenshtein distance of a and b, the textbook DP.
uint32_t levenshtein(const std::string &a, const std::string &b, bool nocase) {
    std::vector<std::vector<uint32_t>> d(a.size() + 1, std::vector<uint32_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = uint32_t(i);
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = uint32_t(j);
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j)
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                                d[i - 1][j - 1] + (fold(a[i - 1], nocase) != fold(b[j - 1], nocase))});
    return d[a.size()][b.size()];
}

// Expected engine output: ends from the plain DP, then the documented
// filter, with a Levenshtein match's start found by trying every substring
// that ends there (fewest edits, then the latest start, at or after offset).
std::vector<Match> expected(const std::vector<rules::Rule> &rs, const OwnedBatch &b) {
    std::vector<Match> out;
    for (uint32_t i = 0; i < rs.size(); ++i) {
        const auto &r = rs[i];
        if (!r.max_edits && !r.max_mismatches) continue;
        approx::ApproxPattern p{r.pattern, r.max_edits ? *r.max_edits : *r.max_mismatches,
                                r.max_edits ? approx::Metric::Levenshtein : approx::Metric::Hamming, r.nocase};
        const uint32_t m_len = uint32_t(r.pattern.size());
        for (const auto &m : reference_scan({p}, b.view())) {
            if (r.depth && m.end > r.offset + r.depth) continue;
            std::optional<uint32_t> start;
            if (r.max_mismatches) {
                if (m.end >= m_len && m.end - m_len >= r.offset) start = m.end - m_len;
            } else {
                const std::string text(b.data.begin() + b.offsets[m.payload], b.data.begin() + b.offsets[m.payload + 1]);
                uint32_t best = UINT32_MAX;
                // Longer than m + k is more than k edits away.
                const uint32_t lo = m.end > m_len + p.k ? m.end - m_len - p.k : 0;
                for (uint32_t s = std::max(lo, r.offset); s <= m.end; ++s) {
                    const uint32_t d = levenshtein(r.pattern, text.substr(s, m.end - s), r.nocase);
                    if (d <= p.k && d <= best) best = d, start = s; // later starts win ties
                }
            }
            if (start) out.push_back(Match{i, m.payload, *start, m.end});
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

// The start used to be end - m whatever the alignment: an insertion made a
// match count from a byte before it, a deletion from a byte inside it, and
// `offset` kept or dropped matches by that made-up start.
TEST(ApproxEngineCpu, OffsetAndStartFollowTheAlignment) {
    std::vector<rules::Rule> rs = {rule(1, "abcdef", 1, {}, 3), rule(2, "abcdef", 1, {}, 1), rule(3, "abcdef", 1, {})};
    OwnedBatch b;
    b.add("xxxabdefyyy"); // "abdef" at [3, 8): one deletion
    b.add("abcXdefyyyy"); // "abcXdef" at [0, 7): one insertion
    ApproxEngine e(rs, ApproxBackend::Cpu);
    std::vector<Match> out;
    e.scan(view(b), WM_OUTPUT_POSITIONS, out);
    EXPECT_EQ(out, (std::vector<Match>{{0, 0, 3, 8}, {1, 0, 3, 8}, {2, 0, 3, 8}, {2, 1, 0, 7}}));
    EXPECT_EQ(out, expected(rs, b));
}

TEST(ApproxEngineCpu, RandomRulesMatchReference) {
    size_t total = 0;
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
        total += out.size();
    }
    EXPECT_GT(total, 0u); // the seeds' cases plant matches: an engine finding none must fail
}

TEST(ApproxEngineCpu, GpuBackendWithoutDeviceSaysWhy) {
    std::string why;
    if (approx::approx_gpu_usable(0, &why)) GTEST_SKIP() << "a GPU is usable here";
    EXPECT_THROW(ApproxEngine({rule(1, "abcdef", 1, {})}, ApproxBackend::Gpu), wm::gpu::GpuError);
}
