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

// Check compiles approximate rules as replay does: what Hyperscan rejects fails
// here, with the rule's place, instead of passing and failing in replay.
TEST(CliRules, CheckRejectsApproximatePatternsHyperscanCannotTake) {
    fs::path p = wm::test::scratch_path("approx-too-costly.yaml");
    std::ofstream(p) << "version: 1\nrules:\n  - id: 4\n    msg: m\n    pattern: \"" << std::string(100, 'x')
                     << "\"\n    max_mismatches: 30\n";
    auto r = run_command("rules check " + p.string());
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(p.string() + ":3:5: rule 4: Hyperscan rejected the approximate pattern: "),
              std::string::npos)
        << r.err;
}

// Import skips what its own loader would refuse, so check passes on its output.
TEST(CliRules, ImportedFilePassesCheckWhenAContentIsTooLong) {
    fs::path rules = wm::test::scratch_path("long-content.rules"), out = wm::test::scratch_path("long.yaml");
    std::ofstream(rules) << "alert tcp any any -> any any (msg:\"long\"; content:\"" << std::string(70000, 'A')
                         << "\"; sid:5;)\nalert tcp any any -> any any (msg:\"short\"; content:\"abc\"; sid:6;)\n";
    auto r = run_command("rules import " + rules.string() + " -o " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("imported 1 rules"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(rules.string() + ":1: sid 5: content is 70000 bytes, longer than the maximum of 4000"),
              std::string::npos)
        << r.out;
    auto check = run_command("rules check " + out.string());
    EXPECT_EQ(check.status, 0) << check.err;
}

// -o naming the Suricata file being imported would replace it with YAML: refused, the file left whole.
TEST(CliRules, ImportDoesNotOverwriteItsInput) {
    const std::string rules = wm::test::scratch_path("self.rules");
    const std::string text = "alert tcp any any -> any 80 (msg:\"x\"; content:\"abc\"; sid:1;)\n";
    std::ofstream(rules) << text;
    auto r = run_command("rules import " + rules + " -o " + rules);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("out_yaml " + rules + " is the input file " + rules + "; not overwriting it"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(wm::test::slurp(rules), text);
}
