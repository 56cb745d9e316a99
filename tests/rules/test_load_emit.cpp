// Loading good files, to_yaml round trips, content hash, demo.yaml.
#include "rules/rule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

using namespace wm::rules;

namespace {

// Every stored field except `where` (a location in the file the rule came
// from) and `pattern_text` (what the author typed; checked separately).
void expect_same_rules(const RuleSet &a, const RuleSet &b) {
    EXPECT_EQ(a.version, b.version);
    ASSERT_EQ(a.rules.size(), b.rules.size());
    for (size_t i = 0; i < a.rules.size(); ++i) {
        const Rule &x = a.rules[i], &y = b.rules[i];
        SCOPED_TRACE(testing::Message() << "rule " << x.id);
        EXPECT_EQ(x.id, y.id);
        EXPECT_EQ(x.msg, y.msg);
        EXPECT_EQ(x.severity, y.severity);
        EXPECT_EQ(x.pattern, y.pattern);
        EXPECT_EQ(x.nocase, y.nocase);
        EXPECT_EQ(x.offset, y.offset);
        EXPECT_EQ(x.depth, y.depth);
        EXPECT_EQ(x.protocol, y.protocol);
        ASSERT_EQ(x.ports.size(), y.ports.size());
        for (size_t p = 0; p < x.ports.size(); ++p) {
            EXPECT_EQ(x.ports[p].lo, y.ports[p].lo);
            EXPECT_EQ(x.ports[p].hi, y.ports[p].hi);
        }
        EXPECT_EQ(x.max_edits, y.max_edits);
        EXPECT_EQ(x.max_mismatches, y.max_mismatches);
        EXPECT_EQ(x.source, y.source);
    }
}

const char *kFull = R"YAML(version: 1
rules:
  - id: 20
    msg: "all fields: \"quoted\" and \\ backslash"
    severity: 1
    pattern: "GET /admin|20 0d 0a|\\|\"\x41"
    nocase: true
    offset: 3
    depth: 40
    protocol: tcp
    ports: [443, "8000-8080", 80, 81]
    max_edits: 2
    source: "alert tcp any any -> any any (content:\"x\"; sid:20;)"
  - id: 10
    msg: plain
    pattern: abcdef
    protocol: udp
    max_mismatches: 1
  - id: 4294967295
    msg: "control \t bytes and UTF-8 caf\u00e9"
    pattern: "|00 ff|"
)YAML";

} // namespace

TEST(LoadRules, AllFieldsParsedAndSortedById) {
    RuleSet rs = load_rules_string(kFull, "full.yaml");
    EXPECT_EQ(rs.name, "full.yaml");
    ASSERT_EQ(rs.rules.size(), 3u);
    EXPECT_EQ(rs.rules[0].id, 10u);
    EXPECT_EQ(rs.rules[1].id, 20u);
    EXPECT_EQ(rs.rules[2].id, 4294967295u);

    const Rule &r = rs.rules[1];
    EXPECT_EQ(r.msg, "all fields: \"quoted\" and \\ backslash");
    EXPECT_EQ(r.severity, 1);
    EXPECT_EQ(r.pattern, "GET /admin \r\n|\"A");
    EXPECT_EQ(r.pattern_text, "GET /admin|20 0d 0a|\\|\"A"); // after YAML unescaping
    EXPECT_TRUE(r.nocase);
    EXPECT_EQ(r.offset, 3u);
    EXPECT_EQ(r.depth, 40u);
    EXPECT_EQ(r.protocol, Protocol::Tcp);
    // Ports are a set: sorted and merged (80,81 adjacent).
    ASSERT_EQ(r.ports.size(), 3u);
    EXPECT_EQ(r.ports[0].lo, 80);
    EXPECT_EQ(r.ports[0].hi, 81);
    EXPECT_EQ(r.ports[1].lo, 443);
    EXPECT_EQ(r.ports[2].lo, 8000);
    EXPECT_EQ(r.ports[2].hi, 8080);
    EXPECT_EQ(r.max_edits, 2u);
    EXPECT_FALSE(r.max_mismatches.has_value());
    EXPECT_EQ(r.source, "alert tcp any any -> any any (content:\"x\"; sid:20;)");
    EXPECT_EQ(r.where.file, "full.yaml");
    EXPECT_EQ(r.where.line, 3u);
    EXPECT_EQ(r.where.column, 5u);

    const Rule &d = rs.rules[0]; // defaults
    EXPECT_EQ(d.severity, 3);
    EXPECT_FALSE(d.nocase);
    EXPECT_EQ(d.offset, 0u);
    EXPECT_EQ(d.depth, 0u);
    EXPECT_EQ(d.protocol, Protocol::Udp);
    EXPECT_TRUE(d.ports.empty());
    EXPECT_EQ(d.max_mismatches, 1u);
    EXPECT_EQ(rs.rules[2].pattern, std::string("\0\xff", 2));
    EXPECT_EQ(rs.rules[2].msg, "control \t bytes and UTF-8 caf\xc3\xa9");
}

