// Scanner: backend choice, protocol/port constraints, canonical order,
// set mode, and that the CPU path works without a GPU.
#include "compiled_ruleset.h"
#include "random_rules.h"
#include "scanner.h"
#include "status_error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace wm;

namespace {

rules::Rule make_rule(uint32_t id, const std::string &pat) {
    rules::Rule r;
    r.id = id;
    r.msg = "rule " + std::to_string(id);
    r.pattern = pat;
    return r;
}

wm_scanner_options_t cpu_options(int mode = WM_OUTPUT_POSITIONS) {
    wm_scanner_options_t o{};
    o.struct_size = sizeof(o);
    o.backend = WM_BACKEND_CPU;
    o.output_mode = mode;
    return o;
}

// The rule set's flat scope table (what the scanner filters each match by)
// against the rule's own fields, over random rules and payload metadata.
TEST(CompiledRuleSet, FlatScopesAgreeWithTheRules) {
    std::mt19937 rng(21);
    rules::RuleSet rs;
    const rules::Protocol protos[] = {rules::Protocol::Any, rules::Protocol::Tcp, rules::Protocol::Udp};
    for (uint32_t id = 1; id <= 300; ++id) {
        auto r = make_rule(id, "p" + std::to_string(id));
        r.protocol = protos[rng() % 3];
        for (uint32_t k = rng() % 4; k > 0; --k) {
            const uint16_t lo = static_cast<uint16_t>(rng() % 3 ? rng() % 100 : rng() % 65536);
            r.ports.push_back({lo, static_cast<uint16_t>(lo + std::min<uint32_t>(65535 - lo, rng() % 3 ? 0 : rng() % 50))});
        }
        rs.rules.push_back(r);
    }
    CompiledRuleSet crs(rs);
    const uint8_t metas[] = {WM_PROTO_ANY, WM_PROTO_TCP, WM_PROTO_UDP, 1};
    size_t yes = 0, no = 0;
    for (int i = 0; i < 100000; ++i) {
        wm_payload_meta_t m{};
        m.proto = metas[rng() % 4];
        m.src_port = static_cast<uint16_t>(rng() % 2 ? rng() % 100 : rng() % 65536);
        m.dst_port = static_cast<uint16_t>(rng() % 2 ? rng() % 100 : rng() % 65536);
        const size_t r = rng() % crs.rules().size();
        const bool want = CompiledRuleSet::applies(crs.rules()[r], m);
        ASSERT_EQ(crs.applies(r, m), want) << "rule " << crs.rules()[r].id;
        (want ? yes : no)++;
    }
    EXPECT_GT(yes, 10000u); // both answers were exercised
    EXPECT_GT(no, 10000u);
}

TEST(Scanner, ProtocolAndPortsFilterMatches) {
    rules::RuleSet rs;
    auto tcp80 = make_rule(1, "evil");
    tcp80.protocol = rules::Protocol::Tcp;
    tcp80.ports = {{80, 80}};
    auto udp = make_rule(2, "evil");
    udp.protocol = rules::Protocol::Udp;
    auto any = make_rule(3, "evil");
    rs.rules = {tcp80, udp, any};
    CompiledRuleSet crs(rs);
    Scanner sc(crs, cpu_options());
    test::OwnedBatch b;
    b.add("xxevil", {WM_PROTO_TCP, 80, 40000});  // rules 1 and 3
    b.add("evil", {WM_PROTO_TCP, 40000, 8080});  // rule 3 only
    b.add("evil", {WM_PROTO_UDP, 53, 53});       // rules 2 and 3
    std::vector<Match> out;
    ASSERT_EQ(sc.scan(b.view(), out), WM_SUCCESS);
    std::vector<std::pair<uint32_t, uint32_t>> got;
    for (const auto &m : out)
        got.emplace_back(m.payload, crs.rules()[m.rule].id);
    std::vector<std::pair<uint32_t, uint32_t>> want{{0, 1}, {0, 3}, {1, 3}, {2, 2}, {2, 3}};
    EXPECT_EQ(got, want);

    // Without metadata the constraints cannot be checked and are not applied.
    ASSERT_EQ(sc.scan(b.view(false), out), WM_SUCCESS);
    EXPECT_EQ(out.size(), 9u);

    // A range takes both its ends, by source or destination port, and
    // nothing past them.
    auto ranged = make_rule(4, "evil");
    ranged.ports = {{8000, 8080}};
    rules::RuleSet rs2;
    rs2.rules = {ranged};
    CompiledRuleSet crs2(rs2);
    Scanner sc2(crs2, cpu_options());
    test::OwnedBatch r;
    r.add("evil", {WM_PROTO_TCP, 40000, 8080}); // the top, as destination
    r.add("evil", {WM_PROTO_UDP, 8000, 40000}); // the bottom, as source
    r.add("evil", {WM_PROTO_TCP, 40000, 8081});
    r.add("evil", {WM_PROTO_TCP, 7999, 40000});
    ASSERT_EQ(sc2.scan(r.view(), out), WM_SUCCESS);
    std::vector<uint32_t> payloads;
    for (const auto &m : out) payloads.push_back(m.payload);
    EXPECT_EQ(payloads, (std::vector<uint32_t>{0, 1}));
}

TEST(Scanner, SetModeGivesDistinctRulesPerPayload) {
    rules::RuleSet rs;
    rs.rules = {make_rule(7, "a"), make_rule(8, "aa")};
    CompiledRuleSet crs(rs);
    Scanner sc(crs, cpu_options(WM_OUTPUT_SET));
    test::OwnedBatch b;
    b.add("aaaa");
    b.add("b");
    b.add("a");
    std::vector<Match> out;
    ASSERT_EQ(sc.scan(b.view(), out), WM_SUCCESS);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].payload, 0u);
    EXPECT_EQ(out[1].payload, 0u);
    EXPECT_EQ(out[2].payload, 2u);
    EXPECT_EQ(out[2].end, 0u);
    EXPECT_EQ(sc.stats().payloads, 3u);
    EXPECT_EQ(sc.stats().bytes, 6u);
}

