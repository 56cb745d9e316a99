// tests/rules/test_sliced_load.cpp - a large rule file parsed in slices on
// several threads gives the rule set one whole-document parse gives, and
// anything the slices cannot vouch for falls back to the whole parse.
#include "rules/ids_import.h"
#include "rules/loader_internal.h"
#include "rules/rule.h"
#include "tests/text_damage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <random>
#include <sstream>

using namespace wm::rules;
namespace fs = std::filesystem;

namespace {

// Forces the sliced path for any size (min bytes 1) or the whole parse.
struct MinBytes {
    explicit MinBytes(size_t b) { detail::set_parallel_rules_min_bytes(b); }
    ~MinBytes() { detail::set_parallel_rules_min_bytes(0); }
};

RuleSet load_whole(const std::string &yaml, const std::string &name) {
    MinBytes whole(SIZE_MAX);
    return load_rules_string(yaml, name);
}

// Every field, the rule's place in the file included.
void expect_identical(const RuleSet &a, const RuleSet &b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.version, b.version);
    EXPECT_EQ(content_hash(a), content_hash(b));
    ASSERT_EQ(a.rules.size(), b.rules.size());
    for (size_t i = 0; i < a.rules.size(); ++i) {
        const Rule &x = a.rules[i], &y = b.rules[i];
        ASSERT_EQ(x.id, y.id);
        EXPECT_EQ(x.pattern_text, y.pattern_text) << x.id;
        EXPECT_EQ(x.source, y.source) << x.id;
        EXPECT_EQ(x.where.file, y.where.file) << x.id;
        EXPECT_EQ(x.where.line, y.where.line) << x.id;
        EXPECT_EQ(x.where.column, y.where.column) << x.id;
    }
}

// n rules in the block form warpmatch writes, with the features a slice
// boundary could cut: comments and blank lines between items, escapes in
// quoted scalars, ports and offsets, a multi-line block scalar.
std::string rules_yaml(uint32_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::ostringstream o;
    o << "# generated\nversion: 1\nrules:\n";
    for (uint32_t i = 0; i < n; ++i) {
        if (rng() % 7 == 0) o << "  # group " << i << "\n\n";
        o << "  - id: " << (i * 3 + 1) << "\n";
        o << "    msg: \"rule \\\"" << i << "\\\" with escapes \\t\"\n";
        o << "    pattern: \"ab|0" << (rng() % 10) << "|" << i << (rng() % 2 ? "\\\\\\\\" : "") << "\"\n"; // a backslash, escaped for the pattern and for YAML
        if (rng() % 3 == 0) o << "    nocase: true\n";
        if (rng() % 4 == 0) o << "    protocol: tcp\n    ports: [80, 8000-8080]\n";
        if (rng() % 5 == 0) o << "    offset: 2\n    depth: 40\n";
        if (rng() % 6 == 0) o << "    source: |\n      alert tcp any any -> any any (\n      - sid:" << i << ";)\n";
    }
    return o.str();
}

} // namespace

TEST(SlicedLoad, EqualsTheWholeParse) {
    for (uint32_t seed : {1u, 2u, 3u}) {
        const std::string yaml = rules_yaml(2000 + 500 * seed, seed);
        MinBytes sliced(1);
        const auto fast = detail::load_sliced(yaml, "dir/gen.yaml");
        ASSERT_TRUE(fast.has_value()) << "seed " << seed << ": the generated layout should slice";
        expect_identical(*fast, load_whole(yaml, "dir/gen.yaml"));
        expect_identical(load_rules_string(yaml, "dir/gen.yaml"), *fast);
    }
}

