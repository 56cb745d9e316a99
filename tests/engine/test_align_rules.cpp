// Align rules in the engine layer: AlignEngine's CPU path against a plain
// full-matrix DP, its GPU path against its CPU path (skipped without a usable
// GPU), the scanner running align rules next to literal and approximate
// ones, the literal engines ignoring them, and the alert/EVE fields.
#include "align_engine.h"
#include "compiled_ruleset.h"
#include "eve_json.h"
#include "random_rules.h"
#include "reference_matcher.h"
#include "scanner.h"

#include "gpu/align/align_search.h"
#include "gpu/align/sw_reference.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <iostream>

#include <algorithm>
#include <cstring>
#include <random>
#include <tuple>

using namespace wm;

namespace {

rules::Rule align_rule(uint32_t id, const std::string &ref, int min_score, int match = 5,
                       int mismatch = -3, int gap_open = 8, int gap_extend = 1) {
    rules::Rule r;
    r.id = id;
    r.msg = "align " + std::to_string(id);
    rules::AlignSpec a;
    a.reference = ref;
    a.min_score = min_score;
    a.match = match;
    a.mismatch = mismatch;
    a.gap_open = gap_open;
    a.gap_extend = gap_extend;
    r.align = a;
    return r;
}

rules::Rule literal_rule(uint32_t id, const std::string &pat) {
    rules::Rule r;
    r.id = id;
    r.msg = "literal " + std::to_string(id);
    r.pattern = pat;
    return r;
}

// A copy of ref with substitutions, insertions and deletions (about 1 in 8 bytes).
std::string mutate(std::mt19937 &rng, const std::string &ref) {
    std::string out;
    for (char c : ref) {
        const int r = static_cast<int>(rng() % 24);
        if (r == 0) continue;                                   // deletion
        if (r == 1) out.push_back(static_cast<char>(rng()));    // insertion
        out.push_back(r == 2 ? static_cast<char>(rng()) : c);   // substitution
    }
    return out;
}

// Independent expectation for one (payload, rule): the full H matrix of the
// whole payload; score = its maximum, end = 1 + the first column holding it;
// start from the traceback over the whole payload prefix (as the GPU does).
bool expected_match(const rules::Rule &r, const std::string &payload, Match *m) {
    const rules::AlignSpec &a = *r.align;
    const align::ScoreParams p = AlignEngine::score_params(a);
    const auto *q = reinterpret_cast<const uint8_t *>(a.reference.data());
    const auto *d = reinterpret_cast<const uint8_t *>(payload.data());
    const size_t mq = a.reference.size(), n = payload.size();
    if (n == 0) return false;
    const align::FullDp dp = align::reference_full_dp(q, mq, d, n, p);
    int best = 0;
    size_t col = 0;
    for (size_t j = 0; j < n; ++j)
        for (size_t i = 0; i < mq; ++i)
            if (dp.h[i * n + j] > best) {
                best = dp.h[i * n + j];
                col = j;
            }
    if (best < a.min_score) return false;
    const align::Hit h = align::reference_traceback(q, mq, d, 0, col, p);
    EXPECT_EQ(h.score, best);
    // The region is a real alignment of that score.
    EXPECT_EQ(align::score_of_cigar(h.cigar, q, mq, h.query_begin, d, n, h.db_begin, p), best);
    *m = Match{0, 0, static_cast<uint32_t>(h.db_begin), static_cast<uint32_t>(h.db_end), best};
    return true;
}

struct Corpus {
    rules::RuleSet rs;
    test::OwnedBatch batch;
    std::vector<std::string> payloads;
};

// References of several lengths in two score groups, one reference shared by
// two rules with different thresholds, a literal and an approximate rule the
// align engine must ignore; payloads of edge and random lengths (some far
// longer than the traceback window of the short references), half carrying
// mutated copies of a reference.
Corpus make_corpus(uint32_t seed) {
    std::mt19937 rng(seed);
    Corpus c;
    const std::string alphabet = "ACGT";
    std::vector<std::string> refs;
    for (size_t len : {1u, 7u, 40u, 120u, 300u})
        refs.push_back(test::random_bytes(rng, len, alphabet));
    c.rs.rules = {align_rule(1, refs[0], 5),
                  align_rule(2, refs[1], 20),
                  align_rule(3, refs[2], 90),
                  align_rule(4, refs[2], 160), // same reference and scores, higher bar
                  align_rule(5, refs[3], 150, 2, -1, 3, 2),
                  align_rule(6, refs[4], 400, 3, -2, 5, 1),
                  literal_rule(7, "ACGTACGT")};
    auto approx = literal_rule(8, "GATTACA");
    approx.max_edits = 1;
    c.rs.rules.push_back(approx);
    for (int k = 0; k < 40; ++k) {
        size_t n = k < 3 ? static_cast<size_t>(k) : 20 + rng() % 700;
        if (k % 10 == 9) n = 2500 + rng() % 1000;
        std::string pl = test::random_bytes(rng, n, alphabet + "xy");
        if (k % 2 == 0 && n > 0) {
            const std::string copy = mutate(rng, refs[rng() % refs.size()]);
            const size_t at = rng() % n;
            pl.replace(at, std::min(copy.size(), n - at), copy);
        }
        c.payloads.push_back(pl);
        c.batch.add(pl);
    }
    return c;
}

std::vector<Match> expected_matches(const Corpus &c) {
    std::vector<Match> want;
    for (uint32_t p = 0; p < c.payloads.size(); ++p)
        for (uint32_t r = 0; r < c.rs.rules.size(); ++r) {
            Match m;
            if (!c.rs.rules[r].align || !expected_match(c.rs.rules[r], c.payloads[p], &m)) continue;
            m.rule = r;
            m.payload = p;
            want.push_back(m);
        }
    std::sort(want.begin(), want.end(), [](const Match &a, const Match &b) {
        return std::tie(a.payload, a.end, a.rule, a.start) < std::tie(b.payload, b.end, b.rule, b.start);
    });
    return want;
}

std::string describe(const std::vector<Match> &v) {
    std::string s;
    for (const auto &m : v)
        s += "p" + std::to_string(m.payload) + " r" + std::to_string(m.rule) + " [" +
             std::to_string(m.start) + "," + std::to_string(m.end) + ") s" +
             std::to_string(m.score) + "\n";
    return s;
}

} // namespace

