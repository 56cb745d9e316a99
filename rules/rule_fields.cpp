// rules/rule_fields.cpp - parse and validate one rule mapping.
//
// Every field is checked independently and every problem is reported, so one
// pass over a file shows the author all of its mistakes. Numbers are read from
// the scalar text ourselves (not yaml-cpp's as<>) so "-1", "1.5" and
// 2^32 get precise messages instead of silent wraparound.
#include "rules/loader_internal.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace wm::rules::detail {
namespace {

const std::vector<std::string> kRuleKeys = {
    "id",       "msg",    "severity", "pattern", "nocase",    "offset",
    "depth",    "protocol", "ports",  "max_edits", "max_mismatches", "source", "align"};

// Literal-only knobs: an align rule scores the whole payload, so these have
// no meaning there and are rejected rather than silently ignored.
const char *const kNotForAlign[] = {"nocase", "offset", "depth", "max_edits", "max_mismatches"};

constexpr uint32_t kMaxOffsetDepth = 65535;

enum class NumStatus { Ok, Negative, NotNumber, TooBig };

// Plain decimal digits only; values above 2^32-1 are TooBig.
NumStatus read_uint(const std::string &s, uint64_t *value) {
    if (s.empty()) return NumStatus::NotNumber;
    bool neg = s[0] == '-';
    size_t start = neg ? 1 : 0;
    if (start == s.size()) return NumStatus::NotNumber;
    uint64_t v = 0;
    for (size_t i = start; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return NumStatus::NotNumber;
        v = v * 10 + static_cast<uint64_t>(s[i] - '0');
        if (v > 0xffffffffULL) return neg ? NumStatus::Negative : NumStatus::TooBig;
    }
    if (neg && v != 0) return NumStatus::Negative;
    *value = v;
    return NumStatus::Ok;
}

struct RuleParser {
    explicit RuleParser(LoadContext &c) : ctx(c) {}
    LoadContext &ctx;
    int64_t rid = -1;
    bool ok = true;

    YAML::Mark key_mark; // key of the field being parsed: where `key:` (null) is reported

    void error(const YAML::Node &n, std::string msg, size_t extra = 0) {
        ctx.error(n.IsNull() ? key_mark : n.Mark(), rid, std::move(msg), extra);
        ok = false;
    }

    // Unsigned integer in [0, max]; reports and returns nullopt otherwise.
    std::optional<uint32_t> uint_field(const YAML::Node &n, const char *name, uint64_t max) {
        if (!n.IsScalar()) {
            error(n, fmt::format("{} must be an unsigned integer, got {}", name, kind_name(n)));
            return std::nullopt;
        }
        uint64_t v = 0;
        switch (read_uint(n.Scalar(), &v)) {
        case NumStatus::Ok:
            if (v <= max) return static_cast<uint32_t>(v);
            [[fallthrough]];
        case NumStatus::TooBig:
            error(n, fmt::format("{} {} is out of range (max {})", name, n.Scalar(), max));
            return std::nullopt;
        case NumStatus::Negative:
            error(n, fmt::format("{} must not be negative, got {}", name, quote(n.Scalar())));
            return std::nullopt;
        case NumStatus::NotNumber:
            break;
        }
        error(n, fmt::format("{} must be an unsigned integer, got {}", name, quote(n.Scalar())));
        return std::nullopt;
    }

    std::optional<bool> bool_field(const YAML::Node &n, const char *name) {
        if (n.IsScalar()) {
            const std::string &s = n.Scalar();
            if (s == "true" || s == "True" || s == "TRUE") return true;
            if (s == "false" || s == "False" || s == "FALSE") return false;
            error(n, fmt::format("{} must be true or false, got {}", name, quote(s)));
        } else {
            error(n, fmt::format("{} must be true or false, got {}", name, kind_name(n)));
        }
        return std::nullopt;
    }

    // String field; null counts as "" so `msg:` reports "must not be empty".
    std::optional<std::string> string_field(const YAML::Node &n, const char *name) {
        if (n.IsNull()) return std::string();
        if (!n.IsScalar()) {
            error(n, fmt::format("{} must be a string, got {}", name, kind_name(n)));
            return std::nullopt;
        }
        return n.Scalar();
    }

    // Text that reaches EVE JSON must be UTF-8: the writer would turn bad
    // bytes into U+FFFD. The column points at the first bad byte.
    void utf8_field(const YAML::Node &n, const std::string &text, const char *name) {
        const size_t bad = invalid_utf8_offset(text);
        if (bad == std::string::npos) return;
        auto start = value_start(n, ctx);
        error(n, fmt::format("{} is not valid UTF-8 (byte 0x{:02X} at offset {})", name,
                             static_cast<unsigned char>(text[bad]), bad),
              start ? *start + bad : 0);
    }

