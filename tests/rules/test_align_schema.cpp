// align: rules in the YAML schema: parsing, reference_file resolution, the
// reference length limit, to_yaml round trips and the content hash. The
// table of bad align rules is in bad_rules.txt (align_* cases).
#include "rules/rule.h"
#include "tests/scratch.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <tuple>

using namespace wm::rules;
namespace fs = std::filesystem;

namespace {

const char *kAlign = R"YAML(version: 1
rules:
  - id: 5
    msg: "shellcode family X, mutated"
    severity: 1
    protocol: tcp
    ports: [80]
    align:
      reference: "GET /x|90 90|\\|y"
      min_score: 30
      match: 4
      mismatch: -5
      gap_open: 6
      gap_extend: 2
  - id: 6
    msg: defaults
    align: {reference: abcdefgh, min_score: 12}
  - id: 7
    msg: literal next to align rules
    pattern: plain
)YAML";

// A fresh directory per test, removed at the end.
struct TempDir {
    fs::path path;
    TempDir() {
        path = wm::test::scratch_path("dir"); // per process: trees running at once keep apart
        fs::remove_all(path);
        fs::create_directories(path / "refs");
    }
    ~TempDir() { fs::remove_all(path); }
    void write(const std::string &rel, const std::string &bytes) const {
        std::ofstream(path / rel, std::ios::binary) << bytes;
    }
};

std::string rule_with_file(const std::string &file, int min_score = 5) {
    return "version: 1\nrules:\n  - id: 9\n    msg: m\n    align:\n      reference_file: " + file +
           "\n      min_score: " + std::to_string(min_score) + "\n";
}

std::string first_error(const std::function<void()> &load) {
    try {
        load();
    } catch (const RuleError &e) {
        return e.diagnostics().at(0).to_string();
    }
    return "(loaded without error)";
}

} // namespace

TEST(AlignRules, ParsesEveryFieldAndKeepsLiteralRulesApart) {
    RuleSet rs = load_rules_string(kAlign, "a.yaml");
    ASSERT_EQ(rs.rules.size(), 3u);
    const Rule &r = rs.rules[0];
    ASSERT_TRUE(r.align.has_value());
    EXPECT_TRUE(r.pattern.empty());
    EXPECT_EQ(r.align->reference, "GET /x\x90\x90|y");
    EXPECT_EQ(r.align->reference_text, "GET /x|90 90|\\|y");
    EXPECT_TRUE(r.align->reference_file.empty());
    EXPECT_EQ(r.align->min_score, 30);
    EXPECT_EQ(r.align->match, 4);
    EXPECT_EQ(r.align->mismatch, -5);
    EXPECT_EQ(r.align->gap_open, 6);
    EXPECT_EQ(r.align->gap_extend, 2);
    EXPECT_EQ(r.severity, 1);
    EXPECT_EQ(r.protocol, Protocol::Tcp); // protocol/ports still apply
    ASSERT_EQ(r.ports.size(), 1u);

    const AlignSpec &d = *rs.rules[1].align; // gpu/align's defaults: +5/-3, Gs 8, Ge 1
    EXPECT_EQ(d.match, 5);
    EXPECT_EQ(d.mismatch, -3);
    EXPECT_EQ(d.gap_open, 8);
    EXPECT_EQ(d.gap_extend, 1);
    EXPECT_FALSE(rs.rules[2].align.has_value());
    EXPECT_EQ(rs.rules[2].pattern, "plain");
}

TEST(AlignRules, ReferenceFileIsReadRawRelativeToTheYamlDirectory) {
    TempDir dir;
    const std::string bytes("\x00|\\\xff GET", 8); // no escape processing in files
    dir.write("refs/ref.bin", bytes);
    dir.write("rules.yaml", rule_with_file("refs/ref.bin"));
    RuleSet rs = load_rules_file((dir.path / "rules.yaml").string());
    ASSERT_TRUE(rs.rules.at(0).align.has_value());
    EXPECT_EQ(rs.rules[0].align->reference, bytes);
    EXPECT_EQ(rs.rules[0].align->reference_file, "refs/ref.bin");
    EXPECT_TRUE(rs.rules[0].align->reference_text.empty());
    // load_rules_string resolves against the directory part of its name.
    RuleSet again = load_rules_string(rule_with_file("refs/ref.bin"),
                                      (dir.path / "other.yaml").string());
    EXPECT_EQ(again.rules.at(0).align->reference, bytes);
    // Absolute paths are taken as they are.
    RuleSet abs = load_rules_string(rule_with_file((dir.path / "refs/ref.bin").string()), "x.yaml");
    EXPECT_EQ(abs.rules.at(0).align->reference, bytes);
}