TEST(LoadRules, EmptyRuleListIsValid) {
    RuleSet rs = load_rules_string("version: 1\nrules: []\n", "empty.yaml");
    EXPECT_TRUE(rs.rules.empty());
    EXPECT_EQ(to_yaml(rs), "version: 1\nrules: []\n");
}

TEST(ToYaml, RoundTripsEveryField) {
    RuleSet a = load_rules_string(kFull, "full.yaml");
    std::string text = to_yaml(a);
    RuleSet b = load_rules_string(text, "again.yaml");
    expect_same_rules(a, b);
    EXPECT_EQ(content_hash(a), content_hash(b));
    // pattern_text becomes the canonical encoding, after which emitting is a fixed point.
    for (const Rule &r : b.rules) EXPECT_EQ(r.pattern_text, encode_pattern(r.pattern));
    EXPECT_EQ(to_yaml(b), text);
}

TEST(ToYaml, RoundTripsHostileStrings) {
    RuleSet rs;
    Rule r;
    r.id = 1;
    for (int c = 1; c < 0x80; ++c) r.msg.push_back(static_cast<char>(c)); // every ASCII byte
    for (int c = 0; c < 256; ++c) r.pattern.push_back(static_cast<char>(c));
    r.source = "alert tcp any any -> any any (msg:\"a\\\"b\"; content:\"|3b|\\;\"; sid:1;)";
    rs.rules.push_back(r);
    RuleSet back = load_rules_string(to_yaml(rs), "hostile.yaml");
    expect_same_rules(rs, back);
}

TEST(ContentHash, IndependentOfNameOrderAndFormatting) {
    const char *a = "version: 1\nrules:\n"
                    "  - {id: 1, msg: one, pattern: \"|41|bc\", nocase: true}\n"
                    "  - {id: 2, msg: two, pattern: xyz, ports: [80, 443]}\n";
    const char *b = "# same rules, other order and style\n"
                    "version: 1\n"
                    "rules:\n"
                    "  - id: 2\n"
                    "    pattern: 'xyz'\n"
                    "    msg: \"two\"\n"
                    "    ports: [443, \"80-80\"]\n"
                    "    severity: 3\n"
                    "  - nocase: True\n"
                    "    pattern: Abc\n"
                    "    id: 1\n"
                    "    msg: one\n"
                    "    protocol: any\n";
    RuleSet x = load_rules_string(a, "a.yaml"), y = load_rules_string(b, "other/b.yaml");
    EXPECT_EQ(content_hash(x), content_hash(y));
    // Order of rules in memory does not matter either.
    std::reverse(y.rules.begin(), y.rules.end());
    EXPECT_EQ(content_hash(x), content_hash(y));
    // Nor do the non-semantic fields.
    y.rules[0].source = "imported from somewhere";
    y.rules[0].pattern_text = "whatever";
    y.name = "renamed";
    EXPECT_EQ(content_hash(x), content_hash(y));
}

