// rules/loader.cpp - YAML document -> RuleSet: top-level keys, the rules
// sequence and cross-rule checks (duplicate ids). Per-rule fields live in
// rule_fields.cpp. All problems are collected and thrown together, with
// line:column from yaml-cpp marks, in the style of hyperscan's
// util/expressions.cpp.
#include "rules/file_read.h"
#include "rules/loader_internal.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <tuple>

namespace wm::rules {
namespace detail {

LoadContext::LoadContext(const std::string &name, const std::string &yaml) : file(name), text(&yaml) {
    if (auto slash = name.rfind('/'); slash != std::string::npos)
        base_dir = name.substr(0, slash + 1); // "/x.yaml" -> "/"
}

SourceLocation LoadContext::at(const YAML::Mark &m, size_t extra_columns) const {
    SourceLocation loc;
    loc.file = file;
    if (m.line >= 0 && m.column >= 0) {
        loc.line = static_cast<unsigned>(m.line + line_offset) + 1;
        loc.column = static_cast<unsigned>(m.column) + 1 + static_cast<unsigned>(extra_columns);
    }
    return loc;
}

void LoadContext::error(const YAML::Mark &m, int64_t rule_id, std::string message,
                        size_t extra_columns) {
    diags.push_back(Diagnostic{at(m, extra_columns), rule_id, std::move(message)});
}

static size_t edit_distance(const std::string &a, const std::string &b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1,
                               prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string closest_key(const std::string &key, const std::vector<std::string> &candidates) {
    std::string best;
    size_t best_d = 3; // suggest only within distance 2
    for (const auto &c : candidates) {
        size_t d = edit_distance(key, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

std::optional<size_t> value_start(const YAML::Node &n, const LoadContext &ctx) {
    const YAML::Mark m = n.Mark();
    if (!ctx.text || m.pos < 0) return std::nullopt;
    const std::string &t = *ctx.text;
    const std::string &v = n.Scalar();
    auto pos = static_cast<size_t>(m.pos + ctx.pos_offset) + ctx.bom;
    if (t.compare(pos, v.size(), v) == 0) return 0;
    if (pos < t.size() && (t[pos] == '"' || t[pos] == '\'') && t.compare(pos + 1, v.size(), v) == 0)
        return 1;
    return std::nullopt;
}

YAML::Mark item_mark(const YAML::Node &n, const LoadContext &ctx) {
    const YAML::Mark m = n.Mark();
    if (!n.IsNull() || !ctx.text || m.pos < 0 || ctx.pos_offset != 0) return m;
    const std::string &t = *ctx.text;
    size_t j = std::min(t.size(), static_cast<size_t>(m.pos) + ctx.bom);
    for (;;) { // back over blanks and comments (`- # empty`, comment lines)
        while (j > ctx.bom && std::strchr(" \t\r\n", t[j - 1])) --j;
        if (j == ctx.bom) return m;
        const size_t line = std::max(ctx.bom, t.rfind('\n', j - 1) + 1); // npos + 1 == 0
        size_t hash = j;
        for (size_t x = line; x < j && hash == j; ++x)
            if (t[x] == '#' && (x == line || t[x - 1] == ' ' || t[x - 1] == '\t')) hash = x;
        if (hash == j) break;
        j = hash;
    }
    if (t[j - 1] != '-') return m;
    return mark_of_byte(t, j - 1, ctx.bom);
}

YAML::Mark mark_of_byte(const std::string &t, size_t byte, size_t bom) {
    const size_t line_start = std::max(bom, t.rfind('\n', byte) + 1); // npos + 1 == 0
    YAML::Mark at;
    at.pos = static_cast<int>(byte - bom);
    at.line = static_cast<int>(std::count(t.begin() + static_cast<std::ptrdiff_t>(bom),
                                          t.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
    at.column = static_cast<int>(byte - line_start);
    return at;
}

const char *kind_name(const YAML::Node &n) {
    switch (n.Type()) {
    case YAML::NodeType::Sequence: return "a sequence";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Null: return "an empty value";
    default: return "a scalar";
    }
}

std::string quote(const std::string &s) {
    constexpr size_t kMax = 60;
    std::string out = "\"";
    for (size_t i = 0; i < s.size() && i < kMax; ++i) {
        auto u = static_cast<unsigned char>(s[i]);
        out += (u >= 0x20 && u != 0x7f) ? std::string(1, s[i]) : fmt::format("\\x{:02X}", u);
    }
    if (s.size() > kMax) out += "...";
    return out + "\"";
}

FieldMap collect_fields(const LoadContext &ctx, const YAML::Node &mapping, const std::vector<std::string> &allowed,
                        const char *what,
                        const std::function<void(const YAML::Node &, std::string)> &problem) {
    FieldMap fields;
    for (const auto &kv : mapping) {
        const YAML::Node &k = kv.first;
        if (!k.IsScalar()) {
            problem(k, fmt::format("{}s must be plain names", what));
            continue;
        }
        const std::string &name = k.Scalar();
        if (name == "<<") {
            problem(k, "YAML merge keys (<<) are not supported in a rules file: write the keys out");
        } else if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
            std::string hint = closest_key(name, allowed);
            problem(k, fmt::format("unknown {} {}{}", what, quote(name),
                                   hint.empty() ? std::string()
                                                : fmt::format(" (did you mean \"{}\"?)", hint)));
        } else if (auto it = fields.find(name); it != fields.end()) {
            problem(k, fmt::format("duplicate {} {} (first at line {})", what, quote(name),
                                   ctx.at(it->second.first.Mark()).line));
        } else {
            fields.emplace(name, std::make_pair(k, kv.second));
        }
    }
    return fields;
}

} // namespace detail

namespace {

using detail::LoadContext;
using detail::quote;

const std::vector<std::string> kTopKeys = {"version", "rules"};

void check_version(const YAML::Node &n, const YAML::Node &key, LoadContext &ctx) {
    if (n.IsScalar()) {
        const std::string &s = n.Scalar();
        bool digits = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
            return c >= '0' && c <= '9';
        });
        if (digits && s == std::to_string(kSchemaVersion)) return;
        if (digits)
            ctx.error(n.Mark(), -1,
                      fmt::format("unsupported version {} (this build reads version {})", s,
                                  kSchemaVersion));
        else
            ctx.error(n.Mark(), -1, fmt::format("version must be an integer, got {}", quote(s)));
    } else {
        ctx.error(n.IsNull() ? key.Mark() : n.Mark(), -1, "version must be an integer");
    }
}

std::vector<Rule> parse_rules(const YAML::Node &seq, const YAML::Node &key, LoadContext &ctx) {
    std::vector<Rule> rules;
    if (!seq.IsSequence()) {
        ctx.error(seq.IsNull() ? key.Mark() : seq.Mark(), -1,
                  seq.IsNull() ? "rules must be a sequence of rules, got an empty value"
                               : "rules must be a sequence of rules, got a " +
                                     std::string(seq.IsMap() ? "mapping" : "scalar"));
        return rules;
    }
    std::map<uint32_t, unsigned> first_line; // id -> line of its first rule
    for (const auto &item : seq) {
        std::optional<uint32_t> id;
        YAML::Mark id_mark;
        auto rule = detail::parse_rule(item, ctx, &id, &id_mark);
        if (id) {
            auto [it, fresh] = first_line.emplace(*id, ctx.at(item.Mark()).line);
            if (!fresh) {
                ctx.error(id_mark, *id,
                          fmt::format("duplicate id {} (first defined at line {})", *id,
                                      it->second));
                continue;
            }
        }
        if (rule) rules.push_back(std::move(*rule));
    }
    return rules;
}

// The starts of a stream's first two documents, from yaml-cpp's document
// events (loaded nodes do not carry them: an empty document's mark is past
// its `---`), and where the parser stopped making progress, if it did.
// yaml-cpp 0.7's LoadAll never returns on some malformed streams, a lone
// `,` for one (jbeder/yaml-cpp#1040, fixed upstream by #1319 after 0.8.0):
// a token no rule of the document parser takes is left unconsumed, so each
// turn yields one more empty document at the same place until memory runs
// out. Two documents starting at one place are that loop.
struct DocumentScan {
    std::vector<YAML::Mark> starts; // at most two
    std::optional<YAML::Mark> stuck;
    std::optional<YAML::ParserException> syntax; // in the first two documents
    std::optional<YAML::Mark> last_quoted;       // the last quoted scalar's opening quote
    size_t last_quoted_at = 0;                   // its byte in the text
    // Aliases and tags, which the loader does not support: a node's marks
    // are its anchor's, so errors under an alias would name the wrong line,
    // and a tag (!!binary) would be ignored while the text is read as written.
    std::vector<std::pair<YAML::Mark, std::string>> unsupported;
};

// A node's properties (`&anchor`, `!tag`) written before its value at `at`:
// where the value itself starts.
size_t skip_node_properties(const std::string &t, size_t at) {
    while (at < t.size() && (t[at] == '&' || t[at] == '!')) {
        while (at < t.size() && t[at] != ' ' && t[at] != '\t' && t[at] != '\n' && t[at] != '\r') ++at;
        for (;;) { // blanks, and a comment to its line's end
            while (at < t.size() && (t[at] == ' ' || t[at] == '\t' || t[at] == '\n' || t[at] == '\r')) ++at;
            if (at >= t.size() || t[at] != '#') break;
            while (at < t.size() && t[at] != '\n') ++at;
        }
    }
    return at;
}

// An explicit tag other than !!str, as the file wrote it ("" for none).
std::string unsupported_tag(const std::string &tag, bool scalar) {
    constexpr const char *kCore = "tag:yaml.org,2002:";
    if (tag.empty() || tag == "?" || tag == "!") return {};
    const bool core = tag.rfind(kCore, 0) == 0;
    if (scalar && core && tag == std::string(kCore) + "str") return {};
    return core ? "!!" + tag.substr(std::strlen(kCore)) : tag;
}

// Whether the quoted scalar opening at `at` (a ' or ") is closed before the
// end of the text. yaml-cpp 0.7 ends a quoted scalar left open at the end of
// its input without an error, so an unclosed quote would swallow every rule
// after it into one string; only the last quoted scalar can run to the end.
bool quote_closes(const std::string &t, size_t at) {
    const char q = t[at];
    for (size_t i = at + 1; i < t.size(); ++i) {
        if (q == '"' && t[i] == '\\') ++i; // an escape: the next byte is not the end
        else if (t[i] == q) {
            if (q == '\'' && i + 1 < t.size() && t[i + 1] == '\'') ++i; // '' is a quote inside
            else return true;
        }
    }
    return false;
}

DocumentScan scan_documents(const std::string &yaml) {
    struct DocumentStarts : YAML::EventHandler {
        std::vector<YAML::Mark> marks;
        void OnDocumentStart(const YAML::Mark &m) override { marks.push_back(m); }
        void OnDocumentEnd() override {}
        void OnNull(const YAML::Mark &, YAML::anchor_t) override {}
        void OnAlias(const YAML::Mark &m, YAML::anchor_t) override {
            unsupported.emplace_back(m, "YAML aliases (*name) are not supported in a rules file: write the value out");
        }
        std::optional<YAML::Mark> quoted;
        size_t quoted_at = 0;
        const std::string *text = nullptr;
        size_t bom = 0; // yaml-cpp's positions leave out a byte order mark
        std::vector<std::pair<YAML::Mark, std::string>> unsupported;
        void check_tag(const YAML::Mark &m, const std::string &tag, bool scalar) {
            const std::string t = unsupported_tag(tag, scalar);
            if (t.empty()) return;
            unsupported.emplace_back(m, fmt::format("YAML tag {} is not supported in a rules file{}", quote(t),
                                                    t == "!!binary" ? " (write bytes as a pattern: |41 42|)" : ""));
        }
        void OnScalar(const YAML::Mark &m, const std::string &tag, YAML::anchor_t, const std::string &) override {
            check_tag(m, tag, true);
            const size_t at = skip_node_properties(*text, static_cast<size_t>(m.pos) + bom);
            if (at < text->size() && ((*text)[at] == '"' || (*text)[at] == '\'')) quoted = m, quoted_at = at;
        }
        void OnSequenceStart(const YAML::Mark &m, const std::string &tag, YAML::anchor_t,
                             YAML::EmitterStyle::value) override {
            check_tag(m, tag, false);
        }
        void OnSequenceEnd() override {}
        void OnMapStart(const YAML::Mark &m, const std::string &tag, YAML::anchor_t,
                        YAML::EmitterStyle::value) override {
            check_tag(m, tag, false);
        }
        void OnMapEnd() override {}
    } h;
    h.text = &yaml;
    h.bom = yaml.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    DocumentScan scan;
    std::istringstream in(yaml);
    YAML::Parser parser(in);
    try {
        while (h.marks.size() < 2 && parser.HandleNextDocument(h)) {
        }
    } catch (const YAML::DeepRecursion &e) { // its own message is "bad file"
        scan.syntax = YAML::ParserException(
            e.mark, fmt::format("nesting too deep: the parser stops at depth {}", e.depth()));
    } catch (const YAML::ParserException &e) {
        scan.syntax = e; // the documents started before it still count
    } catch (const YAML::Exception &) {
        // Not a syntax error: Load() meets it again and reports it.
    }
    if (h.marks.size() == 2 && h.marks[1].pos == h.marks[0].pos) scan.stuck = h.marks[1];
    else scan.starts = h.marks;
    if (h.quoted) {
        scan.last_quoted = detail::mark_of_byte(yaml, h.quoted_at, h.bom); // the quote, not an anchor or tag before it
        scan.last_quoted_at = h.quoted_at;
    }
    scan.unsupported = std::move(h.unsupported);
    return scan;
}

void report_second_document(const DocumentScan &scan, LoadContext &ctx) {
    if (scan.starts.size() >= 2)
        ctx.error(scan.starts[1], -1, "only one YAML document is allowed in a rules file; a second one starts here");
}

// Document order, whatever order the checks ran in.
[[noreturn]] void throw_sorted(LoadContext &ctx) {
    std::stable_sort(ctx.diags.begin(), ctx.diags.end(), [](const Diagnostic &a, const Diagnostic &b) {
        return std::tie(a.where.line, a.where.column) < std::tie(b.where.line, b.where.column);
    });
    throw RuleError(std::move(ctx.diags));
}

} // namespace

// The whole document parsed at once (not in slices), every problem reported.
static RuleSet load_whole(const std::string &yaml, const std::string &name) {
    LoadContext ctx(name, yaml);
    ctx.bom = yaml.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    // Documents are counted first, by events, and only the first is loaded:
    // LoadAll could loop (scan_documents).
    const DocumentScan scan = scan_documents(yaml);
    if (scan.stuck) {
        const size_t at = static_cast<size_t>(scan.stuck->pos);
        const unsigned char c = at < yaml.size() ? static_cast<unsigned char>(yaml[at]) : 0;
        const std::string what = at >= yaml.size() ? std::string("end of input")
                                 : std::isprint(c)  ? fmt::format("'{}'", static_cast<char>(c))
                                                    : fmt::format("byte 0x{:02X}", c);
        ctx.error(*scan.stuck, -1, "YAML syntax error: unexpected " + what);
        throw_sorted(ctx);
    }
    YAML::Node root;
    try {
        if (scan.syntax) throw *scan.syntax; // perhaps in the second document, which Load() would not read
        root = YAML::Load(yaml);
    } catch (const YAML::ParserException &e) {
        ctx.error(e.mark, -1, "YAML syntax error: " + e.msg);
        report_second_document(scan, ctx); // the syntax error may be in it
        throw_sorted(ctx);
    }
    // Load() would drop later documents unread: refuse them, but still check the first.
    report_second_document(scan, ctx);
    if (scan.last_quoted && !quote_closes(yaml, scan.last_quoted_at)) {
        ctx.error(*scan.last_quoted, -1,
                  fmt::format("YAML syntax error: the quoted string opened here ({}) is never closed",
                              yaml[scan.last_quoted_at]));
        throw_sorted(ctx);
    }
    if (!scan.unsupported.empty()) {
        for (const auto &[mark, message] : scan.unsupported) ctx.error(mark, -1, message);
        throw_sorted(ctx);
    }

    RuleSet rs;
    rs.name = name;
    if (root.IsNull() || !root.IsDefined()) {
        ctx.diags.push_back({{name, 0, 0}, -1, "rules file is empty (expected \"version\" and \"rules\")"});
        throw_sorted(ctx);
    }
    if (!root.IsMap()) {
        ctx.error(root.Mark(), -1, "top level must be a mapping with \"version\" and \"rules\"");
        throw_sorted(ctx);
    }

    std::map<std::string, YAML::Node> top, top_keys;
    for (const auto &kv : root) {
        const YAML::Node &k = kv.first;
        std::string key = k.IsScalar() ? k.Scalar() : std::string();
        if (key == "<<") {
            ctx.error(k.Mark(), -1, "YAML merge keys (<<) are not supported in a rules file: write the keys out");
        } else if (key == "align") {
            ctx.error(k.Mark(), -1, "unknown top-level key \"align\" (align is a rule key: put it "
                                    "inside a rule, in place of pattern)");
        } else if (std::find(kTopKeys.begin(), kTopKeys.end(), key) == kTopKeys.end()) {
            std::string hint = detail::closest_key(key, kTopKeys);
            ctx.error(k.Mark(), -1,
                      fmt::format("unknown top-level key {}{}", quote(key),
                                  hint.empty() ? std::string()
                                               : fmt::format(" (did you mean \"{}\"?)", hint)));
        } else if (top.count(key)) {
            ctx.error(k.Mark(), -1, fmt::format("duplicate key {} (first at line {})", quote(key),
                                                ctx.at(top_keys[key].Mark()).line));
        } else {
            top.emplace(key, kv.second);
            top_keys.emplace(key, k);
        }
    }
    if (top.count("version")) check_version(top["version"], top_keys["version"], ctx);
    else ctx.error(root.Mark(), -1, "missing required key \"version\"");
    if (top.count("rules")) rs.rules = parse_rules(top["rules"], top_keys["rules"], ctx);
    else ctx.error(root.Mark(), -1, "missing required key \"rules\"");

    if (!ctx.diags.empty()) throw_sorted(ctx);
    rs.version = kSchemaVersion;
    std::sort(rs.rules.begin(), rs.rules.end(),
              [](const Rule &a, const Rule &b) { return a.id < b.id; });
    return rs;
}

RuleSet load_rules_string(const std::string &yaml, const std::string &name) {
    if (auto rs = detail::load_sliced(yaml, name)) return std::move(*rs);
    return load_whole(yaml, name);
}

RuleSet load_rules_file(const std::string &path) {
    auto cannot_open = [&](int err) {
        return RuleError({Diagnostic{{path, 0, 0}, -1,
                                     std::string("cannot open rules file: ") + std::strerror(err)}});
    };
    CappedRead file = read_file_capped(path, kMaxRuleFileBytes);
    if (file.error) throw cannot_open(file.error); // e.g. EISDIR: fopen succeeds on a directory
    if (file.over)
        throw RuleError({Diagnostic{{path, 0, 0}, -1,
                                    fmt::format("rules file is longer than the maximum of {} MiB",
                                                kMaxRuleFileBytes >> 20)}});
    return load_rules_string(file.bytes, path);
}

} // namespace wm::rules
