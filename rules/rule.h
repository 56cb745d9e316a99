// rules/rule.h - the in-memory form of a warpmatch rule set.
//
// Lifecycle: load_rules_file()/load_rules_string() parse YAML, validate every
// rule (collecting all problems, not just the first) and return a RuleSet
// sorted by id, so the same rules always give the same database and hash.
// Pure host C++: no CUDA here.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wm::rules {

enum class Protocol { Any, Tcp, Udp };

struct SourceLocation {
    std::string file;
    unsigned line = 0;   // 1-based, 0 = unknown
    unsigned column = 0; // 1-based, 0 = unknown
};

struct PortRange {
    uint16_t lo = 0;
    uint16_t hi = 0;
};

// An alignment rule (`align:` instead of `pattern:`): the rule fires on a
// payload whose best Smith-Waterman local alignment against `reference`
// (affine gaps: a gap of length k costs gap_open + k * gap_extend) scores at
// least min_score. Score defaults and ranges are those of gpu/align's
// ScoreParams (restated here: rules/ includes nothing from gpu/; the engine
// tests check that the two agree).
constexpr size_t kMaxReferenceBytes = 1024; // the GPU alignment kernel's query limit

struct AlignSpec {
    std::string reference;      // decoded bytes, 1..kMaxReferenceBytes
    std::string reference_text; // inline text as written ("" when read from a file)
    std::string reference_file; // path as written ("" when inline); relative to the YAML's dir
    int32_t min_score = 1;      // >= 1
    int match = 5;              // 1..127
    int mismatch = -3;          // -127..0
    int gap_open = 8;           // 0..4095, gap_open + gap_extend <= 4096
    int gap_extend = 1;         // 1..4096
};

struct Rule {
    uint32_t id = 0;
    std::string msg;
    int severity = 3;          // 1 (highest) .. 4, Suricata convention
    std::string pattern;       // decoded bytes
    std::string pattern_text;  // as written in the YAML
    bool nocase = false;
    uint32_t offset = 0;       // match must start at or after this byte
    uint32_t depth = 0;        // 0 = unlimited; else match must end <= offset + depth
    Protocol protocol = Protocol::Any;
    std::vector<PortRange> ports; // empty = any; matches src or dst port
    std::optional<uint32_t> max_edits;      // approximate rules (later issue)
    std::optional<uint32_t> max_mismatches; // approximate rules (later issue)
    std::optional<AlignSpec> align;         // alignment rule: pattern is empty
    std::string source;        // original IDS rule text (import), kept for later use
    SourceLocation where;      // location of the rule's mapping in the YAML
};

struct RuleSet {
    int version = 1;
    std::string name;          // file name or caller-given name
    std::vector<Rule> rules;   // sorted by id, ids unique
};

struct Diagnostic {
    SourceLocation where;
    int64_t rule_id = -1;      // -1 when no single rule is at fault
    std::string message;
    // "file:line:col: rule N: message" (parts omitted when unknown)
    std::string to_string() const;
};

// Thrown by the loaders; carries every problem found.
class RuleError : public std::runtime_error {
  public:
    explicit RuleError(std::vector<Diagnostic> diags);
    const std::vector<Diagnostic> &diagnostics() const { return diags_; }

  private:
    std::vector<Diagnostic> diags_;
};

constexpr int kSchemaVersion = 1;
// The CPU engine hands Hyperscan each byte as a 4-character \xHH escape,
// and Hyperscan refuses an expression past 16,000 characters; a longer
// pattern that loaded would fail every later compile (replay, import check).
constexpr size_t kMaxPatternBytes = 4000;
// A rule file longer than this is refused before it is parsed (ET Open's
// 23,609 rules are about 10 MB of YAML): a wrong path such as /dev/zero or a
// capture fails with the limit instead of exhausting memory.
constexpr size_t kMaxRuleFileBytes = size_t{256} << 20;

// An align rule's reference_file is read relative to the directory of `path`
// (load_rules_file) or of `name` (load_rules_string; the current directory
// when name has no directory part); absolute paths are used as they are.
RuleSet load_rules_file(const std::string &path);
RuleSet load_rules_string(const std::string &yaml, const std::string &name);

// Decode a pattern: literal bytes, Snort-style |41 42| hex runs, and
// backslash escapes (\\ \| \" \n \r \t \xHH). On error returns nullopt and
// sets *error and *column (0-based offset into text).
std::optional<std::string> decode_pattern(const std::string &text, std::string *error,
                                          size_t *column);

// Offset of the first byte of `text` that does not begin a well-formed UTF-8
// sequence (RFC 3629: no overlong forms, surrogates or code points above
// U+10FFFF), or std::string::npos when all of it is UTF-8. Text that reaches
// JSON output (msg) must pass; patterns are bytes and need not.
size_t invalid_utf8_offset(const std::string &text);

// Canonical text form of a byte string (printable ASCII kept, others |HH|),
// such that decode_pattern(encode_pattern(b)) == b.
std::string encode_pattern(const std::string &bytes);

// 64-bit content hash over the canonical serialization of the rule set
// (independent of file name, rule order in the file and formatting).
uint64_t content_hash(const RuleSet &rs);

// Emit a rule set as YAML in the documented schema (round-trips).
std::string to_yaml(const RuleSet &rs);

} // namespace wm::rules
