// tests/rules/test_yaml_documents.cpp - a rules file is one YAML document:
// whatever follows a `---` or `...` marker is refused with its line, not
// dropped unread, on the whole-document and the sliced path alike; and a
// quote left open to the end of the file is a syntax error, not a string
// that swallows the rules after it.
#include "rules/loader_internal.h"
#include "rules/rule.h"
#include "tests/rules/load_diagnostics.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace wm::rules;

namespace {

const char kOneRule[] = "version: 1\n"
                        "rules:\n"
                        "  - id: 1\n"
                        "    msg: m\n"
                        "    pattern: abc\n";

std::vector<std::string> diagnostics(const std::string &yaml) { return wm::test::load_diagnostics(yaml); }

const std::string kSecond = "only one YAML document is allowed in a rules file; a second one starts here";

} // namespace

TEST(YamlDocuments, SecondDocumentAfterDashesIsNamedAtItsMarker) {
    EXPECT_EQ(diagnostics(std::string(kOneRule) + "---\nrules: []\n"),
              std::vector<std::string>{"f.yaml:6:1: " + kSecond});
    // An empty one too: the marker alone starts a document.
    EXPECT_EQ(diagnostics(std::string(kOneRule) + "---\n"), std::vector<std::string>{"f.yaml:6:1: " + kSecond});
}

TEST(YamlDocuments, ContentAfterDocumentEndIsASecondDocument) {
    EXPECT_EQ(diagnostics(std::string(kOneRule) + "...\n  - id: 2\n    msg: x\n"),
              std::vector<std::string>{"f.yaml:7:3: " + kSecond});
    EXPECT_EQ(diagnostics(std::string(kOneRule) + "...\n---\n"), std::vector<std::string>{"f.yaml:7:1: " + kSecond});
}

// Dropped unread before: a syntax error in the second document.
TEST(YamlDocuments, SyntaxErrorInTheSecondDocumentIsReportedWithIt) {
    EXPECT_EQ(diagnostics(std::string(kOneRule) + "---\nfoo: [\n"),
              (std::vector<std::string>{"f.yaml:6:1: " + kSecond,
                                        "f.yaml:8:1: YAML syntax error: end of sequence flow not found"}));
}

TEST(YamlDocuments, FirstDocumentIsStillChecked) {
    const std::string yaml = "version: 1\nrules:\n  - id: 1\n    msg: m\n    pattern: \"|4\"\n---\nrules: []\n";
    EXPECT_EQ(diagnostics(yaml), (std::vector<std::string>{
                                     "f.yaml:5:15: rule 1: bad pattern \"|4\": unterminated hex run (no closing '|')",
                                     "f.yaml:6:1: " + kSecond}));
}

// One document with explicit markers, and comments after its end, is fine.
TEST(YamlDocuments, OneExplicitDocumentLoads) {
    for (const std::string &yaml : {"---\n" + std::string(kOneRule), std::string(kOneRule) + "...\n",
                                    "--- # rules\n" + std::string(kOneRule) + "...\n# trailing note\n"}) {
        SCOPED_TRACE(yaml);
        EXPECT_EQ(diagnostics(yaml), std::vector<std::string>{});
        EXPECT_EQ(load_rules_string(yaml, "f.yaml").rules.size(), 1u);
    }
}

// A file large enough for the sliced path gives the same diagnostics as the
// whole-document parse.
TEST(YamlDocuments, SlicedPathRefusesTheSameWay) {
    std::string yaml = "version: 1\nrules:\n";
    for (int i = 1; i <= 400; ++i)
        yaml += "  - id: " + std::to_string(i) + "\n    msg: \"rule " + std::to_string(i) + "\"\n    pattern: \"p" +
                std::to_string(i) + "\"\n";
    const unsigned after_rules = 2 + 400 * 3 + 1;
    const std::pair<std::string, unsigned> tails[] = {{"---\nrules: []\n", after_rules},
                                                      {"...\nfoo: [\n", after_rules + 1}};
    for (const auto &[tail, second_line] : tails) {
        SCOPED_TRACE(tail);
        detail::set_parallel_rules_min_bytes(1);
        EXPECT_FALSE(detail::load_sliced(yaml + tail, "f.yaml").has_value());
        const auto sliced = diagnostics(yaml + tail);
        detail::set_parallel_rules_min_bytes(SIZE_MAX);
        const auto whole = diagnostics(yaml + tail);
        detail::set_parallel_rules_min_bytes(0);
        ASSERT_FALSE(whole.empty());
        EXPECT_EQ(whole[0], "f.yaml:" + std::to_string(second_line) + ":1: " + kSecond);
        EXPECT_EQ(sliced, whole);
    }
    detail::set_parallel_rules_min_bytes(1);
    EXPECT_EQ(load_rules_string(yaml, "f.yaml").rules.size(), 400u); // without the tail: loads, sliced
    detail::set_parallel_rules_min_bytes(0);
}

// yaml-cpp 0.7 ends a quoted scalar left open at the end of its input
// without an error: the rest of the file became one pattern or message.
TEST(YamlDocuments, AQuoteLeftOpenToTheEndIsASyntaxErrorAtTheQuote) {
    const std::string head = "version: 1\nrules:\n  - id: 1\n    msg: a\n";
    EXPECT_EQ(diagnostics(head + "    pattern: \"abc\n"),
              std::vector<std::string>{"f.yaml:5:14: YAML syntax error: the quoted string opened here (\") is never "
                                       "closed"});
    EXPECT_EQ(diagnostics(head + "    pattern: 'abc\n  - id: 2\n    msg: b\n    pattern: x\n"),
              std::vector<std::string>{"f.yaml:5:14: YAML syntax error: the quoted string opened here (') is never "
                                       "closed"});
    EXPECT_EQ(diagnostics("version: 1\nrules:\n  - id: 1\n    msg: \"abc\n    pattern: def\n"),
              std::vector<std::string>{"f.yaml:4:10: YAML syntax error: the quoted string opened here (\") is never "
                                       "closed"});
    // Closed ones load, escapes and doubled quotes included, also as the last scalar and without a newline.
    const std::string pattern_first = "version: 1\nrules:\n  - id: 1\n    pattern: abc\n    msg: ";
    for (const std::string &last : {"\"a\\\"b\"", "'it''s'", "\"ab\"", "'x'\n# \"note", "\"\\\\\""}) {
        SCOPED_TRACE(last);
        EXPECT_EQ(diagnostics(pattern_first + last), std::vector<std::string>{});
    }
    // After a byte order mark (which yaml-cpp's positions leave out), and one that opens the file.
    EXPECT_EQ(diagnostics("\xEF\xBB\xBF" + head + "    pattern: \"abc\n"),
              std::vector<std::string>{"f.yaml:5:14: YAML syntax error: the quoted string opened here (\") is never "
                                       "closed"});
    EXPECT_EQ(diagnostics("\xEF\xBB\xBF" + pattern_first + "\"a b\"\n"), std::vector<std::string>{});
    EXPECT_EQ(diagnostics(head + "    pattern: \"a\\\"\n"),
              std::vector<std::string>{"f.yaml:5:14: YAML syntax error: the quoted string opened here (\") is never "
                                       "closed"});
}
