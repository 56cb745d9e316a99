// Suricata / Snort 3 import: crafted files with exact expectations, then the
// real ET Open and Snort 3 community sets when the shared data is unpacked.
#include "rules/ids_import.h"
#include "tests/scratch.h"
#include "tests/text_damage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace wm::rules;
namespace fs = std::filesystem;

namespace {

std::string write_file(const std::string &name, const std::string &text) {
    std::string path = wm::test::scratch_path(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

const Rule *find(const RuleSet &rs, uint32_t id) {
    for (const Rule &r : rs.rules)
        if (r.id == id) return &r;
    return nullptr;
}

struct Expect {
    uint32_t id;
    std::string pattern;
    bool nocase;
    uint32_t offset, depth;
    Protocol protocol;
    int severity;
};

void check(const RuleSet &rs, const std::vector<Expect> &want) {
    ASSERT_EQ(rs.rules.size(), want.size());
    for (const Expect &e : want) {
        SCOPED_TRACE(testing::Message() << "sid " << e.id);
        const Rule *r = find(rs, e.id);
        ASSERT_NE(r, nullptr);
        EXPECT_EQ(r->pattern, e.pattern);
        EXPECT_EQ(r->nocase, e.nocase);
        EXPECT_EQ(r->offset, e.offset);
        EXPECT_EQ(r->depth, e.depth);
        EXPECT_EQ(r->protocol, e.protocol);
        EXPECT_EQ(r->severity, e.severity);
        EXPECT_TRUE(r->ports.empty());
        EXPECT_EQ(r->pattern_text, encode_pattern(r->pattern));
    }
    // Whatever the importer emits must pass the YAML validator unchanged.
    RuleSet back = load_rules_string(to_yaml(rs), "imported.yaml");
    EXPECT_EQ(back.rules.size(), rs.rules.size());
    EXPECT_EQ(content_hash(back), content_hash(rs));
}

const char *kSuricata =
    "# Suricata-syntax test rules\n"
    "\n"
    "alert http $HOME_NET any -> $EXTERNAL_NET any (msg:\"fast pattern wins\"; content:\"longest-content-here\"; content:\"fp\"; fast_pattern; nocase; sid:1; priority:1;)\n"
    "alert tcp any any -> any 80 (msg:\"longest wins\"; content:\"abc\"; content:\"abcdef\"; depth:10; offset:2; content:\"xyz123\"; sid:2;)\n"
    "alert udp any any -> any 53 (msg:\"negated not a candidate\"; content:!\"nope-long-string\"; fast_pattern; content:\"|41 42|C\"; sid:3; priority:9;)\n"
    "alert dns any any -> any any (msg:\"negated only\"; content:!\"bad\"; sid:4;)\n"
    "alert ip any any -> any any (msg:\"no content\"; pcre:\"/x/\"; sid:5;)\n"
    "#alert tcp any any -> any any (msg:\"disabled\"; content:\"x\"; sid:6;)\n"
    "# alert tcp any any -> any any (msg:\"disabled too\"; content:\"x\"; sid:16;)\n"
    "# alert me when this is a comment, not a rule\n"
    "alert tcp any any -> any any (msg:\"dup\"; content:\"dupdup\"; sid:2;)\n"
    "alert tcp any any -> any any msg:\"no parens\"\n"
    "alert tcp any any -> any any (msg:\"continued\"; \\\n"
    "  content:\"con|3b|t\\;x\\\"y\"; sid:7;)\n"
    "alert http any any -> any any (msg:\"var depth\"; byte_extract:2,0,len; content:\"vardepth\"; depth:len; offset:1; sid:8;)\n"
    "alert tcp any any -> any any (msg:\"depth shorter\"; content:\"abcdefgh\"; depth:4; sid:9;)\n"
    "alert http any any -> any any (msg:\"buffer\"; http.uri; content:\"/admin\"; depth:6; sid:10;)\n"
    "alert tls any any -> any any (msg:\"chop\"; content:\"0123456789\"; fast_pattern:2,4; sid:11;)\n"
    "alert tcp any any -> any any (msg:\"pcre quote\"; content:\"abc\"; pcre:\"/[\"']x/\"; sid:12;)\n"
    "alert icmp any any -> any any (msg:\"semicolon in msg\\; ok\"; content:\"ping\"; sid:13;)\n"
    "alert tcp any any -> any any (msg:\"missing sid\"; content:\"x\";)\n"
    "alert tcp any any -> any any (msg:\"bad hex\"; content:\"|4|\"; sid:14;)\n"
    "alert tcp any any <> any any (msg:\"bidirectional startswith\"; content:\"HELLO\"; startswith; sid:15;)\n"
    "alert smtp any any -> any any (msg:\"old modifier\"; content:\"RCPT\"; http_uri; depth:4; sid:17;)\n";

const char *kSnort3 =
    "alert tcp $HOME_NET 2589 -> $EXTERNAL_NET any ( msg:\"s3 depth\"; content:\"2|00 00|Dr\",depth 16; sid:105; rev:14; )\n"
    "alert icmp any any -> any any ( msg:\"s3 fp\"; content:\"longer-one-here\"; content:\"1234\",fast_pattern,nocase; sid:221; )\n"
    "alert http ( msg:\"s3 service\"; http_header:field user-agent; content:\"HttpBrowser/1.0\",fast_pattern,nocase,depth 20; sid:42886; )\n"
    "alert udp any any -> any any ( msg:\"s3 offsets\"; content:\"abc\",offset 3,depth 5; content:\"zz\"; sid:300; priority:2; )\n"
    "alert tcp any any -> any any ( msg:\"s3 var\"; byte_extract:1,0,off; content:\"varoff\",offset off,depth 10; sid:301; )\n"
    "alert tcp any any -> any any ( msg:\"s3 chop\"; content:\"abcdefghij\",fast_pattern,fast_pattern_offset 2,fast_pattern_length 3; sid:302; )\n"
    "alert ( msg:\"s3 no header\"; content:\"bare\"; sid:303; )\n"
    "alert tcp any any -> any any ( msg:\"s3 negated\"; content:!\"neg\"; sid:304; )\n";

} // namespace

TEST(ImportIds, SuricataSyntax) {
    std::string path = write_file("suricata.rules", kSuricata);
    ImportResult res = import_ids_rules({path});
    const ImportReport &rep = res.report;
    EXPECT_EQ(rep.rules_read, 20u);
    EXPECT_EQ(rep.rules_disabled, 2u);
    EXPECT_EQ(rep.rules_imported, 12u);
    EXPECT_EQ(rep.skipped_no_content, 1u);
    EXPECT_EQ(rep.skipped_negated_only, 1u);
    EXPECT_EQ(rep.skipped_parse_error, 3u);
    EXPECT_EQ(rep.skipped_duplicate_sid, 1u);
    EXPECT_EQ(rep.distinct_patterns, 12u);
    EXPECT_EQ(rep.details, (std::vector<std::string>{
                               path + ":11: duplicate sid 2 (first at " + path + ":4)",
                               path + ":12: no option list in parentheses",
                               path + ":21: no sid",
                               path + ":22: sid 14: odd number of hex digits in content",
                           }));
    check(res.rules, {
                         {1, "fp", true, 0, 0, Protocol::Tcp, 1},
                         {2, "abcdef", false, 2, 10, Protocol::Tcp, 3},
                         {3, "ABC", false, 0, 0, Protocol::Udp, 4},
                         {7, "con;t;x\"y", false, 0, 0, Protocol::Tcp, 3},
                         {8, "vardepth", false, 1, 0, Protocol::Tcp, 3},
                         {9, "abcdefgh", false, 0, 0, Protocol::Tcp, 3},
                         {10, "/admin", false, 0, 0, Protocol::Tcp, 3},
                         {11, "2345", false, 0, 0, Protocol::Tcp, 3},
                         {12, "abc", false, 0, 0, Protocol::Tcp, 3},
                         {13, "ping", false, 0, 0, Protocol::Any, 3},
                         {15, "HELLO", false, 0, 5, Protocol::Tcp, 3},
                         {17, "RCPT", false, 0, 0, Protocol::Tcp, 3},
                     });
}

TEST(ImportIds, SuricataKeepsMsgAndSource) {
    std::string path = write_file("suricata2.rules", kSuricata);
    RuleSet rs = import_ids_rules({path}).rules;
    EXPECT_EQ(find(rs, 13)->msg, "semicolon in msg; ok");
    EXPECT_EQ(find(rs, 7)->msg, "continued");
    EXPECT_EQ(find(rs, 7)->source,
              "alert tcp any any -> any any (msg:\"continued\";   content:\"con|3b|t\\;x\\\"y\"; sid:7;)"); // joined at the backslash
    EXPECT_EQ(find(rs, 7)->where.line, 13u);
    EXPECT_EQ(find(rs, 2)->source.substr(0, 40), "alert tcp any any -> any 80 (msg:\"longes");
}

TEST(ImportIds, Snort3Syntax) {
    std::string path = write_file("snort3.rules", kSnort3);
    ImportResult res = import_ids_rules({path});
    EXPECT_EQ(res.report.rules_read, 8u);
    EXPECT_EQ(res.report.rules_disabled, 0u);
    EXPECT_EQ(res.report.rules_imported, 7u);
    EXPECT_EQ(res.report.skipped_negated_only, 1u);
    EXPECT_EQ(res.report.skipped_parse_error, 0u);
    check(res.rules, {
                         {105, std::string("2\0\0Dr", 5), false, 0, 16, Protocol::Tcp, 3},
                         {221, "1234", true, 0, 0, Protocol::Any, 3},
                         {300, "abc", false, 3, 5, Protocol::Udp, 2},
                         {301, "varoff", false, 0, 0, Protocol::Tcp, 3},
                         {302, "cde", false, 0, 0, Protocol::Tcp, 3},
                         {303, "bare", false, 0, 0, Protocol::Any, 3},
                         {42886, "HttpBrowser/1.0", true, 0, 0, Protocol::Tcp, 3},
                     });
}

// The loader refuses longer patterns, so importing them would write YAML that
// `rules check` rejects: such a rule is a parse error (listed with its sid).
TEST(ImportIds, ContentLongerThanThePatternMaximumIsAParseError) {
    const std::string too_long(kMaxPatternBytes + 1, 'A');
    std::string hex_run = "|41";
    for (size_t i = 1; i < too_long.size(); ++i) hex_run += " 41";
    hex_run += "|";
    const std::string path = write_file(
        "long.rules", "alert tcp any any -> any any (msg:\"plain\"; content:\"" + too_long + "\"; sid:5;)\n"
                      "alert tcp any any -> any any (msg:\"hex\"; content:\"" + hex_run + "\"; sid:6;)\n"
                      "alert tcp any any -> any any (msg:\"not chosen\"; content:\"xyz\"; fast_pattern; content:\"" +
                      too_long + "\"; sid:7;)\n"
                      "alert tcp any any -> any any (msg:\"maximum\"; content:\"" +
                      std::string(kMaxPatternBytes, 'B') + "\"; sid:8;)\n");
    ImportResult res = import_ids_rules({path});
    EXPECT_EQ(res.report.skipped_parse_error, 3u);
    const std::string why = ": content is " + std::to_string(kMaxPatternBytes + 1) +
                            " bytes, longer than the maximum of " + std::to_string(kMaxPatternBytes);
    EXPECT_EQ(res.report.details, (std::vector<std::string>{path + ":1: sid 5" + why, path + ":2: sid 6" + why,
                                                            path + ":3: sid 7" + why}));
    check(res.rules, {{8, std::string(kMaxPatternBytes, 'B'), false, 0, 0, Protocol::Tcp, 3}});
}

// A chop that selects no byte is one Suricata refuses: the whole content
// stays the literal (every match contains it), with its offset and depth.
// An empty chop had made YAML the loader rejects (found by tests/fuzz).
TEST(ImportIds, ChopThatSelectsNoByteKeepsTheWholeContent) {
    const std::string path = write_file(
        "chops.rules",
        "alert tcp any any -> any any (msg:\"zero length\"; content:\"GET\"; offset:0; depth:3; fast_pattern:1,0; sid:1;)\n"
        "alert tcp any any -> any any (msg:\"past the end\"; content:\"abcd\"; fast_pattern:9,2; sid:2;)\n"
        "alert tcp any any -> any any ( msg:\"s3 zero\"; content:\"wxyz\",fast_pattern,fast_pattern_length 0; sid:3; )\n"
        "alert tcp any any -> any any (msg:\"longer than left\"; content:\"0123456789\"; fast_pattern:7,9; sid:4;)\n");
    ImportResult res = import_ids_rules({path});
    EXPECT_EQ(res.report.skipped_parse_error, 0u);
    check(res.rules, {
                         {1, "GET", false, 0, 3, Protocol::Tcp, 3},
                         {2, "abcd", false, 0, 0, Protocol::Tcp, 3},
                         {3, "wxyz", false, 0, 0, Protocol::Tcp, 3},
                         {4, "789", false, 0, 0, Protocol::Tcp, 3}, // the chop's bytes that exist
                     });
}

// The msg becomes the EVE signature, which the loader requires to be UTF-8.
TEST(ImportIds, MsgThatIsNotUtf8IsAParseError) {
    const std::string path = write_file("latin1.rules",
                                        "alert tcp any any -> any any (msg:\"caf\xE9\"; content:\"abc\"; sid:1;)\n"
                                        "alert tcp any any -> any any (msg:\"caf\xC3\xA9\"; content:\"x\"; sid:2;)\n");
    ImportResult res = import_ids_rules({path});
    EXPECT_EQ(res.report.skipped_parse_error, 1u);
    EXPECT_EQ(res.report.details,
              std::vector<std::string>{path + ":1: sid 1: msg is not valid UTF-8 (byte 0xE9 at offset 3)"});
    check(res.rules, {{2, "x", false, 0, 0, Protocol::Tcp, 3}});
}

TEST(ImportIds, DuplicateSidsAcrossFilesKeepTheFirst) {
    std::string a = write_file("a.rules", "alert tcp any any -> any any (msg:\"a\"; content:\"first\"; sid:9;)\n");
    std::string b = write_file("b.rules", "alert tcp any any -> any any (msg:\"b\"; content:\"second\"; sid:9;)\n");
    ImportResult res = import_ids_rules({a, b});
    ASSERT_EQ(res.rules.rules.size(), 1u);
    EXPECT_EQ(res.rules.rules[0].pattern, "first");
    EXPECT_EQ(res.report.skipped_duplicate_sid, 1u);
    EXPECT_EQ(res.report.distinct_patterns, 1u);
}

TEST(ImportIds, DistinctPatternsCountBytesAndNocase) {
    std::string p = write_file("distinct.rules",
                               "alert tcp any any -> any any (msg:\"1\"; content:\"same\"; sid:1;)\n"
                               "alert tcp any any -> any any (msg:\"2\"; content:\"same\"; sid:2;)\n"
                               "alert tcp any any -> any any (msg:\"3\"; content:\"same\"; nocase; sid:3;)\n"
                               "alert tcp any any -> any any (msg:\"4\"; content:\"|73|ame\"; sid:4;)\n");
    ImportResult res = import_ids_rules({p});
    EXPECT_EQ(res.report.rules_imported, 4u);
    EXPECT_EQ(res.report.distinct_patterns, 2u);
}

// Damaged rule files: every enabled rule is still accounted for once, each
// parse error names its file and a line of it, and what is imported passes
// the YAML validator unchanged.
TEST(ImportIds, RandomlyDamagedFilesAreAccountedForAndImportCleanly) {
    const uint32_t kSeeds = 400;
    const std::string clean = std::string(kSuricata) + kSnort3;
    const size_t lines = static_cast<size_t>(std::count(clean.begin(), clean.end(), '\n'));
    size_t errors = 0, imported = 0;
    for (uint32_t seed = 1; seed <= kSeeds; ++seed) {
        SCOPED_TRACE("damage seed " + std::to_string(seed));
        const std::string path =
            write_file("damaged.rules", wm::test::randomly_damaged(clean, seed, ";:\"|\\()!,->$ \n"));
        const ImportResult res = import_ids_rules({path});
        const ImportReport &rep = res.report;
        EXPECT_EQ(rep.rules_read - rep.rules_disabled, rep.rules_imported + rep.skipped_no_content +
                                                           rep.skipped_negated_only + rep.skipped_parse_error +
                                                           rep.skipped_duplicate_sid);
        EXPECT_EQ(rep.rules_imported, res.rules.rules.size());
        for (const std::string &d : rep.details) {
            ASSERT_EQ(d.rfind(path + ":", 0), 0u) << d;
            const unsigned long line = std::stoul(d.substr(path.size() + 1));
            EXPECT_GE(line, 1u) << d;
            EXPECT_LE(line, 2 * lines) << d; // a damaged file has at most twice the lines (one repeated or added)
        }
        const RuleSet back = load_rules_string(to_yaml(res.rules), "imported.yaml");
        EXPECT_EQ(content_hash(back), content_hash(res.rules));
        errors += rep.skipped_parse_error;
        imported += rep.rules_imported;
    }
    EXPECT_GT(errors, kSeeds * 3); // the crafted files' own errors, and more
    EXPECT_GT(imported, kSeeds * 15);
}

TEST(ImportIds, UnreadableFileThrowsNamingIt) {
    std::string path = wm::test::scratch_path("does-not-exist.rules");
    try {
        import_ids_rules({path});
        FAIL() << "expected an exception";
    } catch (const std::runtime_error &e) {
        EXPECT_EQ(std::string(e.what()),
                  "cannot open rules file " + path + ": No such file or directory");
    }
}

namespace {

std::vector<std::string> rules_files(const fs::path &dir) {
    std::vector<std::string> files;
    for (const auto &e : fs::directory_iterator(dir))
        if (e.path().extension() == ".rules") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

TEST(ImportIds, EtOpenSuricata5) {
    fs::path dir = fs::path(WM_TEST_DATA_DIR) / "rules/et-open-suricata5-2024-04-21";
    if (!fs::is_directory(dir)) GTEST_SKIP() << "ET Open rules not unpacked: " << dir;
    ImportResult res = import_ids_rules(rules_files(dir));
    const ImportReport &rep = res.report;
    const size_t enabled = rep.rules_read - rep.rules_disabled;
    // Every enabled rule is accounted for exactly once.
    EXPECT_EQ(enabled, rep.rules_imported + rep.skipped_no_content + rep.skipped_negated_only +
                           rep.skipped_parse_error + rep.skipped_duplicate_sid);
    EXPECT_EQ(enabled, 24827u);
    // 23,609 before the 109 whose only contents are ja3 / ja3s hashes, a
    // certificate serial or x509 fields stopped giving a literal.
    const double expect = 23500.0 - static_cast<double>(rep.skipped_duplicate_sid);
    EXPECT_NEAR(static_cast<double>(rep.rules_imported), expect, expect * 0.03);
    EXPECT_GE(rep.distinct_patterns, 15000u);
    EXPECT_LE(rep.distinct_patterns, 20000u);
    EXPECT_LE(rep.skipped_parse_error, 10u) << testing::PrintToString(rep.details);
    RuleSet back = load_rules_string(to_yaml(res.rules), "et-open.yaml");
    EXPECT_EQ(back.rules.size(), rep.rules_imported);
    EXPECT_EQ(content_hash(back), content_hash(res.rules));
    std::cout << "[ET Open] read " << rep.rules_read << ", disabled " << rep.rules_disabled
              << ", imported " << rep.rules_imported << ", distinct " << rep.distinct_patterns
              << ", no content " << rep.skipped_no_content << ", negated only "
              << rep.skipped_negated_only << ", parse errors " << rep.skipped_parse_error
              << ", duplicate sids " << rep.skipped_duplicate_sid << "\n";
}

TEST(ImportIds, Snort3Community) {
    fs::path file = fs::path(WM_TEST_DATA_DIR) /
                    "rules/snort3-community-2024-05-28/snort3-community-rules/snort3-community.rules";
    if (!fs::exists(file)) GTEST_SKIP() << "Snort 3 community rules not unpacked: " << file;
    ImportResult res = import_ids_rules({file.string()});
    const ImportReport &rep = res.report;
    EXPECT_EQ(rep.rules_read, 4022u);
    EXPECT_EQ(rep.skipped_parse_error, 0u) << testing::PrintToString(rep.details);
    EXPECT_GT(rep.rules_imported, 3800u);
    RuleSet back = load_rules_string(to_yaml(res.rules), "snort3.yaml");
    EXPECT_EQ(content_hash(back), content_hash(res.rules));
}
