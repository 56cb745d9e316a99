// Real captures from ../shared/data: with streams on, every window the
// scanner reports equals Hyperscan stream mode over the same reassembled
// streams, for the Snort 3 community rules and for rules sampled from the
// captures' own payloads (which guarantees matches across segments); with
// streams off, the GPU backend's alerts equal the CPU backend's. Skips with
// a message when the data was not unpacked (or there is no GPU).
#include "capture/offline_capture.h"
#include "gpu/gpu_matcher.h"
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

// merged-zeek with rules sampled from the small captures, or why not.
struct ZeekCase {
    fs::path capture;
    rules::RuleSet rules;
};
std::unique_ptr<ZeekCase> zeek_case(std::string *why) {
    const fs::path big = kData / "pcaps-large/merged-zeek-traces.pcap";
    const auto caps = small_captures();
    if (!fs::exists(big) || caps.empty()) {
        *why = "no " + big.string();
        return nullptr;
    }
    return std::make_unique<ZeekCase>(ZeekCase{big, sampled_rules(caps)});
}

// A harness on the GPU backend (4 host threads), or null and why not.
// Null only for want of a GPU: on one, a harness that fails to build throws.
std::unique_ptr<Harness> gpu_harness(const rules::RuleSet &rs, bool streams, PipelineSetup setup, std::string *why) {
    if (!gpu::gpu_usable(0, why)) {
        *why = "no GPU: " + *why;
        return nullptr;
    }
    return std::make_unique<Harness>(rs, streams, default_config(), streams, WM_BACKEND_GPU, 4, setup);
}

bool same_alert(const Alert &a, const Alert &b, bool with_window = true) {
    return a.rule == b.rule && a.packet == b.packet && a.start == b.start && a.end == b.end &&
           (!with_window || a.window == b.window);
}

// got equals want alert for alert, in order.
void expect_same_alerts(const std::vector<Alert> &got, const std::vector<Alert> &want, bool with_window = true) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        const Alert &a = got[i], &b = want[i];
        ASSERT_TRUE(same_alert(a, b, with_window))
            << "alert " << i << ": rule " << a.rule << " packet " << a.packet << " [" << a.start << ", " << a.end
            << "), expected rule " << b.rule << " packet " << b.packet << " [" << b.start << ", " << b.end << ")";
    }
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
    std::string why;
    const auto zc = zeek_case(&why);
    if (!zc) GTEST_SKIP() << why;
    const auto gpu = gpu_harness(zc->rules, false, {}, &why);
    if (!gpu) GTEST_SKIP() << why;
    Harness cpu(zc->rules, false, default_config(), false);
    cpu.replay(zc->capture.string());
    gpu->replay(zc->capture.string());
    ASSERT_GT(cpu.alerts.size(), 1000u);
    expect_same_alerts(gpu->alerts, cpu.alerts, /*with_window=*/false);
    EXPECT_EQ(gpu->scanner().backend(), WM_BACKEND_GPU);
    EXPECT_EQ(cpu.scanner().stats().matches, cpu.alerts.size()) << "Hyperscan's runs: exactly the firsts";
    EXPECT_GE(gpu->scanner().stats().matches, gpu->alerts.size());
}

// Replay scans each full batch on another thread while the next one is
// reassembled: the alerts, their order and every window's check against
// Hyperscan stream mode are those of scanning each batch in turn.
TEST(RealStreams, ScanningAheadDeliversWhatScanningInTurnDoes) {
    std::string why;
    const auto zc = zeek_case(&why);
    if (!zc) GTEST_SKIP() << why;
    const auto &rs = zc->rules;
    const fs::path &big = zc->capture;
    const PipelineSetup small{false, 64u << 10}, small_ahead{true, 64u << 10};
    Harness in_turn(rs, true, default_config(), true, WM_BACKEND_CPU, 2, small);
    Harness ahead(rs, true, default_config(), true, WM_BACKEND_CPU, 2, small_ahead);
    in_turn.replay(big.string());
    ahead.replay(big.string());
    for (const auto &l : ahead.pipeline().mismatch_lines()) ADD_FAILURE() << l;
    EXPECT_EQ(ahead.stats().oracle_mismatches, 0u);
    EXPECT_EQ(ahead.stats().oracle_windows, in_turn.stats().oracle_windows);
    EXPECT_GT(ahead.pipeline().batches(), 100u);
    EXPECT_EQ(ahead.pipeline().batches(), in_turn.pipeline().batches());
    ASSERT_GT(in_turn.alerts.size(), 1000u);
    expect_same_alerts(ahead.alerts, in_turn.alerts);
}