TEST(AlignRules, RuleDefaultsAreGpuAlignDefaults) {
    const rules::AlignSpec a;
    const align::ScoreParams p;
    EXPECT_EQ(std::tie(a.match, a.mismatch, a.gap_open, a.gap_extend),
              std::tie(p.match, p.mismatch, p.gap_open, p.gap_extend));
    EXPECT_EQ(rules::kMaxReferenceBytes, 1024u); // PayloadAligner's reference limit
}

TEST(AlignEngineCpu, EqualsThePlainDpOnRandomPayloadsWithPlantedCopies) {
    for (uint32_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE(seed);
        const Corpus c = make_corpus(seed);
        AlignEngine eng(c.rs.rules, AlignBackend::Cpu);
        EXPECT_EQ(eng.rule_count(), 6u);
        EXPECT_EQ(eng.group_count(), 3u);
        std::vector<Match> got;
        eng.scan(c.batch.view(), WM_OUTPUT_POSITIONS, got);
        const auto want = expected_matches(c);
        EXPECT_EQ(got, want) << "got:\n" << describe(got) << "want:\n" << describe(want);
        // The corpus exercises both sides of the thresholds: rules 2 and 3
        // share a reference, 3 with the higher min_score.
        auto count = [&](uint32_t r) {
            return std::count_if(want.begin(), want.end(), [&](const Match &m) { return m.rule == r; });
        };
        EXPECT_GT(count(3), 0);
        EXPECT_GT(count(2), count(3));
        // Some hits end past the CPU path's traceback window (exact_overlap),
        // so the bounded window is compared with the whole-prefix one.
        EXPECT_TRUE(std::any_of(want.begin(), want.end(), [&](const Match &m) {
            const rules::AlignSpec &a = *c.rs.rules[m.rule].align;
            return m.end > align::exact_overlap(a.reference.size(), AlignEngine::score_params(a));
        }));
        // Set mode changes nothing: an align match always carries its region.
        std::vector<Match> set;
        eng.scan(c.batch.view(), WM_OUTPUT_SET, set);
        EXPECT_EQ(set, got);
    }
}

TEST(AlignEngineGpu, EqualsTheCpuPath) {
    std::string why;
    if (!align::align_gpu_usable(0, &why))
        GTEST_SKIP() << "no usable GPU for the alignment kernels: " << why;
    for (uint32_t seed : {4u, 5u}) {
        SCOPED_TRACE(seed);
        const Corpus c = make_corpus(seed);
        AlignEngine gpu(c.rs.rules, AlignBackend::Gpu), cpu(c.rs.rules, AlignBackend::Cpu);
        std::vector<Match> g, k;
        gpu.scan(c.batch.view(), WM_OUTPUT_SET, g);
        cpu.scan(c.batch.view(), WM_OUTPUT_SET, k);
        EXPECT_EQ(g, k) << "gpu:\n" << describe(g) << "cpu:\n" << describe(k);
        EXPECT_FALSE(g.empty());
        // Aligners that sleep while the device works find the same.
        AlignEngine blocking(c.rs.rules, AlignBackend::Gpu, 0, gpu::HostWait::Block);
        ASSERT_GT(blocking.group_count(), 1u);
        for (size_t i = 0; i < blocking.group_count(); ++i) {
            EXPECT_EQ(blocking.gpu_host_wait(i), gpu::HostWait::Block) << "group " << i;
            EXPECT_EQ(gpu.gpu_host_wait(i), gpu::HostWait::Spin) << "group " << i;
        }
        std::vector<Match> b;
        blocking.scan(c.batch.view(), WM_OUTPUT_SET, b);
        EXPECT_EQ(b, k) << "blocking gpu:\n" << describe(b) << "cpu:\n" << describe(k);
    }
}

