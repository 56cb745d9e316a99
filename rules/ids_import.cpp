// rules/ids_import.cpp - Suricata / Snort 3 rules -> warpmatch prefilter rules.
//
// Each enabled rule contributes one literal: its fast_pattern content, else
// its longest positive content. The literal is a necessary condition for the
// IDS rule, so matching it is a sound prefilter; anything we cannot express
// exactly (variable offsets, chopped fast patterns, huge depths) is dropped,
// which only widens the prefilter and never loses a match.
#include "rules/ids_import.h"

#include "rules/ids_syntax.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace wm::rules {
namespace {

using ids::Option;
using ids::trim;

constexpr uint64_t kMaxOffsetDepth = 65535;

struct Content {
    std::string bytes;
    bool negated = false;
    bool nocase = false;
    bool fast_pattern = false;
    bool chopped = false;              // fast_pattern:off,len / fast_pattern_offset
    std::optional<uint64_t> offset, depth;
    bool offset_unknown = false;       // given but not a plain number (byte_extract var)
    bool depth_unknown = false;
    bool in_buffer = false;            // inspects a sticky buffer, not the raw payload
    uint64_t chop_offset = 0, chop_length = 0;
};

std::optional<uint64_t> plain_number(const std::string &s) {
    std::string t = trim(s);
    if (t.empty() || t.size() > 9 || !std::all_of(t.begin(), t.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) return std::nullopt;
    return std::stoull(t);
}

// Applies one content modifier; used for Suricata's separate options
// (`depth:3;`) and Snort 3's comma list (`depth 3`). Unknown ones (distance,
// within, rawbytes, buffers) do not affect the prefilter literal.
void apply_modifier(Content &c, const std::string &name, const std::string &value) {
    if (name == "nocase") {
        c.nocase = true;
    } else if (name == "depth") {
        c.depth = plain_number(value);
        c.depth_unknown = !c.depth;
    } else if (name == "offset") {
        c.offset = plain_number(value);
        c.offset_unknown = !c.offset;
    } else if (name == "startswith") {
        c.offset = 0;
        c.depth = c.bytes.size();
    } else if (name == "fast_pattern") {
        c.fast_pattern = true;
        auto parts = ids::split_unquoted(value, ',');
        if (parts.size() == 2) { // Suricata chop: fast_pattern:offset,length
            c.chopped = true;
            c.chop_offset = plain_number(parts[0]).value_or(0);
            c.chop_length = plain_number(parts[1]).value_or(c.bytes.size());
        }
    } else if (name == "fast_pattern_offset") {
        c.chopped = true;
        c.chop_offset = plain_number(value).value_or(0);
        if (!c.chop_length) c.chop_length = c.bytes.size();
    } else if (name == "fast_pattern_length") {
        c.chopped = true;
        c.chop_length = plain_number(value).value_or(c.bytes.size());
    }
}

// Options that select an inspection buffer (http.uri, file_data, Suricata's
// http_* content modifiers, Snort 3's sticky http_* / *_data). Offset and
// depth of contents in those buffers are relative to the buffer, not to the
// packet payload, so they must not become warpmatch offset/depth. Matching
// names generously only costs prefilter precision, never a missed match.
bool is_buffer_keyword(const std::string &n) {
    if (n == "pkt_data") return false;
    auto starts = [&](const char *p) { return n.rfind(p, 0) == 0; };
    auto ends = [&](const char *p) {
        size_t l = std::strlen(p);
        return n.size() >= l && n.compare(n.size() - l, l, p) == 0;
    };
    return n.find('.') != std::string::npos || ends("_data") || starts("http_") ||
           starts("file") || starts("dns_") || starts("tls_") || starts("ssl_") ||
           starts("sip_") || starts("ja3") || starts("smb_") || starts("krb5_") ||
           starts("ssh_") || starts("dce_") || starts("js_") || starts("vba_") ||
           starts("base64_");
}

// `content:[!]"..."[,mod,mod value...]` (the tail is Snort 3 syntax).
bool parse_content(const std::string &value, Content *c, std::string *error) {
    std::string v = trim(value);
    if (!v.empty() && v[0] == '!') {
        c->negated = true;
        v = trim(v.substr(1));
    }
    if (v.empty() || v[0] != '"') return *error = "content value is not a quoted string", false;
    size_t q = ids::closing_quote(v);
    if (q == std::string::npos) return *error = "unterminated content string", false;
    if (!ids::decode_content(v.substr(1, q - 1), &c->bytes, error)) return false;
    if (c->bytes.empty()) return *error = "empty content", false;
    if (c->bytes.size() > kMaxPatternBytes) // the loader would reject the YAML we write
        return *error = fmt::format("content is {} bytes, longer than the maximum of {}", c->bytes.size(),
                                    kMaxPatternBytes),
               false;
    std::string tail = trim(v.substr(q + 1));
    if (tail.empty()) return true;
    if (tail[0] != ',') return *error = "unexpected text after content string", false;
    for (const auto &mod : ids::split_unquoted(tail.substr(1), ',')) {
        size_t sp = mod.find_first_of(" \t");
        apply_modifier(*c, mod.substr(0, sp), sp == std::string::npos ? "" : mod.substr(sp + 1));
    }
    return true;
}

// Header protocol -> warpmatch protocol. App-layer protocols run over TCP
// except those that (also) use UDP; unknown ones fall back to any so the
// prefilter never misses traffic.
Protocol map_protocol(const std::string &proto) {
    static const std::set<std::string> kTcp = {
        "tcp", "tcp-pkt", "tcp-stream", "http", "http1", "http2", "tls", "ssl", "smtp", "ftp",
        "ftp-data", "ssh", "smb", "dcerpc", "imap", "pop3", "rdp", "rfb", "mqtt", "modbus",
        "dnp3", "telnet", "pgsql", "websocket"};
    static const std::set<std::string> kUdp = {"udp", "tftp", "ntp", "snmp", "dhcp", "ike",
                                               "ikev2", "quic"};
    if (kTcp.count(proto)) return Protocol::Tcp;
    if (kUdp.count(proto)) return Protocol::Udp;
    return Protocol::Any; // ip, icmp, dns (tcp+udp), krb5, sip, nfs, file, ...
}

struct Importer {
    ImportResult result;
    std::map<uint32_t, std::string> seen_sid; // sid -> "file:line" of first
    std::set<std::pair<std::string, bool>> patterns;

    void parse_error(const std::string &where, const std::string &why) {
        ++result.report.skipped_parse_error;
        result.report.details.push_back(fmt::format("{}: {}", where, why));
    }

    void rule(const std::string &text, const std::string &file, unsigned line) {
        ImportReport &rep = result.report;
        const std::string where = fmt::format("{}:{}", file, line);
        ids::RuleLine rl;
        std::string why;
        if (!ids::parse_rule_line(text, &rl, &why)) return parse_error(where, why);

        // The sid first, so that every later parse error names it.
        std::optional<uint64_t> sid;
        for (const Option &o : rl.options) {
            if (o.name != "sid") continue;
            sid = plain_number(o.value);
            if (!sid || *sid > 0xffffffffULL) return parse_error(where, fmt::format("bad sid \"{}\"", o.value));
        }
        if (!sid) return parse_error(where, "no sid");
        const auto id = static_cast<uint32_t>(*sid);
        const std::string where_sid = fmt::format("{}: sid {}", where, id);

        std::string msg;
        int severity = 3;
        std::vector<Content> contents;
        bool sticky = false; // a buffer keyword is in effect for later contents
        for (const Option &o : rl.options) {
            if (o.name == "pkt_data") {
                sticky = false;
            } else if (is_buffer_keyword(o.name)) {
                sticky = true;
                // Suricata 5's `content:"x"; http_uri;` modifies the content before it.
                if (!contents.empty() && o.name.rfind("http_", 0) == 0) contents.back().in_buffer = true;
            } else if (o.name == "content") {
                Content c;
                c.in_buffer = sticky;
                if (!parse_content(o.value, &c, &why)) return parse_error(where_sid, why);
                contents.push_back(std::move(c));
            } else if (o.name == "msg") {
                msg = ids::unquote(o.value);
                // It becomes the EVE signature, which the loader requires to be UTF-8.
                if (size_t bad = invalid_utf8_offset(msg); bad != std::string::npos)
                    return parse_error(where_sid, fmt::format("msg is not valid UTF-8 (byte 0x{:02X} at offset {})",
                                                              static_cast<unsigned char>(msg[bad]), bad));
            } else if (o.name == "priority") {
                if (auto p = plain_number(o.value))
                    severity = static_cast<int>(std::clamp<uint64_t>(*p, 1, 4));
            } else if (!contents.empty()) {
                apply_modifier(contents.back(), o.name, o.value);
            }
        }
        if (auto [it, fresh] = seen_sid.emplace(id, where); !fresh) {
            ++rep.skipped_duplicate_sid;
            rep.details.push_back(
                fmt::format("{}: duplicate sid {} (first at {})", where, id, it->second));
            return;
        }

        const Content *pick = nullptr;
        for (const auto &c : contents)
            if (!c.negated && c.fast_pattern) {
                pick = &c;
                break;
            }
        if (!pick)
            for (const auto &c : contents)
                if (!c.negated && (!pick || c.bytes.size() > pick->bytes.size())) pick = &c;
        if (!pick) {
            if (contents.empty()) ++rep.skipped_no_content;
            else ++rep.skipped_negated_only;
            return;
        }
        emit(*pick, id, msg, severity, rl.proto, text, file, line);
    }

    void emit(const Content &c, uint32_t id, const std::string &msg, int severity,
              const std::string &proto, const std::string &text, const std::string &file,
              unsigned line) {
        Rule r;
        r.id = id;
        r.msg = msg.empty() ? fmt::format("sid {}", id) : msg;
        r.severity = severity;
        r.pattern = c.bytes;
        r.nocase = c.nocase;
        bool keep_position = !c.offset_unknown && !c.in_buffer;
        // A chop that selects no byte (`fast_pattern:1,0`, an offset past the
        // end) is one Suricata refuses; the whole content, which every match
        // contains, stays a sound prefilter. An empty one would make YAML the
        // loader rejects (found by tests/fuzz/fuzz_ids_import).
        if (c.chopped && c.chop_offset < c.bytes.size() && c.chop_length > 0) {
            r.pattern = c.bytes.substr(c.chop_offset, c.chop_length);
            keep_position = false; // offset/depth describe the whole content
        }
        if (keep_position && c.offset && *c.offset <= kMaxOffsetDepth) {
            r.offset = static_cast<uint32_t>(*c.offset);
        } else if (c.offset && *c.offset != 0) {
            keep_position = false; // without the offset, depth would be too tight
        }
        if (keep_position && c.depth && !c.depth_unknown && *c.depth <= kMaxOffsetDepth &&
            *c.depth >= r.pattern.size())
            r.depth = static_cast<uint32_t>(*c.depth);
        r.protocol = map_protocol(proto);
        r.pattern_text = encode_pattern(r.pattern);
        r.source = text;
        r.where = SourceLocation{file, line, 0};
        patterns.emplace(r.pattern, r.nocase);
        ++result.report.rules_imported;
        result.rules.rules.push_back(std::move(r));
    }

    void file(const std::string &path) {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw std::runtime_error(
                fmt::format("cannot open rules file {}: {}", path, std::strerror(errno)));
        std::string line, text;
        unsigned lineno = 0, start = 0;
        while (std::getline(in, line)) {
            ++lineno;
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (text.empty()) start = lineno;
            std::string t = trim(line);
            if (!t.empty() && t.back() == '\\') { // continuation: join with the next line
                text += t.substr(0, t.size() - 1);
                continue;
            }
            text += t;
            classify(trim(text), path, start);
            text.clear();
        }
        if (in.bad())
            throw std::runtime_error(
                fmt::format("cannot open rules file {}: {}", path, std::strerror(errno)));
        if (!text.empty()) classify(trim(text), path, start);
    }

    void classify(const std::string &t, const std::string &path, unsigned line) {
        if (t.empty()) return;
        if (t[0] == '#') {
            // `# alert ...(...)` is a disabled rule; any other comment is ignored.
            size_t hash_end = t.find_first_not_of('#');
            if (hash_end == std::string::npos) return;
            std::string body = trim(t.substr(hash_end));
            std::string word = body.substr(0, body.find_first_of(" \t("));
            if (ids::is_action(word) && body.find('(') != std::string::npos) {
                ++result.report.rules_read;
                ++result.report.rules_disabled;
            }
            return;
        }
        ++result.report.rules_read;
        rule(t, path, line);
    }
};

} // namespace

ImportResult import_ids_rules(const std::vector<std::string> &files) {
    Importer imp;
    for (const auto &f : files) imp.file(f);
    auto &rules = imp.result.rules;
    rules.name = files.size() == 1 ? files[0] : fmt::format("{} IDS rule files", files.size());
    std::sort(rules.rules.begin(), rules.rules.end(),
              [](const Rule &a, const Rule &b) { return a.id < b.id; });
    imp.result.report.distinct_patterns = imp.patterns.size();
    return std::move(imp.result);
}

} // namespace wm::rules