// A replay stopped by its callback, or dropped with a batch still being
// scanned ahead, has delivered a prefix of the full replay's alerts, and
// nothing after the stop.
TEST(RealStreams, ScanningAheadStopsAndIsDroppedCleanly) {
    std::string why;
    const auto zc = zeek_case(&why);
    if (!zc) GTEST_SKIP() << why;
    const auto &rs = zc->rules;
    const fs::path &big = zc->capture;
    const PipelineSetup small_ahead{true, 16u << 10};
    Harness full(rs, true, default_config(), false, WM_BACKEND_CPU, 2, small_ahead);
    full.replay(big.string());
    ASSERT_GT(full.alerts.size(), 1000u);
    auto prefix_of_full = [&](const std::vector<Alert> &got) {
        for (size_t i = 0; i < got.size(); ++i)
            if (!same_alert(got[i], full.alerts[i])) return false;
        return true;
    };
    // Stopped by the callback at its 500th alert.
    static constexpr size_t kStopAt = 500;
    auto stop_at = [](const wm_alert_t *a, void *ctx) {
        Harness::on_alert(a, ctx);
        return static_cast<Harness *>(ctx)->alerts.size() >= kStopAt ? 1 : 0;
    };
    Harness stopped(rs, true, default_config(), false, WM_BACKEND_CPU, 2, small_ahead, stop_at);
    stopped.replay(big.string());
    EXPECT_TRUE(stopped.pipeline().stopped());
    ASSERT_EQ(stopped.alerts.size(), kStopAt);
    EXPECT_TRUE(prefix_of_full(stopped.alerts));
    // Dropped halfway, without finish(): whatever was scanned ahead is cancelled.
    for (size_t frames_in : {20000u, 60000u}) {
        auto dropped = std::make_unique<Harness>(rs, true, default_config(), false, WM_BACKEND_CPU, 2, small_ahead);
        OfflineFrames frames(big.string());
        const pcap_pkthdr *h = nullptr;
        const uint8_t *d = nullptr;
        for (size_t i = 0; i < frames_in && frames.next(&h, &d); ++i)
            dropped->pipeline().frame(frames.link_type(), d, h->caplen, h->len, h->ts.tv_sec, h->ts.tv_usec);
        EXPECT_GT(dropped->pipeline().batches(), 10u);
        EXPECT_TRUE(dropped->pipeline().pending()) << "a batch scanned ahead or being filled";
        EXPECT_TRUE(prefix_of_full(dropped->alerts)) << frames_in << " frames";
        dropped.reset();
    }
}

// With streams on the GPU (every match of each batch back, the carry filter,
// then one alert per window and rule; batches scanned ahead, as replay does):
// every window equals Hyperscan stream mode, and the alerts are the CPU
// backend's, alert for alert. Skips without a GPU.
TEST(RealStreams, WithStreamsGpuEqualsHyperscanStreamModeAndTheCpuBackend) {
    std::string why;
    const auto zc = zeek_case(&why);
    if (!zc) GTEST_SKIP() << why;
    const auto gpu = gpu_harness(zc->rules, true, PipelineSetup{true}, &why);
    if (!gpu) GTEST_SKIP() << why;
    Harness cpu(zc->rules, true, default_config(), true);
    cpu.replay(zc->capture.string());
    gpu->replay(zc->capture.string());
    EXPECT_EQ(gpu->scanner().backend(), WM_BACKEND_GPU);
    for (const auto &l : gpu->pipeline().mismatch_lines()) ADD_FAILURE() << "GPU: " << l;
    EXPECT_EQ(gpu->stats().oracle_mismatches, 0u);
    EXPECT_GT(gpu->stats().oracle_windows, 10000u);
    EXPECT_GT(gpu->stats().cross_segment_matches, 50u);
    EXPECT_GT(gpu->pipeline().batches(), 10u) << "streams scan in small batches on the GPU too";
    ASSERT_GT(cpu.alerts.size(), 1000u);
    expect_same_alerts(gpu->alerts, cpu.alerts);
}

} // namespace
} // namespace wm::stream::test
