// rules/emit.cpp - RuleSet -> YAML in the documented schema.
//
// Written by hand rather than with YAML::Emitter so the output is stable and
// readable: one flow of keys per rule in schema order, defaults omitted,
// every string double-quoted. Patterns are emitted through encode_pattern(),
// whose output contains no '"' or '\', so it needs no YAML escaping and
// load(to_yaml(rs)) reproduces every field (pattern_text and an align
// rule's reference_text become the canonical encoding; reference_file
// becomes an inline reference).
#include "rules/rule.h"

#include <fmt/format.h>

namespace wm::rules {
namespace {

// YAML double-quoted scalar. Bytes >= 0x80 pass through (msgs are UTF-8);
// control bytes use \xHH, which yaml-cpp reads back as that byte for < 0x80.
std::string yaml_quote(const std::string &s) {
    std::string out = "\"";
    for (char c : s) {
        auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(c);
        } else if (u < 0x20 || u == 0x7f) {
            out += fmt::format("\\x{:02X}", u);
        } else {
            out.push_back(c);
        }
    }
    return out + "\"";
}

const char *protocol_name(Protocol p) {
    switch (p) {
    case Protocol::Tcp: return "tcp";
    case Protocol::Udp: return "udp";
    default: return "any";
    }
}

std::string ports_text(const std::vector<PortRange> &ports) {
    std::string out = "[";
    for (size_t i = 0; i < ports.size(); ++i) {
        if (i) out += ", ";
        const auto &p = ports[i];
        out += p.lo == p.hi ? fmt::format("{}", p.lo) : fmt::format("\"{}-{}\"", p.lo, p.hi);
    }
    return out + "]";
}

// The reference is always written inline (canonical encoding), even when it
// was read from reference_file: the output stands alone wherever it is saved.
std::string align_text(const AlignSpec &a) {
    const AlignSpec d;
    std::string out = "    align:\n";
    out += fmt::format("      reference: \"{}\"\n", encode_pattern(a.reference));
    out += fmt::format("      min_score: {}\n", a.min_score);
    if (a.match != d.match) out += fmt::format("      match: {}\n", a.match);
    if (a.mismatch != d.mismatch) out += fmt::format("      mismatch: {}\n", a.mismatch);
    if (a.gap_open != d.gap_open) out += fmt::format("      gap_open: {}\n", a.gap_open);
    if (a.gap_extend != d.gap_extend) out += fmt::format("      gap_extend: {}\n", a.gap_extend);
    return out;
}

} // namespace

std::string to_yaml(const RuleSet &rs) {
    std::string out = fmt::format("version: {}\n", rs.version);
    if (rs.rules.empty()) return out + "rules: []\n";
    out += "rules:\n";
    for (const Rule &r : rs.rules) {
        out += fmt::format("  - id: {}\n", r.id);
        out += fmt::format("    msg: {}\n", yaml_quote(r.msg));
        if (r.severity != 3) out += fmt::format("    severity: {}\n", r.severity);
        if (!r.align) out += fmt::format("    pattern: \"{}\"\n", encode_pattern(r.pattern));
        if (r.nocase) out += "    nocase: true\n";
        if (r.offset) out += fmt::format("    offset: {}\n", r.offset);
        if (r.depth) out += fmt::format("    depth: {}\n", r.depth);
        if (r.protocol != Protocol::Any)
            out += fmt::format("    protocol: {}\n", protocol_name(r.protocol));
        if (!r.ports.empty()) out += fmt::format("    ports: {}\n", ports_text(r.ports));
        if (r.max_edits) out += fmt::format("    max_edits: {}\n", *r.max_edits);
        if (r.max_mismatches) out += fmt::format("    max_mismatches: {}\n", *r.max_mismatches);
        if (!r.source.empty()) out += fmt::format("    source: {}\n", yaml_quote(r.source));
        if (r.align) out += align_text(*r.align);
    }
    return out;
}

} // namespace wm::rules
