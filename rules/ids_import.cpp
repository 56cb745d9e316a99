// rules/ids_import.cpp - Suricata / Snort 3 rules -> warpmatch prefilter rules.
//
// Each enabled rule contributes one literal: its fast_pattern content, else
// its longest positive content, among the contents whose bytes can be in the
// packet payload. The literal is a necessary condition for the IDS rule, so
// matching it is a prefilter; anything we cannot express exactly (variable
// offsets, chopped fast patterns, huge depths) is dropped, which only widens
// it. A content of an inspection buffer is taken as the buffer holds it:
// where the buffer differs from the wire in a known way the literal is made
// to fit the wire (a DNS name's labels, a lower-cased host), and buffers the
// payload never holds as such (hashes, decoded or transformed data, packet
// headers) give no literal (docs/rules.md).
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
    std::string buffer;                // the inspection buffer ("" for the packet payload)
    bool dotprefix = false;            // Suricata's dotprefix transform on the buffer
    bool endswith = false;             // anchored at the buffer's end
    bool derived = false;              // a transform the wire never holds (to_md5, xor, from_base64, ...)
    uint64_t chop_offset = 0, chop_length = 0;
};

// How an inspection buffer's bytes relate to the payload's.
enum class BufferKind {
    Payload,    // the packet payload itself
    Verbatim,   // the payload holds them (up to the buffer's normalisation: docs/rules.md)
    Lowercased, // held in any case (Suricata lower-cases the buffer)
    DnsName,    // a dotted name; the wire holds its labels, each after its length byte
    DnString,   // a certificate's subject or issuer as "C=US, O=x, CN=y"; DER holds each value
    Derived,    // computed or parsed out: hashes, decoded data, other certificate fields, packet headers
};

BufferKind kind_of(const std::string &b) {
    if (b.empty() || b == "pkt_data") return BufferKind::Payload;
    auto starts = [&](const char *p) { return b.rfind(p, 0) == 0; };
    auto has = [&](const char *p) { return b.find(p) != std::string::npos; };
    if (b == "tls.cert_subject" || b == "tls_cert_subject" || b == "tls.cert_issuer" || b == "tls_cert_issuer")
        return BufferKind::DnString;
    if (starts("ja3") || starts("ja4") || has("md5") || has("sha1") || has("sha256") || has("hassh") ||
        starts("tls.cert_") || starts("tls_cert_") || starts("x509") || starts("base64_") || b == "tcp.hdr" ||
        b == "udp.hdr" || b == "ipv4.hdr" || b == "ipv6.hdr" || b == "icmpv4.hdr" || b == "icmpv6.hdr")
        return BufferKind::Derived;
    if (b == "dns.query" || b == "dns_query" || b == "dns.query.name" || b == "dns.answer.name" ||
        (starts("dns.") && has("rrname")))
        return BufferKind::DnsName;
    if (b == "http.host" || b == "http_host") return BufferKind::Lowercased;
    return BufferKind::Verbatim;
}

// A dotted DNS name as the wire holds it, each label after its length
// byte: ".example.com" at the name's end is |07|example|03|com. A label's
// length is known when the label ends inside the content (the last one only
// at the name's end, endswith); where it is not, the literal breaks, and the
// longest piece is the one taken.
std::string dns_wire_literal(const std::string &name, bool at_name_end) {
    std::vector<std::string> labels(1);
    for (char ch : name) {
        if (ch == '.') labels.emplace_back();
        else labels.back() += ch;
    }
    std::string best, run = labels[0];
    for (size_t k = 1; k < labels.size(); ++k) {
        const bool known = (k + 1 < labels.size() || at_name_end) && !labels[k].empty() && labels[k].size() <= 63;
        if (known) {
            run += static_cast<char>(labels[k].size());
            run += labels[k];
        } else {
            if (run.size() > best.size()) best = run;
            run = labels[k];
        }
    }
    return run.size() > best.size() ? run : best;
}

