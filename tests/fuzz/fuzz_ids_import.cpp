// tests/fuzz/fuzz_ids_import.cpp - the Suricata / Snort rule importer on
// arbitrary rule text. Properties: import never throws for a readable file;
// its report adds up; and the YAML `rules import` writes for what it
// imported loads back with every rule and the same patterns (the command's
// contract: its output is a valid rule file).
#include "rules/ids_import.h"
#include "tests/fuzz/fuzz_input.h"

#include <string>

using wm::fuzz::fail;
using wm::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string &path = wm::fuzz::write_scratch(data, size, ".rules");
    const wm::rules::ImportResult res = wm::rules::import_ids_rules({path});
    const wm::rules::ImportReport &r = res.report;
    require(r.rules_imported == res.rules.rules.size(), "rules_imported is not the rules returned");
    require(r.rules_imported + r.rules_disabled + r.skipped_no_content + r.skipped_negated_only +
                    r.skipped_parse_error + r.skipped_duplicate_sid ==
                r.rules_read,
            "the report's counts do not add up to the rules read");
    require(r.distinct_patterns <= r.rules_imported, "more distinct patterns than rules");
    if (res.rules.rules.empty()) return 0;
    const std::string yaml = wm::rules::to_yaml(res.rules);
    wm::rules::RuleSet back;
    try {
        back = wm::rules::load_rules_string(yaml, "imported.yaml");
    } catch (const std::exception &e) {
        fail(std::string("imported rules give YAML that does not load: ") + e.what() + "\n" + yaml);
    }
    require(back.rules.size() == res.rules.rules.size(), "the imported YAML loads with another rule count");
    for (size_t i = 0; i < back.rules.size(); ++i) {
        const auto &a = res.rules.rules[i], &b = back.rules[i];
        require(a.id == b.id && a.pattern == b.pattern && a.nocase == b.nocase && a.offset == b.offset &&
                    a.depth == b.depth && a.source == b.source,
                "rule " + std::to_string(a.id) + " changed through its YAML");
    }
    return 0;
}