TEST(AlignRules, UnreadableOrBadReferenceFilesNameTheFileAndLine) {
    TempDir dir;
    const std::string yaml = (dir.path / "r.yaml").string();
    dir.write("refs/empty.bin", "");
    dir.write("refs/long.bin", std::string(kMaxReferenceBytes + 1, 'A'));
    dir.write("refs/limit.bin", std::string(kMaxReferenceBytes, 'A'));
    EXPECT_EQ(first_error([&] { load_rules_string(rule_with_file("refs/nope.bin"), yaml); }),
              yaml + ":6:23: rule 9: cannot read align reference_file \"refs/nope.bin\" (" +
                  (dir.path / "refs/nope.bin").string() + "): No such file or directory");
    EXPECT_EQ(first_error([&] { load_rules_string(rule_with_file("refs"), yaml); }),
              yaml + ":6:23: rule 9: cannot read align reference_file \"refs\" (" +
                  (dir.path / "refs").string() + "): Is a directory");
    EXPECT_EQ(first_error([&] { load_rules_string(rule_with_file("refs/empty.bin"), yaml); }),
              yaml + ":6:23: rule 9: align reference_file \"refs/empty.bin\" is empty");
    EXPECT_EQ(first_error([&] { load_rules_string(rule_with_file("refs/long.bin"), yaml); }),
              yaml + ":6:23: rule 9: align reference_file \"refs/long.bin\" is longer than the maximum of "
                     "1024 bytes (the GPU alignment kernel's limit)");
    EXPECT_EQ(load_rules_string(rule_with_file("refs/limit.bin"), yaml).rules.at(0).align->reference.size(),
              kMaxReferenceBytes);
    // An endless file is refused at the limit, not read into memory.
    EXPECT_EQ(first_error([&] { load_rules_string(rule_with_file("/dev/zero"), yaml); }),
              yaml + ":6:23: rule 9: align reference_file \"/dev/zero\" is longer than the maximum of "
                     "1024 bytes (the GPU alignment kernel's limit)");
}

TEST(AlignRules, InlineReferenceLengthLimitIsTheGpuKernels) {
    auto yaml = [](size_t n) {
        return "version: 1\nrules:\n  - id: 3\n    msg: m\n    align:\n      reference: \"" +
               std::string(n, 'C') + "\"\n      min_score: 1\n";
    };
    EXPECT_EQ(load_rules_string(yaml(kMaxReferenceBytes), "ok.yaml").rules.at(0).align->reference.size(),
              kMaxReferenceBytes);
    EXPECT_EQ(first_error([&] { load_rules_string(yaml(kMaxReferenceBytes + 1), "long.yaml"); }),
              "long.yaml:6:18: rule 3: align reference is 1025 bytes, longer than the maximum of "
              "1024 (the GPU alignment kernel's limit)");
    EXPECT_EQ(first_error([&] { load_rules_string(yaml(1), "one.yaml"); }), "(loaded without error)");
}

TEST(AlignRules, ToYamlRoundTripsWithTheReferenceInline) {
    TempDir dir;
    dir.write("ref.bin", std::string("\x01\x02 ref \"q\"", 10));
    dir.write("rules.yaml", rule_with_file("ref.bin", 7));
    RuleSet from_file = load_rules_file((dir.path / "rules.yaml").string());
    RuleSet a = load_rules_string(kAlign, "a.yaml");
    a.rules.push_back(from_file.rules.at(0));
    const std::string text = to_yaml(a);
    EXPECT_EQ(text.find("reference_file"), std::string::npos) << text;
    EXPECT_EQ(text.find("pattern: \"\""), std::string::npos) << "align rules have no pattern";
    RuleSet b = load_rules_string(text, "elsewhere/b.yaml"); // no file needed any more
    ASSERT_EQ(b.rules.size(), a.rules.size());
    for (size_t i = 0; i < a.rules.size(); ++i) {
        SCOPED_TRACE(a.rules[i].id);
        ASSERT_EQ(a.rules[i].align.has_value(), b.rules[i].align.has_value());
        EXPECT_EQ(a.rules[i].pattern, b.rules[i].pattern);
        if (!a.rules[i].align) continue;
        const AlignSpec &x = *a.rules[i].align, &y = *b.rules[i].align;
        EXPECT_EQ(x.reference, y.reference);
        EXPECT_EQ(y.reference_text, encode_pattern(y.reference));
        EXPECT_TRUE(y.reference_file.empty());
        EXPECT_EQ(std::tie(x.min_score, x.match, x.mismatch, x.gap_open, x.gap_extend),
                  std::tie(y.min_score, y.match, y.mismatch, y.gap_open, y.gap_extend));
    }
    EXPECT_EQ(content_hash(a), content_hash(b));
    EXPECT_EQ(to_yaml(b), text); // a fixed point after one round
}

TEST(AlignRules, ContentHashCoversTheAlignFieldsButNotWhereTheBytesCameFrom) {
    const RuleSet base = load_rules_string(kAlign, "a.yaml");
    const uint64_t h = content_hash(base);
    std::vector<std::pair<const char *, std::function<void(AlignSpec &)>>> edits = {
        {"reference", [](AlignSpec &a) { a.reference.back() = 'z'; }},
        {"min_score", [](AlignSpec &a) { a.min_score++; }},
        {"match", [](AlignSpec &a) { a.match++; }},
        {"mismatch", [](AlignSpec &a) { a.mismatch++; }},
        {"gap_open", [](AlignSpec &a) { a.gap_open++; }},
        {"gap_extend", [](AlignSpec &a) { a.gap_extend++; }},
    };
    for (auto &[what, edit] : edits) {
        RuleSet changed = base;
        edit(*changed.rules[0].align);
        EXPECT_NE(content_hash(changed), h) << what;
    }
    RuleSet dropped = base;
    dropped.rules[1].align.reset();
    dropped.rules[1].pattern = "abcdefgh"; // same bytes as a literal: a different rule
    EXPECT_NE(content_hash(dropped), h);
    RuleSet moved = base;
    moved.rules[0].align->reference_text = "typed differently";
    moved.rules[0].align->reference_file = "from/a/file.bin";
    EXPECT_EQ(content_hash(moved), h);
}
