// Table-driven validation tests (in the style of hyperscan's bad_patterns):
// every case in bad_rules.txt must be rejected with exactly the listed
// diagnostics, in order, including line:column and rule id.
#include "rules/rule.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace wm::rules;

namespace {

struct BadCase {
    std::string name;
    std::string yaml;
    std::vector<std::string> expected;
};

std::vector<BadCase> load_cases() {
    std::ifstream in(std::string(WM_SOURCE_DIR) + "/tests/rules/bad_rules.txt");
    std::vector<BadCase> cases;
    std::string line;
    enum { Outside, Yaml, Expected } state = Outside;
    while (std::getline(in, line)) {
        if (line.rfind("=== ", 0) == 0) {
            cases.push_back({line.substr(4), "", {}});
            state = Yaml;
        } else if (state == Yaml && line == "---") {
            state = Expected;
        } else if (state == Yaml) {
            cases.back().yaml += line + "\n";
        } else if (state == Expected && !line.empty()) {
            cases.back().expected.push_back(line);
        } else if (state == Expected) {
            state = Outside;
        }
    }
    return cases;
}

class BadRules : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadRules, ReportsExactDiagnostics) {
    const BadCase &c = GetParam();
    ASSERT_FALSE(c.expected.empty()) << "case without expectations";
    try {
        load_rules_string(c.yaml, "case.yaml");
        FAIL() << "loaded without error:\n" << c.yaml;
    } catch (const RuleError &e) {
        std::vector<std::string> got;
        for (const auto &d : e.diagnostics()) got.push_back(d.to_string());
        EXPECT_EQ(got, c.expected);
    }
}

INSTANTIATE_TEST_SUITE_P(Table, BadRules, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<BadCase> &i) { return i.param.name; });

} // namespace

TEST(BadRulesTable, HasEnoughCases) {
    EXPECT_GE(load_cases().size(), 25u);
}

TEST(BadRulesTable, ManyErrorsAllReportedAndJoinedInWhat) {
    const std::string yaml = "version: 1\n"
                             "rules:\n"
                             "  - id: 5\n"
                             "    msg: \"\"\n"
                             "    pattern: \"x|zz|\"\n"
                             "    protocol: sctp\n"
                             "  - id: 5\n"
                             "    msg: again\n"
                             "    pattern: y\n";
    try {
        load_rules_string(yaml, "multi.yaml");
        FAIL() << "expected RuleError";
    } catch (const RuleError &e) {
        ASSERT_EQ(e.diagnostics().size(), 4u);
        EXPECT_EQ(std::string(e.what()),
                  "multi.yaml:4:10: rule 5: msg must not be empty\n"
                  "multi.yaml:5:17: rule 5: bad pattern \"x|zz|\": non-hex digit 'z' in hex run\n"
                  "multi.yaml:6:15: rule 5: unknown protocol \"sctp\": expected tcp, udp or any\n"
                  "multi.yaml:7:9: rule 5: duplicate id 5 (first defined at line 3)");
        EXPECT_EQ(e.diagnostics()[1].where.line, 5u);
        EXPECT_EQ(e.diagnostics()[1].where.column, 17u);
        EXPECT_EQ(e.diagnostics()[1].rule_id, 5);
    }
}

TEST(BadRulesTable, PatternLongerThanMaximum) {
    std::string yaml = "version: 1\nrules:\n  - id: 9\n    msg: m\n    pattern: \"" +
                       std::string(kMaxPatternBytes + 1, 'A') + "\"\n";
    try {
        load_rules_string(yaml, "long.yaml");
        FAIL() << "expected RuleError";
    } catch (const RuleError &e) {
        EXPECT_EQ(std::string(e.what()),
                  "long.yaml:5:14: rule 9: pattern is 4001 bytes, longer than the maximum of 4000");
    }
    // Exactly the maximum is fine.
    yaml = "version: 1\nrules:\n  - id: 9\n    msg: m\n    pattern: \"" +
           std::string(kMaxPatternBytes, 'A') + "\"\n";
    EXPECT_EQ(load_rules_string(yaml, "max.yaml").rules.at(0).pattern.size(), kMaxPatternBytes);
}

TEST(Diagnostics, ToStringOmitsUnknownParts) {
    EXPECT_EQ((Diagnostic{{"f.yaml", 3, 7}, 42, "boom"}).to_string(), "f.yaml:3:7: rule 42: boom");
    EXPECT_EQ((Diagnostic{{"f.yaml", 3, 7}, -1, "boom"}).to_string(), "f.yaml:3:7: boom");
    EXPECT_EQ((Diagnostic{{"f.yaml", 0, 0}, -1, "boom"}).to_string(), "f.yaml: boom");
    EXPECT_EQ((Diagnostic{{"f.yaml", 0, 0}, 0, "boom"}).to_string(), "f.yaml: rule 0: boom");
}

TEST(Diagnostics, UnreadableFileNamesFileAndReason) {
    const std::string path = std::string(WM_BINARY_DIR) + "/no/such/rules.yaml";
    try {
        load_rules_file(path);
        FAIL() << "expected RuleError";
    } catch (const RuleError &e) {
        ASSERT_EQ(e.diagnostics().size(), 1u);
        EXPECT_EQ(std::string(e.what()), path + ": cannot open rules file: No such file or directory");
    }
    // A directory opens but cannot be read.
    try {
        load_rules_file(WM_SOURCE_DIR);
        FAIL() << "expected RuleError";
    } catch (const RuleError &e) {
        EXPECT_EQ(std::string(e.what()),
                  std::string(WM_SOURCE_DIR) + ": cannot open rules file: Is a directory");
    }
    // An endless file (a wrong path) is refused at the size limit, not read into memory.
    try {
        load_rules_file("/dev/zero");
        FAIL() << "expected RuleError";
    } catch (const RuleError &e) {
        EXPECT_EQ(std::string(e.what()), "/dev/zero: rules file is longer than the maximum of 256 MiB");
    }
}