// What a slice cannot vouch for goes to the whole parse: the result, or the
// diagnostics, are the whole parse's.
TEST(SlicedLoad, FallsBackWhereSlicesCannotVouch) {
    const std::string base = rules_yaml(1500, 9);
    struct Variant {
        const char *name;
        std::string yaml;
    };
    std::vector<Variant> variants;
    // An alias to an anchor in another slice.
    std::string alias = base;
    alias.replace(alias.find("    msg: "), 9, "    msg: &first ");
    alias += "  - id: 999999\n    msg: *first\n    pattern: \"zz\"\n";
    variants.push_back({"alias across slices", alias});
    // A duplicate id far from its first definition.
    variants.push_back({"duplicate id", base + "  - id: 1\n    pattern: \"dup\"\n"});
    // An invalid pattern in the last rule.
    variants.push_back({"invalid pattern", base + "  - id: 999998\n    pattern: \"|4\"\n"});
    // A top-level key after the rules.
    variants.push_back({"key after the rules", base + "extra: 1\n"});
    // Rules given as a flow sequence on the key's line.
    variants.push_back({"flow sequence", "version: 1\nrules: [{id: 1, pattern: \"a\"}, {id: 2, pattern: \"b\"}]\n"});
    MinBytes sliced(1);
    for (const auto &v : variants) {
        SCOPED_TRACE(v.name);
        EXPECT_FALSE(detail::load_sliced(v.yaml, "f.yaml").has_value());
        std::string got, want;
        try {
            got = to_yaml(load_rules_string(v.yaml, "f.yaml"));
        } catch (const RuleError &e) {
            got = std::string("error: ") + e.what();
        }
        try {
            want = to_yaml(load_whole(v.yaml, "f.yaml"));
        } catch (const RuleError &e) {
            want = std::string("error: ") + e.what();
        }
        EXPECT_EQ(got, want);
    }
}

// A quote opened in one item and closed in the next (found by the damage
// test below): yaml-cpp takes a quote still open at the end of a slice as
// closed there, so each item parsed alone, while the whole parse rejects the
// file. Small items: each is a slice of its own.
TEST(SlicedLoad, AQuoteLeftOpenAcrossItemsIsTheWholeParsesError) {
    const std::string yaml = "version: 1\nrules:\n  - id: 1\n    msg: \"w\"\n    pattern: \"a: 2\n"
                             "  - id: 2\n    msg: \"x\"\n    pattern: \"b\"\n  - id: 3\n    msg: \"y\"\n    pattern: \"c\"\n";
    MinBytes sliced(1);
    EXPECT_FALSE(detail::load_sliced(yaml, "q.yaml").has_value());
    try {
        load_rules_string(yaml, "q.yaml");
        FAIL() << "loaded";
    } catch (const RuleError &e) {
        EXPECT_NE(std::string(e.what()).find("q.yaml:7:"), std::string::npos) << e.what();
    }
}

constexpr const char *kYamlPunctuation = ":-#\"'|>[]{},&*!%@` \t\n\\";

// Damaged files: the sliced path (or its fallback) gives exactly what the
// whole parse gives, the rules with their places or the same diagnostics.
TEST(SlicedLoad, RandomlyDamagedFilesGiveTheWholeParsesResult) {
    size_t loaded = 0, rejected = 0;
    for (uint32_t seed = 1; seed <= 400; ++seed) {
        SCOPED_TRACE("damage seed " + std::to_string(seed));
        const std::string yaml = wm::test::randomly_damaged(rules_yaml(120, seed), seed, kYamlPunctuation);
        std::optional<RuleSet> want;
        std::string want_error;
        try {
            want = load_whole(yaml, "d.yaml");
        } catch (const RuleError &e) {
            want_error = e.what();
        }
        MinBytes sliced(1);
        try {
            const RuleSet got = load_rules_string(yaml, "d.yaml");
            ASSERT_TRUE(want.has_value()) << "loaded what the whole parse rejects: " << want_error;
            expect_identical(got, *want);
            ++loaded;
        } catch (const RuleError &e) {
            EXPECT_EQ(e.what(), want_error);
            ++rejected;
        }
    }
    EXPECT_GT(loaded, 40u); // the damage leaves both outcomes common
    EXPECT_GT(rejected, 40u);
}

// ET Open as `warpmatch rules import` writes it (../shared data; skipped
// without it): the sliced load equals the whole parse.
TEST(SlicedLoad, EtOpenEqualsTheWholeParse) {
    const fs::path dir = fs::path(WM_TEST_DATA_DIR) / "rules/et-open-suricata5-2024-04-21";
    if (!fs::is_directory(dir)) GTEST_SKIP() << "ET Open rules not unpacked: " << dir;
    std::vector<std::string> files;
    for (const auto &e : fs::directory_iterator(dir))
        if (e.path().extension() == ".rules") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    const std::string yaml = to_yaml(import_ids_rules(files).rules);
    MinBytes sliced(1);
    const auto fast = detail::load_sliced(yaml, "et.yaml");
    ASSERT_TRUE(fast.has_value());
    EXPECT_GT(fast->rules.size(), 20000u);
    expect_identical(*fast, load_whole(yaml, "et.yaml"));
}
