// rules/rule.cpp - diagnostics, the UTF-8 check and the content hash.
//
// The hash is 64-bit FNV-1a over a canonical byte serialization of the
// semantic fields only (not name, source, pattern_text, an align rule's
// reference_text/reference_file, or locations), with
// rules visited in id order, so it identifies "the same rules" regardless of
// file name, YAML formatting or rule order in the file.
#include "rules/rule.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace wm::rules {

std::string Diagnostic::to_string() const {
    std::string prefix = where.file;
    if (where.line > 0) {
        prefix += fmt::format(":{}", where.line);
        if (where.column > 0) prefix += fmt::format(":{}", where.column);
    }
    std::string out;
    if (!prefix.empty()) out = prefix + ": ";
    if (rule_id >= 0) out += fmt::format("rule {}: ", rule_id);
    return out + message;
}

size_t invalid_utf8_offset(const std::string &text) {
    for (size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        if (lead < 0x80) {
            ++i;
            continue;
        }
        // Sequence length, and the second byte's range: narrower after E0/F0
        // (overlong), ED (surrogates) and F4 (above U+10FFFF).
        size_t len = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            len = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            len = 3;
            lo = lead == 0xE0 ? 0xA0 : lo;
            hi = lead == 0xED ? 0x9F : hi;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            len = 4;
            lo = lead == 0xF0 ? 0x90 : lo;
            hi = lead == 0xF4 ? 0x8F : hi;
        } else {
            return i;
        }
        if (text.size() - i < len) return i;
        for (size_t k = 1; k < len; ++k) {
            const auto c = static_cast<unsigned char>(text[i + k]);
            if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) return i;
        }
        i += len;
    }
    return std::string::npos;
}

namespace {

std::string join_diagnostics(const std::vector<Diagnostic> &diags) {
    std::string out;
    for (const auto &d : diags) {
        if (!out.empty()) out.push_back('\n');
        out += d.to_string();
    }
    return out;
}

// Streaming FNV-1a; every value is written with a fixed width or a length
// prefix so field boundaries cannot be confused.
class Fnv1a {
  public:
    void bytes(const void *data, size_t n) {
        auto p = static_cast<const unsigned char *>(data);
        for (size_t i = 0; i < n; ++i) {
            h_ ^= p[i];
            h_ *= 0x100000001b3ULL;
        }
    }
    void u64(uint64_t v) {
        unsigned char b[8];
        for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
        bytes(b, 8);
    }
    void str(const std::string &s) {
        u64(s.size());
        bytes(s.data(), s.size());
    }
    void opt(const std::optional<uint32_t> &v) {
        u64(v ? 1 : 0);
        u64(v ? *v : 0);
    }
    uint64_t value() const { return h_; }

  private:
    uint64_t h_ = 0xcbf29ce484222325ULL;
};

} // namespace

RuleError::RuleError(std::vector<Diagnostic> diags)
    : std::runtime_error(join_diagnostics(diags)), diags_(std::move(diags)) {}

uint64_t content_hash(const RuleSet &rs) {
    std::vector<size_t> order(rs.rules.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return rs.rules[a].id < rs.rules[b].id; });
    // Sets without align rules keep the original serialization (and hash);
    // the tag tells the two schemas apart, so neither can collide with the other.
    const bool any_align = std::any_of(rs.rules.begin(), rs.rules.end(),
                                       [](const Rule &r) { return r.align.has_value(); });
    Fnv1a h;
    h.str(any_align ? "warpmatch-rules+align" : "warpmatch-rules"); // domain tag: schema below
    h.u64(static_cast<uint64_t>(rs.version));
    h.u64(rs.rules.size());
    for (size_t i : order) {
        const Rule &r = rs.rules[i];
        h.u64(r.id);
        h.str(r.msg);
        h.u64(static_cast<uint64_t>(r.severity));
        h.str(r.pattern);
        h.u64(r.nocase ? 1 : 0);
        h.u64(r.offset);
        h.u64(r.depth);
        h.u64(static_cast<uint64_t>(r.protocol));
        h.u64(r.ports.size());
        for (const auto &p : r.ports) {
            h.u64(p.lo);
            h.u64(p.hi);
        }
        h.opt(r.max_edits);
        h.opt(r.max_mismatches);
        if (!any_align) continue;
        h.u64(r.align ? 1 : 0);
        if (!r.align) continue;
        const AlignSpec &a = *r.align; // the bytes, not where they came from
        h.str(a.reference);
        for (int32_t v : {a.min_score, a.match, a.mismatch, a.gap_open, a.gap_extend})
            h.u64(static_cast<uint64_t>(static_cast<int64_t>(v)));
    }
    return h.value();
}

} // namespace wm::rules
