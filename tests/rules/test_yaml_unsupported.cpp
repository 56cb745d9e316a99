// tests/rules/test_yaml_unsupported.cpp - YAML features the rules format does
// not take (aliases, merge keys, tags) are refused where they are written,
// on the whole-document and the sliced path alike, and errors about empty
// items, repeated keys, deep nesting and byte order marks name the right
// line and column.
#include "rules/loader_internal.h"
#include "rules/rule.h"
#include "tests/rules/load_diagnostics.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace wm::rules;

namespace {

std::vector<std::string> diagnostics(const std::string &yaml) { return wm::test::load_diagnostics(yaml); }

// The same, with the sliced (parallel) path allowed for any size.
std::vector<std::string> sliced_diagnostics(const std::string &yaml) {
    detail::set_parallel_rules_min_bytes(1);
    auto out = diagnostics(yaml);
    detail::set_parallel_rules_min_bytes(0);
    return out;
}

std::string rule(int id, const std::string &pattern_value) {
    return "  - id: " + std::to_string(id) + "\n    msg: m\n    pattern: " + pattern_value + "\n";
}

const std::string kHead = "version: 1\nrules:\n";
const std::string kAlias = "YAML aliases (*name) are not supported in a rules file: write the value out";

} // namespace

// A node under an alias carries its anchor's marks, so its errors would name
// the anchor's line; yaml-cpp's merge keys need aliases too.
TEST(YamlUnsupported, AliasesAreRefusedWhereTheyAreUsed) {
    const std::string yaml = kHead + "  - id: &x 5\n    msg: m\n    pattern: abc\n" + rule(6, "abd") +
                             "  - id: *x\n    msg: m\n    pattern: abe\n";
    EXPECT_EQ(diagnostics(yaml), std::vector<std::string>{"f.yaml:9:9: " + kAlias});
    EXPECT_EQ(sliced_diagnostics(yaml), std::vector<std::string>{"f.yaml:9:9: " + kAlias});
    const std::string merge = kHead + "  - &r\n    id: 5\n    msg: m\n    pattern: abc\n  - <<: *r\n    id: 6\n";
    EXPECT_EQ(diagnostics(merge), std::vector<std::string>{"f.yaml:7:9: " + kAlias});
    EXPECT_EQ(diagnostics(kHead + "  - {<<: {msg: m}, id: 6, msg: m, pattern: abc}\n"),
              std::vector<std::string>{"f.yaml:3:6: rule 6: YAML merge keys (<<) are not supported in a rules file: "
                                       "write the keys out"});
    // An anchor alone changes nothing.
    EXPECT_EQ(diagnostics(kHead + "  - id: &x 5\n    msg: m\n    pattern: abc\n"), std::vector<std::string>{});
}

// `!!binary QUJD` used to load as the pattern "QUJD".
TEST(YamlUnsupported, TagsOtherThanStrAreRefused) {
    const std::string yaml = kHead + rule(1, "!!binary QUJD") + "  - id: 2\n    msg: !!str n\n    pattern: !foo def\n";
    const std::vector<std::string> want = {
        "f.yaml:5:14: YAML tag \"!!binary\" is not supported in a rules file (write bytes as a pattern: |41 42|)",
        "f.yaml:8:14: YAML tag \"!foo\" is not supported in a rules file"};
    EXPECT_EQ(diagnostics(yaml), want);
    EXPECT_EQ(sliced_diagnostics(yaml), want);
    EXPECT_EQ(diagnostics(kHead + "  - !!map {id: 1, msg: m, pattern: a}\n"),
              std::vector<std::string>{"f.yaml:3:5: YAML tag \"!!map\" is not supported in a rules file"});
    // !!str says what the loader does anyway; a quoted "&" or "*" is text.
    const auto loaded = load_rules_string(kHead + rule(1, "!!str abc") + rule(2, "\"&x *y !z\""), "f.yaml");
    ASSERT_EQ(loaded.rules.size(), 2u);
    EXPECT_EQ(loaded.rules[0].pattern, "abc");
    EXPECT_EQ(loaded.rules[1].pattern, "&x *y !z");
}

// The unclosed-quote check looked for the quote at the scalar's mark, which
// is the anchor's or tag's when one comes first: the rest of the file became
// the pattern again.
TEST(YamlUnsupported, AQuoteLeftOpenAfterAnAnchorOrTagIsStillAnError) {
    const std::string open = "the quoted string opened here (\") is never closed";
    for (const std::string &props : {"&p ", "!!str ", "&p !!str "}) {
        SCOPED_TRACE(props);
        const auto got = diagnostics(kHead + rule(1, props + "\"abc") + rule(2, "def"));
        ASSERT_FALSE(got.empty());
        // At the quote itself, past the properties.
        EXPECT_EQ(got[0], "f.yaml:5:" + std::to_string(14 + props.size()) + ": YAML syntax error: " + open);
    }
    // A comment between the properties and the quote.
    const auto got =
        diagnostics(kHead + "  - id: 1\n    pattern: abc\n    msg: &a # c\n      \"abc\n" + rule(2, "def"));
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got[0], "f.yaml:6:7: YAML syntax error: " + open);
}