TEST(Scanner, AutoFallsBackToCpuWithAReasonWhenNoGpu) {
    rules::RuleSet rs;
    rs.rules = {make_rule(1, "x")};
    CompiledRuleSet crs(rs);
    wm_scanner_options_t o = cpu_options();
    o.backend = WM_BACKEND_AUTO;
    Scanner sc(crs, o);
    if (sc.backend() == WM_BACKEND_GPU)
        GTEST_SKIP() << "a GPU is usable here: " << sc.backend_reason();
    EXPECT_EQ(sc.backend(), WM_BACKEND_CPU);
    EXPECT_NE(sc.backend_reason().find("auto: using Hyperscan on the CPU because"),
              std::string::npos)
        << sc.backend_reason();
}

TEST(Scanner, GpuBackendWithoutGpuIsAClearError) {
    rules::RuleSet rs;
    rs.rules = {make_rule(1, "x")};
    CompiledRuleSet crs(rs);
    wm_scanner_options_t o = cpu_options();
    o.backend = WM_BACKEND_GPU;
    try {
        Scanner sc(crs, o);
        EXPECT_EQ(sc.backend(), WM_BACKEND_GPU) << "a GPU is usable here";
    } catch (const StatusError &e) {
        EXPECT_EQ(e.code(), WM_NO_GPU);
        EXPECT_NE(std::string(e.what()).find("GPU backend unavailable"), std::string::npos);
    }
}

} // namespace

namespace {

TEST(Scanner, ExactAndApproximateRulesShareOneMatchStream) {
    rules::RuleSet rs;
    auto exact = make_rule(1, "GET");
    auto approx = make_rule(2, "attack");
    approx.max_edits = 1;
    auto hamming = make_rule(3, "secret");
    hamming.max_mismatches = 1;
    rs.rules = {exact, approx, hamming};
    CompiledRuleSet crs(rs);
    EXPECT_EQ(crs.approximate_rules(), 2u);
    Scanner sc(crs, cpu_options(WM_OUTPUT_SET));
    test::OwnedBatch b;
    b.add("GET /attxck");  // exact 1; "attxck" is one substitution from "attack"
    b.add("sacret atta");  // "sacret" one mismatch from "secret"; "atta" is 2 edits away
    b.add("GET nothing");  // exact only
    std::vector<Match> out;
    ASSERT_EQ(sc.scan(b.view(), out), WM_SUCCESS);
    std::vector<std::pair<uint32_t, uint32_t>> got;
    for (const auto &m : out)
        got.emplace_back(m.payload, crs.rules()[m.rule].id);
    std::vector<std::pair<uint32_t, uint32_t>> want{{0, 1}, {0, 2}, {1, 3}, {2, 1}};
    EXPECT_EQ(got, want);
}

} // namespace
