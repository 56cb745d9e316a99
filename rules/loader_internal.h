// rules/loader_internal.h - shared by loader.cpp (document level) and
// rule_fields.cpp (one rule). Not part of the public interface.
#pragma once

#include "rules/rule.h"

#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wm::rules::detail {

// Collects diagnostics for one file; positions come from yaml-cpp marks
// (0-based) and are stored 1-based.
struct LoadContext {
    std::string file;
    const std::string *text = nullptr; // raw YAML, to map pattern offsets to columns
    std::string base_dir;              // align reference_file paths are relative to it ("" = cwd)
    std::vector<Diagnostic> diags;
    // Where the parsed text starts in the file (a slice parsed on its own,
    // load_rules_string's parallel path): added to every mark.
    int line_offset = 0, pos_offset = 0;
    size_t bom = 0; // a byte order mark's bytes, which yaml-cpp's positions leave out

    // For the YAML `text` of file `name` (align paths relative to its directory).
    LoadContext(const std::string &name, const std::string &text);

    SourceLocation at(const YAML::Mark &m, size_t extra_columns = 0) const;
    void error(const YAML::Mark &m, int64_t rule_id, std::string message,
               size_t extra_columns = 0);
};

// Parses and validates one rule mapping. Returns nullopt when it has errors
// (already reported). *id_out is set when the id itself parsed, so duplicate
// checks still work for otherwise broken rules.
std::optional<Rule> parse_rule(const YAML::Node &node, LoadContext &ctx,
                               std::optional<uint32_t> *id_out, YAML::Mark *id_mark);

// Parses an `align:` value (rules/align_field.cpp) into *out; reports every
// problem against rule rid and returns false when there was one. key_mark is
// the `align` key, where missing sub-keys are reported.
bool parse_align(const YAML::Node &node, const YAML::Mark &key_mark, LoadContext &ctx, int64_t rid,
                 AlignSpec *out);

// Column offset of a scalar's first character inside the raw YAML text (0
// for plain scalars, 1 inside quotes), or nullopt when YAML escapes or
// folding make the source differ from the value. Lets pattern errors point
// at the offending byte.
std::optional<size_t> value_start(const YAML::Node &n, const LoadContext &ctx);

// Where an empty sequence item's `-` is: yaml-cpp marks a null node at the
// token after it (the next item, or past the end of the file). Other nodes,
// or a `-` not found right before the mark, keep the node's mark.
YAML::Mark item_mark(const YAML::Node &n, const LoadContext &ctx);

// The mark of byte `byte` of text t, whose first `bom` bytes are a byte order
// mark (yaml-cpp's positions leave it out).
YAML::Mark mark_of_byte(const std::string &t, size_t byte, size_t bom);

// "a sequence", "a mapping", "an empty value" or "a scalar", for messages.
const char *kind_name(const YAML::Node &n);

// Closest string in candidates within edit distance 2, or "".
std::string closest_key(const std::string &key, const std::vector<std::string> &candidates);

// Text of a scalar for messages, shortened to keep diagnostics one line.
std::string quote(const std::string &s);

// A mapping's entries by key name: (key node, value node).
using FieldMap = std::map<std::string, std::pair<YAML::Node, YAML::Node>>;

// Splits a mapping into its allowed keys. Unknown keys (with a "did you
// mean" hint), duplicate keys and non-scalar keys go to problem(key, message);
// `what` names the key kind in messages ("key", "align key").
FieldMap collect_fields(const LoadContext &ctx, const YAML::Node &mapping, const std::vector<std::string> &allowed,
                        const char *what,
                        const std::function<void(const YAML::Node &, std::string)> &problem);

// A large rule file parsed in slices on several threads (rules/sliced_load.cpp),
// or nullopt: the layout is not the plain block form warpmatch writes
// ("version: 1", then "rules:" and its items to the end), it is small, or
// any slice did not parse cleanly alone. Then the caller parses the whole
// document, which also gives every error exactly (file, line, rule id).
std::optional<RuleSet> load_sliced(const std::string &yaml, const std::string &name);

// Rule sequences at least this long (bytes of YAML) are parsed in slices on
// several threads; 0 restores the default (tests force both paths).
void set_parallel_rules_min_bytes(size_t bytes);

} // namespace wm::rules::detail