TEST(AlignScanner, GpuBackendVerifiedAgainstTheCpuPath) {
    const Corpus c = make_corpus(6);
    CompiledRuleSet crs(c.rs);
    // Skipped only for want of a GPU: on one, any exception fails the test.
    std::string why;
    if (!align::align_gpu_usable(0, &why)) GTEST_SKIP() << "GPU backend unavailable: " << why;
    auto sc = std::make_unique<Scanner>(crs, test::scanner_options(WM_BACKEND_GPU, WM_OUTPUT_AUTO, 1));
    std::vector<Match> out;
    EXPECT_EQ(sc->scan(c.batch.view(), out), WM_SUCCESS) << sc->backend_reason();
    EXPECT_TRUE(sc->gpu_only().empty()) << describe(sc->gpu_only());
    EXPECT_TRUE(sc->cpu_only().empty()) << describe(sc->cpu_only());
    EXPECT_EQ(sc->stats().verified_batches, 1u);
}

TEST(AlignScanner, CpuBackendRunsAlignRulesNextToLiteralAndApproximateRules) {
    const Corpus c = make_corpus(7);
    CompiledRuleSet crs(c.rs);
    EXPECT_EQ(crs.alignment_rules(), 6u);
    EXPECT_EQ(crs.approximate_rules(), 1u);
    EXPECT_EQ(crs.min_pattern_len(), 7u); // align rules have no pattern
    ASSERT_NE(crs.hs_database(), nullptr);
    Scanner sc(crs, test::scanner_options(WM_BACKEND_CPU));
    std::vector<Match> out;
    ASSERT_EQ(sc.scan(c.batch.view(), out), WM_SUCCESS);
    std::vector<Match> aligned, others;
    for (const auto &m : out)
        (CompiledRuleSet::is_alignment(crs.rules()[m.rule]) ? aligned : others).push_back(m);
    EXPECT_EQ(aligned, expected_matches(c));
    for (const auto &m : others) EXPECT_EQ(m.score, 0);
    EXPECT_FALSE(others.empty());
}

// A batch of payloads left in place (a replay window's) scans as the packed
// batch, literal, approximate and align rules alike: on the CPU every engine
// reads the payloads where they lie; on the GPU the approximate and align
// engines pack the batch first (packed_view), the literals' gather it.
TEST(AlignScanner, PayloadsLeftInPlaceScanAsPacked) {
    const Corpus c = make_corpus(8);
    CompiledRuleSet crs(c.rs);
    ASSERT_GT(crs.alignment_rules(), 0u);
    ASSERT_GT(crs.approximate_rules(), 0u);
    const test::InPlaceBatch p = test::left_in_place(c.batch, 8);
    std::vector<uint8_t> buf;
    const BatchView packed = packed_view(p.view(c.batch), buf);
    EXPECT_EQ(packed.sources, nullptr);
    EXPECT_EQ(std::string(reinterpret_cast<const char *>(packed.data), packed.offsets[packed.count]), c.batch.data);
    std::string no_gpu;
    const bool gpu = align::align_gpu_usable(0, &no_gpu);
    for (int backend : {WM_BACKEND_CPU, WM_BACKEND_GPU}) {
        if (backend == WM_BACKEND_GPU && !gpu) {
            std::cout << "[ skipped  ] the GPU backend: " << no_gpu << "\n";
            continue;
        }
        auto sc = std::make_unique<Scanner>(crs, test::scanner_options(backend, WM_OUTPUT_POSITIONS, 1));
        SCOPED_TRACE(backend == WM_BACKEND_GPU ? "gpu" : "cpu");
        EXPECT_EQ(sc->takes_payloads_in_place(), backend == WM_BACKEND_CPU);
        std::vector<Match> want, got;
        ASSERT_EQ(sc->scan(c.batch.view(), want), WM_SUCCESS);
        ASSERT_EQ(sc->scan(p.view(c.batch), got), WM_SUCCESS) << describe(sc->gpu_only()) << describe(sc->cpu_only());
        EXPECT_FALSE(want.empty());
        EXPECT_EQ(got, want) << "in place:\n" << describe(got) << "packed:\n" << describe(want);
    }
}

