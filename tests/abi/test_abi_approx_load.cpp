// ABI suite: loading a rule set compiles its approximate rules (Hyperscan
// extended parameters), so a pattern Hyperscan cannot take fails
// wm_ruleset_load_file, and so `warpmatch rules check`, with the rule's
// file:line:col and id, instead of passing and failing later in replay.
#include "warpmatch.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace {

// A rule file of one approximate rule (id 1, at line 3 column 5).
std::string approx_rule_file(const std::string &name, const std::string &pattern, const std::string &knob) {
    const std::string path = ::testing::TempDir() + "wm-abi-" + std::to_string(getpid()) + "-" + name;
    std::ofstream(path) << "version: 1\nrules:\n  - id: 1\n    msg: m\n    pattern: \"" << pattern << "\"\n    "
                        << knob << "\n";
    return path;
}

// Varied bytes, so Hyperscan cannot shortcut a run of one byte.
std::string text_of(size_t n) {
    std::string s;
    for (size_t i = 0; s.size() < n; ++i) s += "abcdefghijklmnopqrstuvwxyz0123456789"[(i * 7 + i / 36) % 36];
    return s;
}

// Matches wm_scan_batch delivers for one payload (-1 when the scan fails).
int matches_in(wm_scanner_t *sc, const std::string &payload) {
    uint32_t offsets[] = {0, static_cast<uint32_t>(payload.size())};
    const wm_batch_t batch{reinterpret_cast<const uint8_t *>(payload.data()), offsets, 1, nullptr};
    int matches = 0;
    auto count = [](uint32_t, uint32_t, uint32_t, uint32_t, void *ctx) {
        ++*static_cast<int *>(ctx);
        return 0;
    };
    return wm_scan_batch(sc, &batch, count, &matches, nullptr) == WM_SUCCESS ? matches : -1;
}

struct RejectedCase {
    const char *name;
    std::string pattern, knob, hyperscan_says;
};

} // namespace

TEST(AbiApproxLoad, PatternsHyperscanRejectsFailTheLoadWithTheirRule) {
    const RejectedCase cases[] = {
        {"edits.yaml", text_of(1000), "max_edits: 10", "Resource limit exceeded."},
        {"mismatches.yaml", text_of(100), "max_mismatches: 30", "Edit distance is too big."},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.name);
        const std::string path = approx_rule_file(c.name, c.pattern, c.knob);
        wm_ruleset_t *rs = nullptr;
        wm_error_t *err = nullptr;
        EXPECT_EQ(wm_ruleset_load_file(path.c_str(), &rs, &err), WM_RULE_ERROR);
        EXPECT_EQ(rs, nullptr);
        ASSERT_NE(err, nullptr);
        ASSERT_EQ(err->count, 1u);
        EXPECT_EQ(std::string(err->diagnostics[0].file), path);
        EXPECT_EQ(err->diagnostics[0].line, 3u);
        EXPECT_EQ(err->diagnostics[0].column, 5u);
        EXPECT_EQ(err->diagnostics[0].rule_id, 1);
        EXPECT_EQ(std::string(err->message),
                  path + ":3:5: rule 1: Hyperscan rejected the approximate pattern: " + c.hyperscan_says);
        wm_error_free(err);
        std::remove(path.c_str());
    }
}

// What Hyperscan takes still loads, and scans.
TEST(AbiApproxLoad, AcceptedApproximateRulesLoadAndMatch) {
    const std::string path = approx_rule_file("ok.yaml", "password", "max_edits: 1");
    wm_ruleset_t *rs = nullptr;
    ASSERT_EQ(wm_ruleset_load_file(path.c_str(), &rs, nullptr), WM_SUCCESS);
    wm_ruleset_info_t info;
    wm_ruleset_info_init(&info);
    ASSERT_EQ(wm_ruleset_info(rs, &info), WM_SUCCESS);
    EXPECT_EQ(info.approximate_rules, 1u);
    wm_scanner_options_t o;
    wm_scanner_options_init(&o);
    o.backend = WM_BACKEND_CPU;
    wm_scanner_t *sc = nullptr;
    ASSERT_EQ(wm_scanner_create(rs, &o, &sc, nullptr), WM_SUCCESS);
    EXPECT_GT(matches_in(sc, "user=x&pasword=1"), 0); // one edit away
    wm_scanner_free(sc);
    wm_ruleset_free(rs);
    std::remove(path.c_str());
}

// A pattern Hyperscan takes but the GPU kernels cannot (longer than their
// 1,024 bytes): under auto the approximate rules run on Hyperscan and the
// scanner says why, naming the rule; under gpu the scanner is refused with
// the rule's location.
TEST(AbiApproxLoad, PatternPastTheGpuKernelsRunsOnHyperscanUnderAuto) {
    wm_scanner_options_t o;
    wm_scanner_options_init(&o);
    o.backend = WM_BACKEND_GPU;
    {
        wm_ruleset_t *probe = nullptr;
        const std::string yaml = "version: 1\nrules:\n  - {id: 1, msg: m, pattern: abc}\n";
        ASSERT_EQ(wm_ruleset_load_string(yaml.data(), yaml.size(), "probe.yaml", &probe, nullptr), WM_SUCCESS);
        wm_scanner_t *sc = nullptr;
        const int rc = wm_scanner_create(probe, &o, &sc, nullptr);
        wm_scanner_free(sc);
        wm_ruleset_free(probe);
        if (rc == WM_NO_GPU) GTEST_SKIP() << "no usable GPU (" << wm_status_name(rc) << ")";
        ASSERT_EQ(rc, WM_SUCCESS) << wm_status_name(rc);
    }
    const std::string pattern = text_of(1500);
    const std::string path = approx_rule_file("wide.yaml", pattern, "max_edits: 1");
    wm_ruleset_t *rs = nullptr;
    ASSERT_EQ(wm_ruleset_load_file(path.c_str(), &rs, nullptr), WM_SUCCESS) << "Hyperscan takes it";

    wm_scanner_t *sc = nullptr;
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_scanner_create(rs, &o, &sc, &err), WM_RULE_ERROR);
    ASSERT_NE(err, nullptr);
    ASSERT_EQ(err->count, 1u);
    EXPECT_EQ(err->diagnostics[0].line, 3u);
    EXPECT_EQ(err->diagnostics[0].rule_id, 1);
    EXPECT_NE(std::string(err->message).find("the GPU's approximate kernels cannot take this pattern"),
              std::string::npos)
        << err->message;
    wm_error_free(err);

    o.backend = WM_BACKEND_AUTO;
    ASSERT_EQ(wm_scanner_create(rs, &o, &sc, nullptr), WM_SUCCESS);
    const std::string reason = wm_scanner_backend_reason(sc);
    EXPECT_NE(reason.find("approximate rules on Hyperscan because " + path + ":3:5: rule 1"), std::string::npos)
        << reason;
    std::string payload = "xx" + pattern + "yy";
    payload[700] ^= 0x20; // one substitution
    EXPECT_EQ(matches_in(sc, payload), 1);
    wm_scanner_free(sc);
    wm_ruleset_free(rs);
    std::remove(path.c_str());
}
