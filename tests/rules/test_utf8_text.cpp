// tests/rules/test_utf8_text.cpp - a rule's msg becomes the EVE alert's
// signature, so it must be UTF-8 (the JSON writer would print U+FFFD);
// patterns are bytes and may hold anything.
#include "rules/loader_internal.h"
#include "rules/rule.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace wm::rules;

namespace {

std::string rule_yaml(const std::string &msg_line, const std::string &pattern_line) {
    return "version: 1\nrules:\n  - id: 7\n" + msg_line + "\n" + pattern_line + "\n";
}

std::string load_error(const std::string &yaml) {
    try {
        load_rules_string(yaml, "case.yaml");
    } catch (const RuleError &e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(InvalidUtf8Offset, AcceptsWellFormedText) {
    for (const char *text : {"", "plain ASCII", "caf\xC3\xA9", "\xE2\x82\xAC 5", "\xF0\x9D\x84\x9E",
                             "\xED\x9F\xBF", "\xEE\x80\x80", "\xF4\x8F\xBF\xBF"}) {
        SCOPED_TRACE(text);
        EXPECT_EQ(invalid_utf8_offset(text), std::string::npos);
    }
}

TEST(InvalidUtf8Offset, PointsAtTheFirstBadSequence) {
    const std::pair<std::string, size_t> cases[] = {
        {"ab\xFF", 2},                // never valid
        {"\x80x", 0},                 // continuation without a lead
        {"\xC0\x80", 0},              // overlong NUL
        {"\xC1\xBF", 0},              // overlong
        {"\xE0\x80\x80", 0},          // overlong three-byte form
        {"\xED\xA0\x80", 0},          // UTF-16 surrogate
        {"\xF4\x90\x80\x80", 0},      // above U+10FFFF
        {"\xF5\x80\x80\x80", 0},      // lead byte past F4
        {"ok \xE2\x82", 3},           // truncated at the end
        {"\xE2(\xA1", 0},             // a bad continuation byte
        {"caf\xC3\xA9 \xE9t\xE9", 6}, // Latin-1 after valid UTF-8
    };
    for (const auto &[text, offset] : cases) {
        SCOPED_TRACE(testing::PrintToString(text));
        EXPECT_EQ(invalid_utf8_offset(text), offset);
    }
}

// The column points at the bad byte, quoted or plain.
TEST(MsgUtf8, NotUtf8IsRejectedWithLineColumnAndRuleId) {
    EXPECT_EQ(load_error(rule_yaml("    msg: \"bad \xFF here\"", "    pattern: abc")),
              "case.yaml:4:15: rule 7: msg is not valid UTF-8 (byte 0xFF at offset 4)");
    EXPECT_EQ(load_error(rule_yaml("    msg: caf\xE9", "    pattern: abc")),
              "case.yaml:4:13: rule 7: msg is not valid UTF-8 (byte 0xE9 at offset 3)");
}

// Patterns are bytes: raw non-UTF-8 bytes in one stay allowed.
TEST(MsgUtf8, PatternBytesNeedNotBeUtf8) {
    const RuleSet rs =
        load_rules_string(rule_yaml("    msg: \"caf\xC3\xA9\"", "    pattern: \"ab\xFE\xFF\""), "ok.yaml");
    ASSERT_EQ(rs.rules.size(), 1u);
    EXPECT_EQ(rs.rules[0].msg, "caf\xC3\xA9");
    EXPECT_EQ(rs.rules[0].pattern, "ab\xFE\xFF");
}

// YAML's own \xHH escape means a code point, which yaml-cpp writes as UTF-8.
TEST(MsgUtf8, YamlEscapesAreCodePoints) {
    const RuleSet rs = load_rules_string(rule_yaml("    msg: \"caf\\xE9\"", "    pattern: abc"), "ok.yaml");
    EXPECT_EQ(rs.rules.at(0).msg, "caf\xC3\xA9");
}

// A file large enough for the sliced path reports it the same way.
TEST(MsgUtf8, SlicedPathReportsTheSame) {
    std::string yaml = "version: 1\nrules:\n";
    for (int i = 1; i <= 300; ++i)
        yaml += "  - id: " + std::to_string(i) + "\n    msg: \"m" + std::to_string(i) + "\"\n    pattern: p\n";
    yaml += "  - id: 999\n    msg: \"\xC0\xAF\"\n    pattern: p\n";
    detail::set_parallel_rules_min_bytes(1);
    const std::string sliced = load_error(yaml);
    detail::set_parallel_rules_min_bytes(0);
    EXPECT_EQ(sliced, "case.yaml:904:11: rule 999: msg is not valid UTF-8 (byte 0xC0 at offset 0)");
}