TEST(ContentHash, ChangesWithEverySemanticField) {
    RuleSet base = load_rules_string(kFull, "full.yaml");
    const uint64_t h = content_hash(base);
    std::vector<std::pair<const char *, std::function<void(RuleSet &)>>> edits = {
        {"version", [](RuleSet &s) { s.version = 2; }},
        {"id", [](RuleSet &s) { s.rules[1].id = 21; }},
        {"msg", [](RuleSet &s) { s.rules[1].msg += "!"; }},
        {"severity", [](RuleSet &s) { s.rules[1].severity = 2; }},
        {"pattern", [](RuleSet &s) { s.rules[1].pattern.back() = 'B'; }},
        {"nocase", [](RuleSet &s) { s.rules[1].nocase = false; }},
        {"offset", [](RuleSet &s) { s.rules[1].offset = 4; }},
        {"depth", [](RuleSet &s) { s.rules[1].depth = 41; }},
        {"protocol", [](RuleSet &s) { s.rules[1].protocol = Protocol::Udp; }},
        {"ports", [](RuleSet &s) { s.rules[1].ports[0].hi = 82; }},
        {"ports dropped", [](RuleSet &s) { s.rules[1].ports.clear(); }},
        {"max_edits", [](RuleSet &s) { s.rules[1].max_edits = 1; }},
        {"max_edits unset", [](RuleSet &s) { s.rules[1].max_edits.reset(); }},
        {"max_mismatches", [](RuleSet &s) { s.rules[0].max_mismatches = 2; }},
        {"max_mismatches unset", [](RuleSet &s) { s.rules[0].max_mismatches.reset(); }},
        {"rule removed", [](RuleSet &s) { s.rules.pop_back(); }},
        {"msg/pattern boundary", [](RuleSet &s) { s.rules[0].msg += "a"; s.rules[0].pattern.erase(0, 1); }},
    };
    for (auto &[what, edit] : edits) {
        RuleSet changed = base;
        edit(changed);
        EXPECT_NE(content_hash(changed), h) << what;
    }
}

TEST(DemoRules, LoadCleanlyWithTenRules) {
    RuleSet rs = load_rules_file(std::string(WM_SOURCE_DIR) + "/rules/examples/demo.yaml");
    ASSERT_EQ(rs.rules.size(), 10u);
    for (size_t i = 0; i < 10; ++i) {
        EXPECT_EQ(rs.rules[i].id, 1000001u + i);
        EXPECT_FALSE(rs.rules[i].msg.empty());
    }
    auto by_id = [&](uint32_t id) { return rs.rules.at(id - 1000001); };
    EXPECT_EQ(by_id(1000001).pattern, "/admin/config.php");
    EXPECT_EQ(by_id(1000001).severity, 2);
    ASSERT_EQ(by_id(1000001).ports.size(), 1u);
    EXPECT_EQ(by_id(1000001).ports[0].lo, 80);
    EXPECT_EQ(by_id(1000002).pattern, "User-Agent: sqlmap");
    EXPECT_TRUE(by_id(1000002).nocase);
    EXPECT_EQ(by_id(1000003).pattern, "\x07" "evil-c2\x07" "example\x03" "com");
    EXPECT_EQ(by_id(1000003).protocol, Protocol::Udp);
    EXPECT_EQ(by_id(1000003).ports[0].lo, 53);
    EXPECT_EQ(by_id(1000004).pattern, "X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR");
    EXPECT_EQ(by_id(1000004).severity, 1);
    EXPECT_EQ(by_id(1000005).pattern, "../../etc/passwd");
    EXPECT_EQ(by_id(1000006).pattern, std::string(8, '\x90'));
    EXPECT_EQ(by_id(1000006).protocol, Protocol::Any);
    EXPECT_EQ(by_id(1000007).pattern, "MAIL FROM:<attacker@");
    EXPECT_EQ(by_id(1000007).ports[0].lo, 25);
    EXPECT_EQ(by_id(1000008).pattern, "cmd.exe");
    EXPECT_EQ(by_id(1000009).pattern, "GET ");
    EXPECT_EQ(by_id(1000009).offset, 0u);
    EXPECT_EQ(by_id(1000009).depth, 4u);
    EXPECT_EQ(by_id(1000010).pattern, "never-seen-in-demo-traffic");
    expect_same_rules(rs, load_rules_string(to_yaml(rs), "demo-again.yaml"));
}