    void pattern_field(const YAML::Node &n, Rule &r, bool *decoded) {
        auto text = string_field(n, "pattern");
        if (!text) return;
        if (text->empty()) {
            error(n, "pattern must not be empty");
            return;
        }
        std::string why;
        size_t col = 0;
        auto bytes = decode_pattern(*text, &why, &col);
        if (!bytes) {
            auto start = value_start(n, ctx);
            error(n, fmt::format("bad pattern {}: {}", quote(*text), why), start ? *start + col : 0);
            return;
        }
        if (bytes->size() > kMaxPatternBytes) {
            error(n, fmt::format("pattern is {} bytes, longer than the maximum of {}",
                                 bytes->size(), kMaxPatternBytes));
            return;
        }
        r.pattern_text = *text;
        r.pattern = std::move(*bytes);
        *decoded = true;
    }

    void protocol_field(const YAML::Node &n, Rule &r) {
        auto s = string_field(n, "protocol");
        if (!s) return;
        if (*s == "tcp") r.protocol = Protocol::Tcp;
        else if (*s == "udp") r.protocol = Protocol::Udp;
        else if (*s == "any") r.protocol = Protocol::Any;
        else error(n, fmt::format("unknown protocol {}: expected tcp, udp or any", quote(*s)));
    }

    std::optional<PortRange> one_port(const YAML::Node &n) {
        if (!n.IsScalar()) {
            error(n, fmt::format("bad port: expected a number or \"lo-hi\" range, got {}",
                                 kind_name(n)));
            return std::nullopt;
        }
        const std::string &s = n.Scalar();
        size_t dash = s.find('-', 1); // position 0 would be a minus sign
        std::string lo_s = dash == std::string::npos ? s : s.substr(0, dash);
        std::string hi_s = dash == std::string::npos ? s : s.substr(dash + 1);
        uint64_t lo = 0, hi = 0;
        auto sl = read_uint(lo_s, &lo), sh = read_uint(hi_s, &hi);
        if (sl == NumStatus::NotNumber || sh == NumStatus::NotNumber ||
            sl == NumStatus::Negative || sh == NumStatus::Negative) {
            error(n, fmt::format("bad port {}: expected a number 0..65535 or a \"lo-hi\" range",
                                 quote(s)));
        } else if (sl == NumStatus::TooBig || sh == NumStatus::TooBig || lo > 65535 ||
                   hi > 65535) {
            error(n, fmt::format("bad port {}: ports must be 0..65535", quote(s)));
        } else if (lo > hi) {
            error(n, fmt::format("bad port range {}: low end is above high end", quote(s)));
        } else {
            return PortRange{static_cast<uint16_t>(lo), static_cast<uint16_t>(hi)};
        }
        return std::nullopt;
    }

    // Ports are a set: sorted and merged, so equal sets compare and hash equal.
    void ports_field(const YAML::Node &n, Rule &r) {
        if (!n.IsSequence()) {
            error(n, fmt::format("ports must be a list of ports or \"lo-hi\" ranges, got {}",
                                 kind_name(n)));
            return;
        }
        if (n.size() == 0) {
            error(n, "ports must not be empty (omit it to match any port)");
            return;
        }
        std::vector<PortRange> ranges;
        for (const auto &e : n)
            if (auto p = one_port(e)) ranges.push_back(*p);
        std::sort(ranges.begin(), ranges.end(),
                  [](PortRange a, PortRange b) { return a.lo < b.lo || (a.lo == b.lo && a.hi < b.hi); });
        for (const auto &p : ranges) {
            if (!r.ports.empty() && p.lo <= uint32_t{r.ports.back().hi} + 1)
                r.ports.back().hi = std::max(r.ports.back().hi, p.hi);
            else
                r.ports.push_back(p);
        }
    }
};

} // namespace

