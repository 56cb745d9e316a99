// Real captures from ../shared/data: with streams on, every window the
// scanner reports equals Hyperscan stream mode over the same reassembled
// streams, for the Snort 3 community rules and for rules sampled from the
// captures' own payloads (which guarantees matches across segments); with
// streams off, the GPU backend's alerts equal the CPU backend's. Skips with
// a message when the data was not unpacked (or there is no GPU).
#include "capture/offline_capture.h"
#include "stream_test_util.h"
#include "tests/scratch.h"

#include <fmt/format.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>

namespace wm::stream::test {
namespace {

namespace fs = std::filesystem;
const fs::path kData = WM_TEST_DATA_DIR;

std::vector<fs::path> small_captures() {
    std::vector<fs::path> out;
    if (!fs::exists(kData / "pcaps")) return out;
    for (const auto &e : fs::recursive_directory_iterator(kData / "pcaps")) {
        const auto ext = e.path().extension();
        if (e.is_regular_file() && (ext == ".pcap" || ext == ".pcapng")) out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Rules whose patterns are substrings of TCP payloads of the captures, some
// with offsets and depths: matches are certain, many across segments.
rules::RuleSet sampled_rules(const std::vector<fs::path> &caps) {
    std::mt19937 rng(7);
    std::string yaml;
    std::set<std::string> seen;
    uint32_t id = 1;
    for (const auto &path : caps) {
        capture::OfflineCapture cap(path.string());
        wm_packet_t p{};
        int taken = 0;
        while (cap.next(&p) == WM_SUCCESS && taken < 12) {
            if (p.proto != WM_PROTO_TCP || p.payload_len < 40 || rng() % 5) continue;
            const uint32_t len = 4 + rng() % 20;
            // Start near the end so that the next segment usually completes it.
            const uint32_t at = p.payload_len - 1 - rng() % std::min<uint32_t>(len - 1, 8);
            std::string pat(reinterpret_cast<const char *>(p.payload) + std::min(at, p.payload_len - len), len);
            if (!seen.insert(pat).second) continue;
            std::string hex;
            for (unsigned char ch : pat) hex += fmt::format("{:02x} ", ch);
            const bool limited = rng() % 4 == 0;
            yaml += fmt::format("  - id: {}\n    msg: \"sampled\"\n    pattern: \"|{}|\"\n"
                                "    offset: {}\n    depth: {}\n    nocase: {}\n",
                                id++, hex, limited ? rng() % 64 : 0, limited ? 2000 : 0,
                                rng() % 3 == 0 ? "true" : "false");
            ++taken;
        }
    }
    return rules::load_rules_string(rules_yaml(yaml), "sampled.yaml");
}

struct Totals {
    uint64_t windows = 0, cross = 0, mismatches = 0, alerts = 0;
};

Totals replay_all(const rules::RuleSet &rs, const std::vector<fs::path> &caps) {
    Totals t;
    for (const auto &path : caps) {
        SCOPED_TRACE(path.string());
        Harness h(rs, true, default_config(), /*verify=*/true);
        h.replay(path.string());
        t.windows += h.stats().oracle_windows;
        t.cross += h.stats().cross_segment_matches;
        t.mismatches += h.stats().oracle_mismatches;
        t.alerts += h.alerts.size();
        for (const auto &l : h.pipeline().mismatch_lines()) ADD_FAILURE() << l;
    }
    return t;
}

TEST(RealStreams, SampledRulesEqualHyperscanStreamModeOnEveryCapture) {
    const auto caps = small_captures();
    if (caps.empty()) GTEST_SKIP() << "no captures under " << kData << " (unpack ../shared/data)";
    const auto rs = sampled_rules(caps);
    ASSERT_GT(rs.rules.size(), 100u);
    const Totals t = replay_all(rs, caps);
    EXPECT_EQ(t.mismatches, 0u);
    EXPECT_GT(t.windows, 10000u);
    EXPECT_GT(t.cross, 50u) << "sampled patterns should straddle segments";
    std::cout << "[ info ] " << caps.size() << " captures, " << t.windows << " windows, "
              << t.alerts << " alerts, " << t.cross << " across segments\n";
}

TEST(RealStreams, SnortCommunityRulesEqualHyperscanStreamMode) {
    const fs::path src = kData / "rules/snort3-community-2024-05-28/snort3-community-rules/snort3-community.rules";
    const auto caps = small_captures();
    if (caps.empty() || !fs::exists(src)) GTEST_SKIP() << "shared data not unpacked under " << kData;
    const std::string yaml = wm::test::scratch_path("snort3.yaml");
    const char *files[] = {src.c_str()};
    wm_import_report_t rep;
    wm_import_report_init(&rep);
    ASSERT_EQ(wm_rules_import(files, 1, yaml.c_str(), &rep, nullptr), WM_SUCCESS);
    const auto rs = rules::load_rules_file(yaml);
    const Totals t = replay_all(rs, caps);
    EXPECT_EQ(t.mismatches, 0u);
    EXPECT_GT(t.alerts, 0u);
    std::cout << "[ info ] snort3 community: " << rs.rules.size() << " rules, " << t.windows
              << " windows, " << t.alerts << " alerts, " << t.cross << " across segments\n";
}

TEST(RealStreams, MergedZeekTracesEqualHyperscanStreamMode) {
    const fs::path big = kData / "pcaps-large/merged-zeek-traces.pcap";
    const auto caps = small_captures();
    if (!fs::exists(big) || caps.empty()) GTEST_SKIP() << "no " << big;
    const Totals t = replay_all(sampled_rules(caps), {big});
    EXPECT_EQ(t.mismatches, 0u);
    EXPECT_GT(t.windows, 10000u);
}

// Without streams the GPU scanner's host threads leave a (window, rule)'s
// repeats out: its alerts equal the CPU backend's, alert for alert. Skips
// without a GPU.
TEST(RealStreams, WithoutStreamsGpuAlertsEqualTheCpuBackend) {
    const fs::path big = kData / "pcaps-large/merged-zeek-traces.pcap";
    const auto caps = small_captures();
    if (!fs::exists(big) || caps.empty()) GTEST_SKIP() << "no " << big;
    const auto rs = sampled_rules(caps);
    std::unique_ptr<Harness> gpu;
    try {
        gpu = std::make_unique<Harness>(rs, false, default_config(), false, WM_BACKEND_GPU, 4);
    } catch (const std::exception &e) {
        GTEST_SKIP() << "no GPU: " << e.what();
    }
    Harness cpu(rs, false, default_config(), false);
    cpu.replay(big.string());
    gpu->replay(big.string());
    ASSERT_GT(cpu.alerts.size(), 1000u);
    ASSERT_EQ(gpu->alerts.size(), cpu.alerts.size());
    for (size_t i = 0; i < cpu.alerts.size(); ++i) {
        const Alert &a = gpu->alerts[i], &b = cpu.alerts[i];
        ASSERT_TRUE(a.rule == b.rule && a.packet == b.packet && a.start == b.start && a.end == b.end)
            << "alert " << i << ": GPU rule " << a.rule << " packet " << a.packet << " [" << a.start << ", "
            << a.end << "), CPU rule " << b.rule << " packet " << b.packet << " [" << b.start << ", " << b.end << ")";
    }
    EXPECT_EQ(gpu->scanner().backend(), WM_BACKEND_GPU);
    EXPECT_EQ(cpu.scanner().stats().matches, cpu.alerts.size()) << "Hyperscan's runs: exactly the firsts";
    EXPECT_GE(gpu->scanner().stats().matches, gpu->alerts.size());
}

} // namespace
} // namespace wm::stream::test
