// rules/align_field.cpp - the `align:` mapping of an alignment rule.
//
// Like rule_fields.cpp, every sub-key is checked and every problem reported.
// The ranges are gpu/align's ScoreParams::validate() ranges, checked here so
// a bad file fails at load time with file:line:col instead of when the
// engine is built. The reference length limit is the GPU kernel's (one
// warp's registers hold at most 1024 query rows); the CPU path keeps it too
// so a rule file means the same thing on both backends.
#include "rules/file_read.h"
#include "rules/loader_internal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>

namespace wm::rules::detail {
namespace {

const std::vector<std::string> kAlignKeys = {"reference", "reference_file", "min_score", "match",
                                             "mismatch",  "gap_open",       "gap_extend"};

constexpr int kMaxGapSum = 4096; // ScoreParams: gap_open + gap_extend <= 4096

// Optional sign, then decimal digits; saturates well outside every range.
bool read_int(const std::string &s, long long *v) {
    size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (i == s.size()) return false;
    long long x = 0;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        x = std::min(x * 10 + (s[i] - '0'), 1LL << 40);
    }
    *v = s[0] == '-' ? -x : x;
    return true;
}

std::string range_text(long long lo, long long hi) {
    return fmt::format("{}..{}", lo, hi); // not ">= lo": a value past INT_MAX is refused too
}

struct AlignParser {
    LoadContext &ctx;
    int64_t rid;
    YAML::Mark align_mark; // the `align` key
    YAML::Mark key_mark;   // the sub-key being parsed, for `key:` with no value
    bool ok = true;

    void error(const YAML::Node &n, std::string msg, size_t extra = 0) {
        ctx.error(n.IsNull() ? key_mark : n.Mark(), rid, std::move(msg), extra);
        ok = false;
    }
    void error_at(const YAML::Mark &m, std::string msg) {
        ctx.error(m, rid, std::move(msg));
        ok = false;
    }

    std::optional<int> int_field(const YAML::Node &n, const char *name, long long lo, long long hi) {
        long long v = 0;
        if (!n.IsScalar())
            error(n, fmt::format("align {} must be an integer, got {}", name, kind_name(n)));
        else if (!read_int(n.Scalar(), &v))
            error(n, fmt::format("align {} must be an integer, got {}", name, quote(n.Scalar())));
        else if (v < lo || v > hi)
            error(n, fmt::format("align {} must be {}, got {}", name, range_text(lo, hi), n.Scalar()));
        else
            return static_cast<int>(v);
        return std::nullopt;
    }

    std::optional<std::string> text_field(const YAML::Node &n, const char *name) {
        if (n.IsScalar() && !n.Scalar().empty()) return n.Scalar();
        error(n, n.IsScalar() || n.IsNull()
                     ? fmt::format("align {} must not be empty", name)
                     : fmt::format("align {} must be a string, got {}", name, kind_name(n)));
        return std::nullopt;
    }

    bool check_length(const YAML::Node &n, const std::string &what, size_t len) {
        if (len <= kMaxReferenceBytes) return true;
        error(n, fmt::format("{} is {} bytes, longer than the maximum of {} (the GPU alignment "
                             "kernel's limit)",
                             what, len, kMaxReferenceBytes));
        return false;
    }

    void inline_reference(const YAML::Node &n, AlignSpec &a) {
        auto text = text_field(n, "reference");
        if (!text) return;
        std::string why;
        size_t col = 0;
        auto bytes = decode_pattern(*text, &why, &col);
        if (!bytes) {
            auto start = value_start(n, ctx);
            error(n, fmt::format("bad align reference {}: {}", quote(*text), why),
                  start ? *start + col : 0);
            return;
        }
        if (!check_length(n, "align reference", bytes->size())) return;
        a.reference = std::move(*bytes);
        a.reference_text = *text;
    }

