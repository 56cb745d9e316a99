// `warpmatch bench --rows`: only the named rows run, and the set-array rows
// of every engine that ran agree on the pairs they delivered.
#include "run_command.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

using wm::test::run_command;
using json = nlohmann::json;

namespace {
const std::string kDemoPcap = std::string(WM_BINARY_DIR) + "/demo/demo.pcap";
const std::string kDemoRules = std::string(WM_SOURCE_DIR) + "/rules/examples/demo.yaml";
} // namespace

TEST(CliBench, RowsSelectsRowsByName) {
    const std::string out = wm::test::scratch_path("rows.json");
    auto r = run_command("bench " + kDemoPcap + " --rules " + kDemoRules +
                         " --corpus-mb 1 --batch-mb 1 --repeats 1 --rows 'set array' --json " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(wm::test::slurp(out));
    std::set<std::string> names;
    uint64_t hyperscan_pairs = 0;
    for (const auto &row : j["results"]) {
        names.insert(row["name"].get<std::string>());
        if (row["name"] == "hyperscan-cpu-all-cores set array") hyperscan_pairs = row["matches"];
    }
    EXPECT_EQ(names, (std::set<std::string>{"hyperscan-cpu-all-cores set array", "gpu plugin-path set array (pinned)",
                                            "gpu plugin-path set array pipelined",
                                            "gpu plugin-path set array (pageable)"}));
    ASSERT_GT(hyperscan_pairs, 0u) << "the demo rules match the demo capture";
    for (const auto &row : j["results"]) // GPU rows are "skipped" without a device
        if (!row.contains("skipped")) EXPECT_EQ(row["matches"], hyperscan_pairs) << row["name"];
    // The callback row not selected, Hyperscan's set-array row is the peer;
    // the H2D ratio is the GPU rows' (none ran without a GPU: not measured).
    EXPECT_EQ(j["hyperscan_peer"], "hyperscan-cpu-all-cores set array");
    for (const auto &row : j["results"]) {
        if (row.contains("skipped")) continue;
        if (row["name"] == "hyperscan-cpu-all-cores set array") EXPECT_EQ(row["ratio_to_hyperscan"], 1.0);
        EXPECT_GT(row["ratio_to_hyperscan"].get<double>(), 0.0) << row["name"];
        if (row["name"].get<std::string>().find("gpu") == std::string::npos)
            EXPECT_EQ(row["ratio_to_pinned_h2d"], 0.0) << row["name"];
        else
            EXPECT_GT(row["ratio_to_pinned_h2d"].get<double>(), 0.0) << row["name"];
    }
    if (j["pinned_h2d_gb_per_s"].get<double>() == 0.0)
        for (const auto &row : j["results"])
            EXPECT_TRUE(row.contains("skipped") || row["name"].get<std::string>().find("gpu") == std::string::npos);
}

// Without a Hyperscan set row (neither selected) no row has a ratio to it.
TEST(CliBench, NoPeerNoRatio) {
    const std::string out = wm::test::scratch_path("no_peer.json");
    auto r = run_command("bench " + kDemoPcap + " --rules " + kDemoRules +
                         " --corpus-mb 1 --batch-mb 1 --repeats 1 --rows 'replay cpu (1 thread)' --json " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(wm::test::slurp(out));
    EXPECT_EQ(j["hyperscan_peer"], "");
    ASSERT_EQ(j["results"].size(), 1u);
    EXPECT_EQ(j["results"][0]["ratio_to_hyperscan"], 0.0);
    EXPECT_GT(j["results"][0]["gb_per_s"].get<double>(), 0.0);
}

// The alerts `replay` of the demo capture reports with these flags (0 and a
// test failure when it fails).
static uint64_t replay_alerts(const std::string &flags) {
    auto replay = run_command("replay " + kDemoPcap + " --rules " + kDemoRules + " " + flags);
    EXPECT_EQ(replay.status, 0) << replay.err;
    const auto at = replay.out.find("{\"event_type\":\"stats\"");
    if (at == std::string::npos) {
        ADD_FAILURE() << "no stats line: " << replay.out;
        return 0;
    }
    return json::parse(replay.out.substr(at, replay.out.find('\n', at) - at))["stats"]["alerts"];
}

// --read-threads and --window-mb reach the replay rows (wm_replay_options_t):
// with a GPU the rows report the alerts `replay` reports with the same
// options; without one they are skipped. Values out of range are refused
// with the option's name.
TEST(CliBench, ReplayRowsTakeReadThreadsAndWindow) {
    const std::string out = wm::test::scratch_path("replay_rows.json");
    auto r = run_command("bench " + kDemoPcap + " --rules " + kDemoRules + " --corpus-mb 1 --repeats 1 --replay-capture " +
                         kDemoPcap + " --rows 'window alerts' --read-threads 2 --window-mb 1 --json " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(wm::test::slurp(out));
    ASSERT_FALSE(j["results"].empty());
    if (j["results"][0].contains("skipped")) GTEST_SKIP() << "no GPU: the replay rows were skipped";
    ASSERT_EQ(j["results"].size(), 2u) << "a new scanner's row and a warm one";
    const uint64_t alerts = replay_alerts("-b gpu --matches set -q --read-threads 2 --window-mb 1");
    ASSERT_GT(alerts, 0u);
    for (const auto &row : j["results"]) EXPECT_EQ(row["matches"], alerts) << row["name"];
}

// The replay capture on the CPU backend too (Hyperscan on every core, the
// same reader): a new scanner's row and a warm one, each with the alerts
// `replay -b cpu` reports.
TEST(CliBench, TheReplayCaptureIsAlsoReplayedOnTheCpu) {
    const std::string out = wm::test::scratch_path("replay_cpu_rows.json");
    auto r = run_command("bench " + kDemoPcap + " --rules " + kDemoRules + " --corpus-mb 1 --repeats 1 --replay-capture " +
                         kDemoPcap + " --rows 'replay cpu (' --json " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(wm::test::slurp(out));
    const uint64_t alerts = replay_alerts("-b cpu --matches set -q");
    ASSERT_GT(alerts, 0u);
    size_t rows = 0;
    for (const auto &row : j["results"]) {
        if (row["name"].get<std::string>().find("--replay-capture") == std::string::npos) continue;
        ++rows;
        EXPECT_EQ(row["matches"], alerts) << row["name"];
        EXPECT_GT(row["gb_per_s"].get<double>(), 0.0) << row["name"];
    }
    EXPECT_EQ(rows, 2u) << "a new scanner's row and a warm one";
}

TEST(CliBench, ReplayTuningOutOfRangeIsRefused) {
    for (const std::string opt : {"--window-mb 2000", "--read-threads 65"}) {
        auto r = run_command("bench " + kDemoPcap + " --rules " + kDemoRules + " " + opt);
        EXPECT_NE(r.status, 0) << opt;
        EXPECT_NE(r.err.find(opt.substr(0, opt.find(' '))), std::string::npos) << r.err;
    }
}

// --json naming an input would replace the capture or the rules with the
// results: refused before anything runs, and the input left whole.
TEST(CliBench, JsonOverAnInputIsRefused) {
    const std::string pcap = wm::test::scratch_path("copy.pcap"), rules = wm::test::scratch_path("copy.yaml");
    const std::string pcap_bytes = wm::test::slurp(kDemoPcap), rule_bytes = wm::test::slurp(kDemoRules);
    std::ofstream(pcap, std::ios::binary) << pcap_bytes;
    std::ofstream(rules, std::ios::binary) << rule_bytes;
    for (const std::string &victim : {pcap, rules}) {
        auto r = run_command("bench " + pcap + " --rules " + rules + " --repeats 1 --rows hyperscan --json " + victim);
        EXPECT_EQ(r.status, 1) << victim;
        EXPECT_NE(r.err.find("--json " + victim + " is the capture or the rule file; not overwriting it"),
                  std::string::npos)
            << r.err;
    }
    EXPECT_EQ(wm::test::slurp(pcap), pcap_bytes);
    EXPECT_EQ(wm::test::slurp(rules), rule_bytes);
}
