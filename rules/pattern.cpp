// rules/pattern.cpp - the pattern mini-language: literal bytes, Snort-style
// |41 42| hex runs and a few backslash escapes. Errors report a 0-based
// offset into the text so the loader can point the column inside the pattern.
#include "rules/rule.h"

#include <fmt/format.h>

namespace wm::rules {
namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Printable ASCII for display in messages; anything else as \xHH.
std::string show_char(char c) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string(1, c);
    return fmt::format("\\x{:02X}", u);
}

bool fail(std::string *error, size_t *column, size_t at, std::string msg) {
    if (error) *error = std::move(msg);
    if (column) *column = at;
    return false;
}

// Decodes the hex run starting after the '|' at text[open]; on success sets
// *end to the index of the closing '|'.
bool decode_hex_run(const std::string &text, size_t open, std::string &out, size_t *end,
                    std::string *error, size_t *column) {
    size_t i = open + 1;
    size_t bytes = 0;
    while (i < text.size() && text[i] != '|') {
        char c = text[i];
        if (c == ' ' || c == '\t') { // separators only between whole bytes
            ++i;
            continue;
        }
        int hi = hex_value(c);
        if (hi < 0)
            return fail(error, column, i,
                        fmt::format("non-hex digit '{}' in hex run", show_char(c)));
        if (i + 1 >= text.size())
            return fail(error, column, open, "unterminated hex run (no closing '|')");
        if (text[i + 1] == '|' || text[i + 1] == ' ' || text[i + 1] == '\t')
            return fail(error, column, i, "odd number of hex digits in hex run");
        int lo = hex_value(text[i + 1]);
        if (lo < 0)
            return fail(error, column, i + 1,
                        fmt::format("non-hex digit '{}' in hex run", show_char(text[i + 1])));
        out.push_back(static_cast<char>(hi * 16 + lo));
        ++bytes;
        i += 2;
    }
    if (i >= text.size())
        return fail(error, column, open, "unterminated hex run (no closing '|')");
    if (bytes == 0) return fail(error, column, open, "empty hex run '||'");
    *end = i;
    return true;
}

} // namespace

std::optional<std::string> decode_pattern(const std::string &text, std::string *error,
                                          size_t *column) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '|') {
            size_t end = 0;
            if (!decode_hex_run(text, i, out, &end, error, column)) return std::nullopt;
            i = end;
        } else if (c == '\\') {
            if (i + 1 >= text.size()) {
                fail(error, column, i, "trailing backslash");
                return std::nullopt;
            }
            char e = text[i + 1];
            switch (e) {
            case '\\': out.push_back('\\'); break;
            case '|': out.push_back('|'); break;
            case '"': out.push_back('"'); break;
            case 'n': out.push_back('\n'); break;
            case 'r': out.push_back('\r'); break;
            case 't': out.push_back('\t'); break;
            case 'x': {
                int hi = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
                int lo = i + 3 < text.size() ? hex_value(text[i + 3]) : -1;
                if (hi < 0 || lo < 0) {
                    fail(error, column, i, "\\x needs two hex digits");
                    return std::nullopt;
                }
                out.push_back(static_cast<char>(hi * 16 + lo));
                i += 2;
                break;
            }
            default:
                fail(error, column, i, fmt::format("unknown escape '\\{}'", show_char(e)));
                return std::nullopt;
            }
            ++i;
        } else {
            out.push_back(c);
        }
    }
    return out;
}

std::string encode_pattern(const std::string &bytes) {
    std::string out;
    bool in_run = false;
    for (char c : bytes) {
        auto u = static_cast<unsigned char>(c);
        bool plain = u >= 0x20 && u < 0x7f && c != '|' && c != '\\' && c != '"';
        if (plain) {
            if (in_run) out.push_back('|');
            in_run = false;
            out.push_back(c);
        } else {
            out += in_run ? fmt::format(" {:02X}", u) : fmt::format("|{:02X}", u);
            in_run = true;
        }
    }
    if (in_run) out.push_back('|');
    return out;
}

} // namespace wm::rules