// Of "C=US, O=x, CN=y" (a certificate's subject or issuer to the IDS), the
// longest value, which the DER holds (the attribute names are OIDs there):
// each piece between commas after its '=', or the whole piece when it has
// none (a value the content starts or ends inside), spaces trimmed.
std::string longest_dn_value(const std::string &text) {
    std::string best;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i < text.size() && text[i] != ',') continue;
        std::string piece = text.substr(start, i - start);
        if (const size_t eq = piece.find('='); eq != std::string::npos) piece.erase(0, eq + 1);
        const size_t b = piece.find_first_not_of(' '), e = piece.find_last_not_of(' ');
        piece = b == std::string::npos ? std::string() : piece.substr(b, e - b + 1);
        if (piece.size() > best.size()) best = piece;
        start = i + 1;
    }
    return best;
}

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
    } else if (name == "endswith") {
        c.endswith = true;
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
    return n.find('.') != std::string::npos || n == "frame" || ends("_data") || starts("http_") ||
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
// prefilter never misses traffic. (dcerpc is also UDP: any.)
Protocol map_protocol(const std::string &proto) {
    static const std::set<std::string> kTcp = {
        "tcp", "tcp-pkt", "tcp-stream", "http", "http1", "http2", "tls", "ssl", "smtp", "ftp",
        "ftp-data", "ssh", "smb", "imap", "pop3", "rdp", "rfb", "mqtt", "modbus",
        "dnp3", "telnet", "pgsql", "websocket"};
    static const std::set<std::string> kUdp = {"udp", "tftp", "ntp", "snmp", "dhcp", "ike",
                                               "ikev2", "quic"};
    if (kTcp.count(proto)) return Protocol::Tcp;
    if (kUdp.count(proto)) return Protocol::Udp;
    return Protocol::Any; // ip, icmp, dns (tcp+udp), krb5, sip, nfs, file, ...
}

// What the transforms after a buffer keyword do to the literal: the ones
// that compute or decode make bytes the wire does not hold; case ones only
// make the match caseless.
void apply_transform(const std::string &name, bool *dotprefix, bool *derived, bool *caseless) {
    if (name == "dotprefix") *dotprefix = true;
    else if (name == "to_lowercase" || name == "to_uppercase" || name == "header_lowercase") *caseless = true;
    else if (name == "to_md5" || name == "to_sha1" || name == "to_sha256" || name == "xor" ||
             name == "from_base64" || name == "pcrexform")
        *derived = true;
}

struct Importer {
    ImportResult result;
    // The rule kept for each sid: the highest rev (the first of equal
    // ones), as Suricata keeps the newer revision of a duplicate.
    enum class Outcome { Imported, NoContent, NegatedOnly };
    struct Kept {
        uint64_t rev = 0;
        std::string where;
        Outcome outcome = Outcome::Imported;
        Rule rule;
    };
    std::map<uint32_t, Kept> by_sid;

    void parse_error(const std::string &where, const std::string &why) {
        ++result.report.skipped_parse_error;
        result.report.details.push_back(fmt::format("{}: {}", where, why));
    }

    void rule(const std::string &text, const std::string &file, unsigned line) {
        const std::string where = fmt::format("{}:{}", file, line);
        ids::RuleLine rl;
        std::string why;
        if (!ids::parse_rule_line(text, &rl, &why)) return parse_error(where, why);

        // The sid first, so that every later parse error names it.
        std::optional<uint64_t> sid;
        uint64_t rev = 0;
        for (const Option &o : rl.options) {
            if (o.name == "rev") rev = plain_number(o.value).value_or(0);
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
        std::string sticky; // the buffer keyword in effect for later contents ("": the payload)
        bool dotprefix = false, derived = false, caseless = false; // its transforms
        // Options after a buffer keyword and before its first content are its
        // transforms: the contents there were, or none after a modifier-style http_*.
        size_t transforms_until = SIZE_MAX;
        for (const Option &o : rl.options) {
            if (o.name == "pkt_data") {
                sticky.clear();
                dotprefix = derived = caseless = false;
                transforms_until = SIZE_MAX;
            } else if (is_buffer_keyword(o.name)) {
                sticky = o.name == "frame" ? "frame:" + trim(o.value) : o.name;
                dotprefix = derived = caseless = false;
                transforms_until = contents.size();
                // Suricata 5's `content:"x"; http_uri;` modifies the content before it.
                if (!contents.empty() && o.name.rfind("http_", 0) == 0) {
                    contents.back().buffer = o.name;
                    transforms_until = SIZE_MAX; // what follows modifies that content
                }
            } else if (o.name == "content") {
                Content c;
                c.buffer = sticky;
                c.dotprefix = dotprefix;
                c.derived = derived;
                c.nocase = caseless;
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
            } else if (contents.size() == transforms_until) {
                apply_transform(o.name, &dotprefix, &derived, &caseless); // between a buffer and its content
            } else if (!contents.empty()) {
                apply_modifier(contents.back(), o.name, o.value);
            }
        }

        Kept k;
        k.rev = rev;
        k.where = where;
        std::optional<Rule> r;
        bool positive = false;
        for (const Content &c : contents) positive |= !c.negated;
        // The fast pattern when the payload can hold it, else the longest literal that can be.
        for (const Content &c : contents)
            if (c.fast_pattern && !c.negated)
                if ((r = literal_rule(c))) break;
        if (!r)
            for (const Content &c : contents) {
                if (c.negated) continue;
                auto candidate = literal_rule(c);
                if (candidate && (!r || candidate->pattern.size() > r->pattern.size())) r = std::move(candidate);
            }
        if (r) {
            fill(*r, id, msg, severity, rl.proto, text, file, line);
            k.rule = std::move(*r);
        } else {
            k.outcome = positive || contents.empty() ? Outcome::NoContent : Outcome::NegatedOnly;
        }
        keep(id, std::move(k));
    }

    void keep(uint32_t id, Kept k) {
        ImportReport &rep = result.report;
        auto [it, fresh] = by_sid.emplace(id, Kept{});
        if (fresh) {
            it->second = std::move(k);
            return;
        }
        ++rep.skipped_duplicate_sid;
        if (k.rev > it->second.rev) {
            rep.details.push_back(fmt::format("{}: duplicate sid {}: rev {} replaced by rev {} at {}", it->second.where,
                                              id, it->second.rev, k.rev, k.where));
            it->second = std::move(k);
        } else {
            rep.details.push_back(fmt::format("{}: duplicate sid {} (first at {})", k.where, id, it->second.where));
        }
    }

    // The warpmatch literal of one content, or nothing when the payload
    // cannot hold it: bytes, case and, when they describe the raw payload,
    // offset and depth.
    static std::optional<Rule> literal_rule(const Content &c) {
        const BufferKind kind = kind_of(c.buffer);
        if (kind == BufferKind::Derived || c.derived) return std::nullopt;
        Rule r;
        r.pattern = c.bytes;
        r.nocase = c.nocase || kind == BufferKind::Lowercased;
        bool keep_position = !c.offset_unknown && kind == BufferKind::Payload;
        // A chop that selects no byte (`fast_pattern:1,0`, an offset past the
        // end) is one Suricata refuses; the whole content, which every match
        // contains, stays a sound prefilter. An empty one would make YAML the
        // loader rejects (found by tests/fuzz/fuzz_ids_import).
        bool to_content_end = true;
        if (c.chopped && c.chop_offset < c.bytes.size() && c.chop_length > 0) {
            r.pattern = c.bytes.substr(c.chop_offset, c.chop_length);
            keep_position = false; // offset/depth describe the whole content
            to_content_end = c.chop_offset + r.pattern.size() == c.bytes.size();
        }
        // dotprefix puts a '.' before the buffer: a plain name (an SNI) has
        // none on the wire; in a DNS name it stands for the first label's length.
        if (c.dotprefix && kind != BufferKind::DnsName && !r.pattern.empty() && r.pattern[0] == '.')
            r.pattern.erase(0, 1);
        if (kind == BufferKind::DnsName) r.pattern = dns_wire_literal(r.pattern, c.endswith && to_content_end);
        if (kind == BufferKind::DnString) r.pattern = longest_dn_value(r.pattern);
        if (r.pattern.empty()) return std::nullopt;
        if (keep_position && c.offset && *c.offset <= kMaxOffsetDepth) {
            r.offset = static_cast<uint32_t>(*c.offset);
        } else if (c.offset && *c.offset != 0) {
            keep_position = false; // without the offset, depth would be too tight
        }
        if (keep_position && c.depth && !c.depth_unknown && *c.depth <= kMaxOffsetDepth &&
            *c.depth >= r.pattern.size())
            r.depth = static_cast<uint32_t>(*c.depth);
        return r;
    }

    static void fill(Rule &r, uint32_t id, const std::string &msg, int severity, const std::string &proto,
                     const std::string &text, const std::string &file, unsigned line) {
        r.id = id;
        r.msg = msg.empty() ? fmt::format("sid {}", id) : msg;
        r.severity = severity;
        r.protocol = map_protocol(proto);
        r.pattern_text = encode_pattern(r.pattern);
        r.source = text;
        r.where = SourceLocation{file, line, 0};
    }

    // The rules kept, in sid order, and the counts of what each became.
    void finish() {
        ImportReport &rep = result.report;
        std::set<std::pair<std::string, bool>> patterns;
        for (auto &[id, k] : by_sid) {
            switch (k.outcome) {
            case Outcome::NoContent: ++rep.skipped_no_content; break;
            case Outcome::NegatedOnly: ++rep.skipped_negated_only; break;
            case Outcome::Imported:
                patterns.emplace(k.rule.pattern, k.rule.nocase);
                ++rep.rules_imported;
                result.rules.rules.push_back(std::move(k.rule));
                break;
            }
        }
        rep.distinct_patterns = patterns.size();
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
            // A comment ends at its line, backslash or not (as Suricata reads a rules file).
            if (text.empty() && !t.empty() && t[0] == '#') {
                classify(t, path, start);
                continue;
            }
            if (!t.empty() && t.back() == '\\') { // continuation: the next line is joined at the backslash
                const size_t cut = line.find_last_of('\\');
                text += line.substr(0, cut); // the whole rule is trimmed once joined
                continue;
            }
            text += text.empty() ? t : line;
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
    imp.finish(); // sid order
    imp.result.rules.name = files.size() == 1 ? files[0] : fmt::format("{} IDS rule files", files.size());
    return std::move(imp.result);
}

} // namespace wm::rules
