// `warpmatch rules check` and `warpmatch rules import`, end to end.
#include "run_command.h"

#include <gtest/gtest.h>

#include <filesystem>

using wm::test::run_command;
namespace fs = std::filesystem;

TEST(CliRules, CheckPrintsASummaryOfTheDemoRules) {
    auto r = run_command(std::string("rules check ") + WM_SOURCE_DIR + "/rules/examples/demo.yaml");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("rules: 10"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("content hash:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("longest pattern:"), std::string::npos) << r.out;
}

TEST(CliRules, CheckReportsEveryErrorWithItsLocation) {
    fs::path p = wm::test::scratch_path("bad-rules.yaml");
    {
        std::ofstream f(p);
        f << "version: 1\nrules:\n  - id: 1\n    msg: a\n    pattern: \"|4\"\n"
             "  - id: 1\n    msg: b\n    pattern: x\n";
    }
    auto r = run_command("rules check " + p.string());
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(p.string() + ":5:"), std::string::npos) << r.err; // bad escape
    EXPECT_NE(r.err.find(p.string() + ":6:"), std::string::npos) << r.err; // duplicate id
    EXPECT_NE(r.err.find("rule 1"), std::string::npos) << r.err;
    fs::remove(p);
}

TEST(CliRules, MissingRulesFileIsNamed) {
    auto r = run_command("rules check /nonexistent/rules.yaml");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("/nonexistent/rules.yaml"), std::string::npos) << r.err;
}

TEST(CliRules, ImportEtOpen) {
    fs::path dir = fs::path(WM_TEST_DATA_DIR) / "rules/et-open-suricata5-2024-04-21";
    if (!fs::exists(dir))
        GTEST_SKIP() << "ET Open rules not found at " << dir << " (../shared/data absent)";
    fs::path out = wm::test::scratch_path("etopen.yaml");
    auto r = run_command("rules import " + (dir / "*.rules").string() + " -o " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("imported "), std::string::npos) << r.out;
    auto check = run_command("rules check " + out.string());
    ASSERT_EQ(check.status, 0) << check.err.substr(0, 2000);
    fs::remove(out);
}
