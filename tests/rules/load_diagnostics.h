// tests/rules/load_diagnostics.h - what loading a YAML text reports.
#pragma once

#include "rules/rule.h"

#include <string>
#include <vector>

namespace wm::test {

// Every diagnostic of loading `yaml` as f.yaml, as text, or {} when it loads.
inline std::vector<std::string> load_diagnostics(const std::string &yaml) {
    try {
        rules::load_rules_string(yaml, "f.yaml");
    } catch (const rules::RuleError &e) {
        std::vector<std::string> out;
        for (const auto &d : e.diagnostics()) out.push_back(d.to_string());
        return out;
    }
    return {};
}

} // namespace wm::test