// yaml-cpp marks an empty item at the token after it: the next item, or a
// line past the end of the file.
TEST(YamlUnsupported, AnEmptyItemIsNamedAtItsDash) {
    const std::string empty = "rule must be a mapping of keys to values, got an empty value";
    EXPECT_EQ(diagnostics(kHead + rule(5, "abc") + "  -\n\n" + rule(6, "abd") + "  -\n"),
              (std::vector<std::string>{"f.yaml:6:3: " + empty, "f.yaml:11:3: " + empty}));
    EXPECT_EQ(diagnostics(kHead + rule(5, "abc") + "  -"), std::vector<std::string>{"f.yaml:6:3: " + empty});
    // A comment on the item's line, or comment lines after it.
    EXPECT_EQ(diagnostics(kHead + rule(5, "abc") + "  -   # empty\n" + rule(6, "abd")),
              std::vector<std::string>{"f.yaml:6:3: " + empty});
    EXPECT_EQ(diagnostics(kHead + rule(5, "abc") + "  -\n  # one\n\n  # two\n" + rule(6, "abd")),
              std::vector<std::string>{"f.yaml:6:3: " + empty});
}

TEST(YamlUnsupported, ARepeatedTopLevelKeyNamesTheFirstKeysLine) {
    EXPECT_EQ(diagnostics(kHead + "\n" + rule(5, "abc") + "rules: []\n"),
              std::vector<std::string>{"f.yaml:7:1: duplicate key \"rules\" (first at line 2)"});
}

// yaml-cpp's own message for this is "bad file".
TEST(YamlUnsupported, NestingPastTheParsersLimitSaysSo) {
    const auto got = diagnostics("version: 1\nrules: " + std::string(600, '[') + std::string(600, ']') + "\n");
    ASSERT_EQ(got.size(), 1u);
    EXPECT_NE(got[0].find("YAML syntax error: nesting too deep: the parser stops at depth"), std::string::npos)
        << got[0];
}

// yaml-cpp's positions leave out a byte order mark; a pattern's column is
// found in the raw text, so it must add the mark back.
TEST(YamlUnsupported, APatternErrorsColumnIsExactAfterAByteOrderMark) {
    const std::string bad = kHead + rule(5, "ab|4g|");
    const std::vector<std::string> want = {"f.yaml:5:18: rule 5: bad pattern \"ab|4g|\": non-hex digit 'g' in hex run"};
    EXPECT_EQ(diagnostics(bad), want);
    EXPECT_EQ(diagnostics("\xEF\xBB\xBF" + bad), want);
}

// A block scalar last in a file without a final newline: the sliced path
// appended one, and `|` kept it in the pattern ("abc\n" where the whole
// parse reads "abc").
TEST(YamlUnsupported, TheSlicedPathReadsALastBlockScalarAsTheWholeParseDoes) {
    std::string yaml = kHead;
    for (int id = 1; id < 40; ++id) yaml += rule(id, "p" + std::to_string(id));
    yaml += "  - id: 40\n    msg: m\n    pattern: |\n      abc";
    const auto whole = load_rules_string(yaml, "f.yaml");
    detail::set_parallel_rules_min_bytes(1);
    const auto sliced = load_rules_string(yaml, "f.yaml");
    detail::set_parallel_rules_min_bytes(0);
    ASSERT_EQ(whole.rules.size(), 40u);
    ASSERT_EQ(sliced.rules.size(), 40u);
    EXPECT_EQ(whole.rules.back().pattern, "abc");
    EXPECT_EQ(sliced.rules.back().pattern, "abc");
    // The indicator followed by a comment, or after a tab, is still one.
    for (const std::string &indicator : {"| # the signature", "|-", "\t|", ">"}) {
        SCOPED_TRACE(indicator);
        std::string y = kHead;
        for (int id = 1; id < 40; ++id) y += rule(id, "p" + std::to_string(id));
        y += "  - id: 40\n    msg: m\n    pattern: " + indicator + "\n      abc";
        const std::string want = load_rules_string(y, "f.yaml").rules.back().pattern;
        detail::set_parallel_rules_min_bytes(1);
        const std::string got = load_rules_string(y, "f.yaml").rules.back().pattern;
        detail::set_parallel_rules_min_bytes(0);
        EXPECT_EQ(got, want);
    }
}
