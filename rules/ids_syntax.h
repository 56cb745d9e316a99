// rules/ids_syntax.h - lexical layer of the Suricata / Snort 3 importer:
// split a rule line into header and options, and decode content strings.
// Internal to the rules library.
#pragma once

#include <string>
#include <vector>

namespace wm::rules::ids {

struct Option {
    std::string name;  // e.g. "content", "nocase"
    std::string value; // text after the first ':', trimmed, escapes kept
};

struct RuleLine {
    std::string action;              // alert, drop, ...
    std::string proto;               // header protocol ("any" for Snort 3 `alert (...)`)
    std::vector<Option> options;
};

// True for Suricata and Snort 3 rule actions.
bool is_action(const std::string &word);

// Parses `action proto src sport -> dst dport (opt; opt; ...)`, the Snort 3
// service form `action proto (...)` and `action (...)`. On failure returns
// false with a reason in *error.
bool parse_rule_line(const std::string &line, RuleLine *out, std::string *error);

// Splits on sep outside double-quoted values; a backslash escapes the next
// byte (so `\;` and `\"` never split or end a string). A quote opens a
// string only at the start of a value. Pieces are trimmed.
std::vector<std::string> split_unquoted(const std::string &s, char sep);

// Given text starting with '"', finds the closing unescaped quote. Returns
// its index or std::string::npos.
size_t closing_quote(const std::string &s);

// Decodes a content string body (between the quotes): |41 42| hex runs and
// backslash escapes of any byte (`\"` `\;` `\\` `\:`).
bool decode_content(const std::string &body, std::string *bytes, std::string *error);

// Body of a quoted option value with backslash escapes removed (msg:"...").
std::string unquote(const std::string &value);

std::string trim(const std::string &s);

} // namespace wm::rules::ids
