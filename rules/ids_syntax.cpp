// rules/ids_syntax.cpp - tokenizer for Suricata / Snort 3 rule lines.
//
// Only as much of the grammar as the prefilter needs: the header's action
// and protocol, and options split on ';' outside quotes. Backslash escapes
// are honored everywhere, so `content:"a\;b"` and `msg:"say \"hi\""` stay
// one option.
#include "rules/ids_syntax.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace wm::rules::ids {
namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// A quote starts a string only where a value starts (after ':', '!' or ','
// or at the start of a piece). Suricata itself splits on unescaped ';' and
// ignores quotes, so ET rules contain pcre:"/["']/" whose inner quote must
// not open a string that swallows the rest of the rule.
bool opens_value(const std::string &cur) {
    size_t i = cur.find_last_not_of(" \t");
    return i == std::string::npos || cur[i] == ':' || cur[i] == '!' || cur[i] == ',';
}

} // namespace

std::string trim(const std::string &s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

bool is_action(const std::string &word) {
    static const char *const kActions[] = {
        "alert", "drop", "pass", "reject", "rejectsrc", "rejectdst", "rejectboth", // Suricata
        "block", "log", "react", "rewrite"};                                    // Snort 3
    return std::any_of(std::begin(kActions), std::end(kActions),
                       [&](const char *a) { return word == a; });
}

std::vector<std::string> split_unquoted(const std::string &s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    bool in_quote = false;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '\\' && i + 1 < s.size()) {
            cur.push_back(c);
            cur.push_back(s[++i]);
        } else if (c == '"' && (in_quote || opens_value(cur))) {
            in_quote = !in_quote;
            cur.push_back(c);
        } else if (c == sep && !in_quote) {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur.push_back(c);
        }
    }
    if (!trim(cur).empty()) out.push_back(trim(cur)); // last ';' is optional
    return out;
}

size_t closing_quote(const std::string &s) {
    for (size_t i = 1; i < s.size(); ++i) {
        if (s[i] == '\\') ++i;
        else if (s[i] == '"') return i;
    }
    return std::string::npos;
}

bool decode_content(const std::string &body, std::string *bytes, std::string *error) {
    bytes->clear();
    bool in_hex = false;
    int nibble = -1; // pending high nibble inside a hex run
    for (size_t i = 0; i < body.size(); ++i) {
        char c = body[i];
        if (in_hex) {
            if (c == '|') {
                if (nibble >= 0) return *error = "odd number of hex digits in content", false;
                in_hex = false;
            } else if (c == ' ' || c == '\t') {
                if (nibble >= 0) return *error = "space inside a hex byte in content", false;
            } else if (int v = hex_value(c); v >= 0) {
                if (nibble < 0) {
                    nibble = v;
                } else {
                    bytes->push_back(static_cast<char>(nibble * 16 + v));
                    nibble = -1;
                }
            } else {
                return *error = std::string("non-hex digit '") + c + "' in content", false;
            }
        } else if (c == '|') {
            in_hex = true;
        } else if (c == '\\') {
            if (i + 1 >= body.size()) return *error = "trailing backslash in content", false;
            bytes->push_back(body[++i]);
        } else {
            bytes->push_back(c);
        }
    }
    if (in_hex) return *error = "unterminated hex run in content", false;
    return true;
}

std::string unquote(const std::string &value) {
    std::string v = trim(value);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '\\' && i + 1 < v.size()) ++i;
        out.push_back(v[i]);
    }
    return out;
}

bool parse_rule_line(const std::string &line, RuleLine *out, std::string *error) {
    size_t open = line.find('(');
    size_t close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open)
        return *error = "no option list in parentheses", false;
    if (!trim(line.substr(close + 1)).empty())
        return *error = "text after the closing ')'", false;

    std::istringstream hs(line.substr(0, open));
    std::vector<std::string> header;
    for (std::string tok; hs >> tok;) header.push_back(tok);
    if (header.empty() || !is_action(header[0]))
        return *error = "unknown rule action '" + (header.empty() ? "" : header[0]) + "'", false;
    out->action = header[0];
    if (header.size() == 7) {
        if (header[4] != "->" && header[4] != "<>")
            return *error = "bad direction '" + header[4] + "' (expected -> or <>)", false;
        out->proto = header[1];
    } else if (header.size() == 2) { // Snort 3 service rule: `alert http (...)`
        out->proto = header[1];
    } else if (header.size() == 1) { // Snort 3 `alert (...)`
        out->proto = "any";
    } else {
        return *error = "malformed header (expected action proto src sport -> dst dport)",
               false;
    }

    out->options.clear();
    for (const auto &piece : split_unquoted(line.substr(open + 1, close - open - 1), ';')) {
        if (piece.empty()) continue;
        size_t colon = piece.find(':');
        Option o;
        o.name = trim(piece.substr(0, colon));
        o.value = colon == std::string::npos ? std::string() : trim(piece.substr(colon + 1));
        out->options.push_back(std::move(o));
    }
    return true;
}

} // namespace wm::rules::ids