    // Raw bytes, no escapes: the file holds the reference exactly.
    void file_reference(const YAML::Node &n, AlignSpec &a) {
        auto rel = text_field(n, "reference_file");
        if (!rel) return;
        const std::string path = (*rel)[0] == '/' ? *rel : ctx.base_dir + *rel;
        // Read no further than the limit: a wrong name (/dev/zero, a capture) is refused, not loaded.
        CappedRead file = read_file_capped(path, kMaxReferenceBytes);
        if (file.error) {
            error(n, fmt::format("cannot read align reference_file {}{}: {}", quote(*rel),
                                 path == *rel ? std::string() : " (" + path + ")",
                                 std::strerror(file.error)));
            return;
        }
        if (file.bytes.empty()) {
            error(n, fmt::format("align reference_file {} is empty", quote(*rel)));
            return;
        }
        if (file.over) {
            error(n, fmt::format("align reference_file {} is longer than the maximum of {} bytes (the GPU "
                                 "alignment kernel's limit)",
                                 quote(*rel), kMaxReferenceBytes));
            return;
        }
        a.reference = std::move(file.bytes);
        a.reference_file = *rel;
    }
};

} // namespace

bool parse_align(const YAML::Node &node, const YAML::Mark &key_mark, LoadContext &ctx, int64_t rid,
                 AlignSpec *out) {
    AlignParser p{ctx, rid, key_mark, key_mark};
    if (!node.IsMap()) {
        p.error(node, fmt::format("align must be a mapping with reference or reference_file, "
                                  "min_score and optional match, mismatch, gap_open, gap_extend; "
                                  "got {}",
                                  kind_name(node)));
        return false;
    }
    FieldMap fields = collect_fields(ctx, node, kAlignKeys, "align key",
                                     [&](const YAML::Node &k, std::string m) { p.error(k, m); });
    auto get = [&](const char *name) -> const YAML::Node * {
        auto it = fields.find(name);
        if (it == fields.end()) return nullptr;
        p.key_mark = it->second.first.Mark();
        return &it->second.second;
    };

    AlignSpec a;
    const bool has_ref = fields.count("reference"), has_file = fields.count("reference_file");
    if (has_ref && has_file)
        p.error_at(fields["reference_file"].first.Mark(),
                   "align reference and reference_file are mutually exclusive");
    else if (has_ref)
        p.inline_reference(*get("reference"), a);
    else if (has_file)
        p.file_reference(*get("reference_file"), a);
    else
        p.error_at(key_mark, "align needs \"reference\" (inline bytes) or \"reference_file\"");

    const YAML::Node *min = get("min_score");
    std::optional<int> min_score;
    if (min) min_score = p.int_field(*min, "min_score", 1, INT_MAX);
    else p.error_at(key_mark, "align is missing required key \"min_score\"");

    if (auto *n = get("match")) a.match = p.int_field(*n, "match", 1, 127).value_or(a.match);
    if (auto *n = get("mismatch"))
        a.mismatch = p.int_field(*n, "mismatch", -127, 0).value_or(a.mismatch);
    const YAML::Node *go = get("gap_open");
    if (go) a.gap_open = p.int_field(*go, "gap_open", 0, kMaxGapSum - 1).value_or(a.gap_open);
    const YAML::Node *ge = get("gap_extend");
    if (ge) a.gap_extend = p.int_field(*ge, "gap_extend", 1, kMaxGapSum).value_or(a.gap_extend);
    if (a.gap_open + a.gap_extend > kMaxGapSum)
        p.error(ge ? *ge : *go, fmt::format("align gap_open + gap_extend must be <= {}, got {} + {}",
                                            kMaxGapSum, a.gap_open, a.gap_extend));

    // A threshold above the perfect score can never fire: almost certainly a
    // typo, and cheap to catch here.
    if (min_score && !a.reference.empty()) {
        const long long best = static_cast<long long>(a.reference.size()) * a.match;
        if (*min_score > best)
            p.error(*min, fmt::format("align min_score {} can never be reached: a {}-byte reference "
                                      "scores at most {} ({} x match {})",
                                      *min_score, a.reference.size(), best, a.reference.size(),
                                      a.match));
        a.min_score = *min_score;
    }
    if (!p.ok) return false;
    *out = std::move(a);
    return true;
}

} // namespace wm::rules::detail
