// rules/sliced_load.cpp - a large rule file parsed in slices on several
// threads. yaml-cpp parses about 5 MB/s (ET Open's 23,609 rules, 18 MB with
// their `source:` lines, took ~3 s on one core), so a file in the block form
// warpmatch writes is cut at its rule items and each slice parsed alone. Any
// surprise (another layout, an alias or tag, a slice that does not parse
// alone, any diagnostic at all) hands the file back to the whole-
// document parse, which reports every problem exactly as before.
#include "rules/loader_internal.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

namespace wm::rules::detail {
namespace {

std::atomic<size_t> g_min_bytes{0};
constexpr size_t kDefaultMinBytes = size_t{1} << 20;

struct Line {
    size_t begin, end; // [begin, end) without the newline
};

// Indentation of a line, or npos for a blank or comment-only line; tabs in
// the indentation make the layout unusual (nullopt from the caller).
size_t indent_of(const std::string &t, const Line &l, bool *tab) {
    size_t i = l.begin;
    while (i < l.end && t[i] == ' ') ++i;
    if (i < l.end && t[i] == '\t') *tab = true;
    if (i == l.end || t[i] == '#' || t[i] == '\r') return std::string::npos;
    return i - l.begin;
}

bool starts_with(const std::string &t, size_t at, size_t end, const char *s) {
    for (; *s; ++s, ++at)
        if (at >= end || t[at] != *s) return false;
    return true;
}

// "- " or a lone "-" at `at`: a sequence item.
bool item_start(const std::string &t, size_t at, size_t end) {
    return at < end && t[at] == '-' && (at + 1 == end || t[at + 1] == ' ' || t[at + 1] == '\r');
}

// Whether a line may hold a node property or alias (`&a`, `!tag`, `*a`)
// outside quotes: a value starting with one of them. Slices parse aliases
// and tags silently, so such a file takes the whole parse, which refuses them
// (and whose marks of an alias's node are not its anchor's). A quoted value
// never counts; block scalars' lines may (a needless whole parse, no harm).
bool line_has_node_property(const std::string &t, const Line &l) {
    char quote = 0;
    size_t gap = 0; // spaces before this byte
    char before = '\n';
    for (size_t i = l.begin; i < l.end; ++i) {
        const char c = t[i];
        if (quote) {
            if (quote == '"' && c == '\\') ++i;
            else if (c == quote) quote = 0;
            continue;
        }
        if (c == ' ' || c == '\t') {
            ++gap;
            continue;
        }
        if (c == '#' && (gap || before == '\n')) return false; // a comment
        const bool value_start = before == '\n' || before == '[' || before == '{' || before == ',' ||
                                 ((before == ':' || before == '-' || before == '?') && gap);
        if (value_start && (c == '&' || c == '*' || c == '!')) return true;
        if (value_start && (c == '"' || c == '\'')) quote = c;
        before = c, gap = 0;
    }
    return false;
}

// Whether a text may hold a block scalar, whose last line keeps a newline
// added after it: any `|` or `>` outside quotes after a blank or at a line's
// start (the indicator may be followed by chomping, indentation or a
// comment). Plain text with such a character only costs the whole parse.
bool has_block_scalar(const std::string &t) {
    char quote = 0;
    for (size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (c == '\n') {
            quote = 0; // the emitter writes quoted values on one line; a longer one's later lines read as plain
            continue;
        }
        if (quote) {
            if (quote == '"' && c == '\\') ++i;
            else if (c == quote) quote = 0;
            continue;
        }
        const bool after_blank = i == 0 || t[i - 1] == ' ' || t[i - 1] == '\t' || t[i - 1] == '\n';
        if ((c == '"' || c == '\'') && after_blank) quote = c;
        else if ((c == '|' || c == '>') && after_blank) return true;
    }
    return false;
}

struct Slice {
    size_t begin, end;   // bytes of the text
    int first_line;      // 0-based line of `begin`
    size_t items;        // item lines in it
    size_t indent;       // of its items
};

// Closes every slice: yaml-cpp ends a quoted scalar left open at the end of
// its input without an error, so a quote opened in one slice and closed in
// the next (which the whole parse rejects) would parse in both. A slice is
// only taken when this item after it is still an item of its own.
constexpr const char *kSliceEnd = "wm-slice-end-3c9e1f";

struct ItemResult {
    std::optional<Rule> rule;
    std::optional<uint32_t> id;
    unsigned line = 0;
};

// Parses one slice: every item must parse, as a sequence of exactly the
// items counted, with no diagnostic.
bool parse_slice(const std::string &yaml, const Slice &sl, const std::string &name, std::vector<ItemResult> &out) {
    LoadContext ctx(name, yaml);
    ctx.line_offset = sl.first_line;
    ctx.pos_offset = static_cast<int>(sl.begin);
    try {
        std::string text = yaml.substr(sl.begin, sl.end - sl.begin);
        if (!text.empty() && text.back() != '\n') {
            if (has_block_scalar(text)) return false; // the newline added would join it: `|` keeps it
            text += '\n';
        }
        text += std::string(sl.indent, ' ') + "- " + kSliceEnd + "\n";
        const YAML::Node seq = YAML::Load(text);
        if (!seq.IsSequence() || seq.size() != sl.items + 1) return false;
        const YAML::Node end = seq[sl.items];
        if (!end.IsScalar() || end.Scalar() != kSliceEnd) return false;
        out.reserve(sl.items);
        for (size_t i = 0; i < sl.items; ++i) {
            const YAML::Node item = seq[i];
            ItemResult r;
            YAML::Mark id_mark;
            r.rule = parse_rule(item, ctx, &r.id, &id_mark);
            r.line = ctx.at(item.Mark()).line;
            out.push_back(std::move(r));
        }
    } catch (const std::exception &) {
        return false;
    }
    return ctx.diags.empty();
}

} // namespace

void set_parallel_rules_min_bytes(size_t bytes) { g_min_bytes = bytes; }

std::optional<RuleSet> load_sliced(const std::string &yaml, const std::string &name) {
    const size_t min_bytes = g_min_bytes ? g_min_bytes.load() : kDefaultMinBytes;
    const unsigned threads = std::min(16u, std::thread::hardware_concurrency());
    if (yaml.size() < min_bytes || threads < 2 || yaml.size() > size_t{INT32_MAX}) return std::nullopt;

    // Head: column-0 keys up to "rules:"; body: its items, to the end.
    std::vector<Line> lines;
    for (size_t b = 0; b <= yaml.size();) {
        size_t e = yaml.find('\n', b);
        if (e == std::string::npos) e = yaml.size();
        lines.push_back({b, e});
        b = e + 1;
    }
    size_t rules_line = lines.size();
    bool tab = false;
    for (size_t k = 0; k < lines.size(); ++k) {
        const Line &l = lines[k];
        if (starts_with(yaml, l.begin, l.end, "---") || starts_with(yaml, l.begin, l.end, "...") ||
            starts_with(yaml, l.begin, l.end, "%"))
            return std::nullopt; // documents, directives
        if (indent_of(yaml, l, &tab) == 0 && starts_with(yaml, l.begin, l.end, "rules:")) {
            size_t i = l.begin + 6;
            while (i < l.end && (yaml[i] == ' ' || yaml[i] == '\r')) ++i;
            if (i != l.end && yaml[i] != '#') return std::nullopt; // a value on the key's line (flow, anchor)
            rules_line = k;
            break;
        }
    }
    if (rules_line == lines.size() || tab) return std::nullopt;
    for (const Line &l : lines)
        if (line_has_node_property(yaml, l)) return std::nullopt;
    size_t item_indent = std::string::npos;
    std::vector<size_t> item_lines;
    for (size_t k = rules_line + 1; k < lines.size(); ++k) {
        const size_t ind = indent_of(yaml, lines[k], &tab);
        if (ind == std::string::npos) continue;
        if (item_indent == std::string::npos) item_indent = ind;
        if (ind > item_indent) continue;
        if (ind < item_indent || !item_start(yaml, lines[k].begin + ind, lines[k].end)) return std::nullopt; // a tail
        item_lines.push_back(k);
    }
    if (tab || item_lines.size() < 2) return std::nullopt;

    // The head alone: a mapping of exactly "version" (this schema's) and an empty "rules".
    try {
        const YAML::Node head = YAML::Load(yaml.substr(0, lines[rules_line].end));
        if (!head.IsMap() || head.size() != 2 || !head["rules"] || !head["rules"].IsNull() || !head["version"] ||
            !head["version"].IsScalar() || head["version"].Scalar() != std::to_string(kSchemaVersion))
            return std::nullopt;
    } catch (const std::exception &) {
        return std::nullopt;
    }

    // Slices of whole items, about equal in bytes, several per thread.
    const size_t body = yaml.size() - lines[item_lines[0]].begin, want = std::max<size_t>(1, body / (threads * 4));
    std::vector<Slice> slices;
    for (size_t k = 0; k < item_lines.size();) {
        Slice sl{lines[item_lines[k]].begin, 0, static_cast<int>(item_lines[k]), 0, item_indent};
        size_t j = k + 1;
        while (j < item_lines.size() && lines[item_lines[j]].begin - sl.begin < want) ++j;
        sl.end = j < item_lines.size() ? lines[item_lines[j]].begin : yaml.size();
        sl.items = j - k;
        slices.push_back(sl);
        k = j;
    }
    std::vector<std::vector<ItemResult>> results(slices.size());
    std::atomic<size_t> next{0};
    std::atomic<bool> ok{true};
    auto work = [&] {
        for (size_t i; ok && (i = next++) < slices.size();)
            if (!parse_slice(yaml, slices[i], name, results[i])) ok = false;
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < std::min<size_t>(threads, slices.size()); ++t) pool.emplace_back(work);
    work();
    for (auto &t : pool) t.join();
    if (!ok) return std::nullopt;

    RuleSet rs;
    rs.name = name;
    rs.version = kSchemaVersion;
    rs.rules.reserve(item_lines.size());
    std::map<uint32_t, unsigned> first_line;
    for (auto &part : results)
        for (auto &r : part) {
            if (!r.rule || !r.id || !first_line.emplace(*r.id, r.line).second) return std::nullopt; // duplicates: whole parse
            rs.rules.push_back(std::move(*r.rule));
        }
    std::sort(rs.rules.begin(), rs.rules.end(), [](const Rule &a, const Rule &b) { return a.id < b.id; });
    return rs;
}

} // namespace wm::rules::detail