std::optional<Rule> parse_rule(const YAML::Node &node, LoadContext &ctx,
                               std::optional<uint32_t> *id_out, YAML::Mark *id_mark) {
    if (!node.IsMap()) {
        ctx.error(item_mark(node, ctx), -1,
                  fmt::format("rule must be a mapping of keys to values, got {}", kind_name(node)));
        return std::nullopt;
    }
    RuleParser p(ctx);
    Rule r;
    r.where = ctx.at(node.Mark());

    // Index keys first so the id is known for every later message.
    std::vector<std::pair<YAML::Node, std::string>> problems; // reported once rid is known
    FieldMap fields = collect_fields(ctx, node, kRuleKeys, "key", [&](const YAML::Node &k, std::string m) {
        problems.emplace_back(k, std::move(m));
    });
    auto get = [&](const char *name) -> const YAML::Node * {
        auto it = fields.find(name);
        if (it == fields.end()) return nullptr;
        p.key_mark = it->second.first.Mark();
        return &it->second.second;
    };

    if (auto *n = get("id")) {
        if (auto v = p.uint_field(*n, "id", 0xffffffffULL)) {
            r.id = *v;
            p.rid = *v;
            *id_out = *v;
            *id_mark = n->Mark();
        }
    }
    for (auto &[k, msg] : problems) p.error(k, msg);
    const bool is_align = fields.count("align") != 0;
    for (const char *req : {"id", "msg", "pattern"})
        if (!fields.count(req) && !(is_align && std::string(req) == "pattern"))
            p.error(node, fmt::format("missing required key \"{}\"", req));
    if (is_align) {
        if (fields.count("pattern"))
            p.error(fields["align"].first, "pattern and align are mutually exclusive (an align "
                                           "rule matches by alignment score, not by a literal)");
        for (const char *k : kNotForAlign)
            if (auto it = fields.find(k); it != fields.end())
                p.error(it->second.first, fmt::format("{} does not apply to align rules", k));
    }

    if (auto *n = get("msg")) {
        auto s = p.string_field(*n, "msg");
        if (s && s->empty()) p.error(*n, "msg must not be empty");
        if (s) {
            p.utf8_field(*n, *s, "msg");
            r.msg = *s;
        }
    }
    if (auto *n = get("severity")) {
        uint64_t v = 0;
        if (!n->IsScalar())
            p.error(*n, fmt::format("severity must be 1..4, got {}", kind_name(*n)));
        else if (read_uint(n->Scalar(), &v) != NumStatus::Ok || v < 1 || v > 4)
            p.error(*n, fmt::format("severity must be 1..4, got {}", quote(n->Scalar())));
        else
            r.severity = static_cast<int>(v);
    }
    bool decoded = false;
    if (auto *n = get("pattern")) p.pattern_field(*n, r, &decoded);
    if (auto *n = get("nocase"))
        if (auto v = p.bool_field(*n, "nocase")) r.nocase = *v;
    if (auto *n = get("offset"))
        if (auto v = p.uint_field(*n, "offset", kMaxOffsetDepth)) r.offset = *v;
    if (auto *n = get("depth")) {
        if (auto v = p.uint_field(*n, "depth", kMaxOffsetDepth)) {
            r.depth = *v;
            if (decoded && r.depth != 0 && r.depth < r.pattern.size())
                p.error(*n, fmt::format("depth {} is shorter than the pattern ({} bytes)", r.depth,
                                        r.pattern.size()));
        }
    }
    if (auto *n = get("protocol")) p.protocol_field(*n, r);
    if (auto *n = get("ports")) p.ports_field(*n, r);

    // Approximate-matching knobs (ApproxEngine runs them). Like
    // Hyperscan, reject k that would let the empty string (or one byte) match.
    const YAML::Node *edits = get("max_edits"), *mism = get("max_mismatches");
    if (edits && mism)
        p.error(*mism, "max_edits and max_mismatches are mutually exclusive");
    for (auto [n, name, slot] : {std::make_tuple(edits, "max_edits", &r.max_edits),
                                 std::make_tuple(mism, "max_mismatches", &r.max_mismatches)}) {
        if (!n) continue;
        get(name); // for the key mark
        auto v = p.uint_field(*n, name, 0xffffffffULL);
        if (!v) continue;
        *slot = *v;
        if (decoded && r.pattern.size() <= uint64_t{*v} + 1)
            p.error(*n, fmt::format("{} {} is too large for a {}-byte pattern (pattern length "
                                    "must be > {} + 1)",
                                    name, *v, r.pattern.size(), name));
    }
    if (auto *n = get("source"))
        if (auto s = p.string_field(*n, "source")) r.source = *s;
    if (auto *n = get("align")) {
        AlignSpec a;
        if (parse_align(*n, p.key_mark, ctx, p.rid, &a)) r.align = std::move(a);
        else p.ok = false;
    }

    if (!p.ok) return std::nullopt;
    return r;
}

} // namespace wm::rules::detail
