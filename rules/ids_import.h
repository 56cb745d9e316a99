// rules/ids_import.h - Suricata / Snort 3 rule files -> warpmatch rules.
//
// Each enabled rule with at least one positive content becomes one warpmatch
// rule carrying its prefilter literal: the fast_pattern content, else the
// longest. Everything else of the source rule is kept in Rule::source.
#pragma once

#include "rules/rule.h"

#include <string>
#include <vector>

namespace wm::rules {

struct ImportReport {
    size_t rules_read = 0;      // rule lines seen, enabled and disabled
    size_t rules_disabled = 0;  // commented-out rules
    size_t rules_imported = 0;
    size_t distinct_patterns = 0; // distinct (bytes, nocase)
    size_t skipped_no_content = 0;
    size_t skipped_negated_only = 0;
    size_t skipped_parse_error = 0;
    size_t skipped_duplicate_sid = 0;
    std::vector<std::string> details; // "file:line: reason"
};

struct ImportResult {
    RuleSet rules;
    ImportReport report;
};

// Throws std::runtime_error naming the file when a file cannot be read.
ImportResult import_ids_rules(const std::vector<std::string> &files);

} // namespace wm::rules