TEST(AlignScanner, OnlyAlignRulesAndProtocolFilters) {
    rules::RuleSet rs;
    rs.rules = {align_rule(1, "MALICIOUS-PAYLOAD-BODY", 60)};
    rs.rules[0].protocol = rules::Protocol::Udp;
    CompiledRuleSet crs(rs);
    EXPECT_EQ(crs.hs_database(), nullptr); // nothing literal to compile
    Scanner sc(crs, test::scanner_options(WM_BACKEND_CPU, WM_OUTPUT_SET));
    test::OwnedBatch b;
    b.add("xx MALICI0US-PAYLAD-BODY yy", {WM_PROTO_UDP, 1, 2}); // 2 edits
    b.add("xx MALICI0US-PAYLAD-BODY yy", {WM_PROTO_TCP, 1, 2}); // wrong protocol
    b.add("benign traffic", {WM_PROTO_UDP, 1, 2});
    std::vector<Match> out;
    ASSERT_EQ(sc.scan(b.view(), out), WM_SUCCESS);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].payload, 0u);
    // 20 matches, one substitution (-3), one deletion (gap of 1: -9).
    EXPECT_EQ(out[0].score, 20 * 5 - 3 - 9);
    EXPECT_EQ(out[0].start, 3u);
    EXPECT_EQ(out[0].end, 24u);
}

TEST(AlignScanner, LiteralEnginesIgnoreAlignRules) {
    rules::RuleSet rs;
    rs.rules = {align_rule(1, "abc", 5), literal_rule(2, "b")};
    CompiledRuleSet crs(rs);
    ReferenceMatcher ref(crs.rules());
    test::OwnedBatch b;
    b.add("abcabc");
    std::vector<Match> out;
    ref.scan(b.view(), WM_OUTPUT_POSITIONS, out);
    ASSERT_EQ(out.size(), 2u); // the literal twice; an empty pattern would match everywhere
    for (const auto &m : out) EXPECT_EQ(m.rule, 1u);
}

TEST(AlignAlerts, EveJsonCarriesScoreAndRegionInEveryMode) {
    rules::RuleSet rs;
    rs.rules = {align_rule(9, "abcdef", 10)};
    CompiledRuleSet crs(rs);
    wm_packet_t p{};
    p.struct_size = sizeof(p);
    p.ip_version = 4;
    p.payload_len = 20;
    wm_alert_t a{};
    a.struct_size = sizeof(a);
    a.packet = &p;
    a.rule_id = 9;
    a.start = 3;
    a.end = 9;
    a.has_score = 1;
    a.score = 27;
    auto j = nlohmann::json::parse(alert_to_eve_json(crs, a)); // has_offset 0: set mode
    EXPECT_EQ(j["align"]["score"], 27);
    EXPECT_EQ(j["payload_offset"], 3);
    EXPECT_EQ(j["payload_end"], 9);
    a.has_score = 0;
    j = nlohmann::json::parse(alert_to_eve_json(crs, a));
    EXPECT_FALSE(j.contains("align"));
    EXPECT_FALSE(j.contains("payload_offset"));
}

TEST(AlignAlerts, AlertToJsonAcceptsTheLayoutBeforeTheScoreFields) {
    wm_ruleset_t *rs = nullptr;
    const std::string yaml = "version: 1\nrules:\n  - {id: 1, msg: m, pattern: x}\n";
    ASSERT_EQ(wm_ruleset_load_string(yaml.data(), yaml.size(), "r.yaml", &rs, nullptr), WM_SUCCESS);
    wm_packet_t p{};
    p.struct_size = sizeof(p);
    p.ip_version = 4;
    // An older caller's alert ends before has_score; bytes past it are not its.
    alignas(wm_alert_t) unsigned char buf[sizeof(wm_alert_t)];
    std::memset(buf, 0xAB, sizeof buf);
    wm_alert_t old{};
    old.struct_size = offsetof(wm_alert_t, has_score);
    old.packet = &p;
    old.rule_id = 1;
    std::memcpy(buf, &old, old.struct_size);
    char *json = nullptr;
    ASSERT_EQ(wm_alert_to_json(rs, reinterpret_cast<const wm_alert_t *>(buf), &json), WM_SUCCESS);
    EXPECT_EQ(std::string(json).find("\"align\""), std::string::npos) << json;
    wm_free(json);
    old.struct_size = offsetof(wm_alert_t, has_score) + 1; // neither layout
    EXPECT_EQ(wm_alert_to_json(rs, &old, &json), WM_INVALID);
    wm_ruleset_free(rs);
}
