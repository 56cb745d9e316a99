// `warpmatch bench --rows`: only the named rows run, and the set-array rows
// of every engine that ran agree on the pairs they delivered.
#include "run_command.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
    // Without the set-mode peer (not selected) no row has a ratio to it.
    for (const auto &row : j["results"])
        if (!row.contains("skipped")) EXPECT_EQ(row["ratio_to_hyperscan"], 0.0) << row["name"];
}
