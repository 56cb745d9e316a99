// tests/fuzz/fuzz_rules_yaml.cpp - the YAML rule loader on arbitrary text.
// Properties:
// - the loader returns a rule set, or throws RuleError whose every
//   diagnostic names the file and says something;
// - the sliced parse (rules/sliced_load.cpp, forced on for any size) gives
//   exactly the whole-document parse's result or diagnostics;
// - a loaded set emits YAML that loads back to the same content hash, and
//   emitting that again gives the same text;
// - through the C API (load and compile: Hyperscan, the approximate and
//   align engines) the same text loads, or fails with diagnostics that name
//   the file.
#include "rules/loader_internal.h"
#include "rules/rule.h"
#include "tests/fuzz/fuzz_input.h"
#include "warpmatch.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

using wm::fuzz::fail;
using wm::fuzz::require;
namespace rules = wm::rules;

// A load's result: the rule set, or its diagnostics.
struct Outcome {
    std::optional<rules::RuleSet> rs;
    std::vector<std::string> diagnostics;
};

Outcome load(const std::string &yaml, size_t sliced_min_bytes) {
    rules::detail::set_parallel_rules_min_bytes(sliced_min_bytes);
    Outcome o;
    try {
        o.rs = rules::load_rules_string(yaml, "fuzz.yaml");
    } catch (const rules::RuleError &e) {
        require(!e.diagnostics().empty(), "a RuleError with no diagnostic");
        for (const auto &d : e.diagnostics()) {
            require(d.where.file == "fuzz.yaml", "a diagnostic that does not name the file: " + d.to_string());
            require(!d.message.empty(), "a diagnostic without a message: " + d.to_string());
            o.diagnostics.push_back(d.to_string());
        }
    }
    rules::detail::set_parallel_rules_min_bytes(0);
    return o;
}

// "" when both loads gave the same rules (every field the sliced load's
// tests compare, places in the file included) or the same diagnostics.
std::string difference(const Outcome &whole, const Outcome &sliced) {
    if (whole.rs.has_value() != sliced.rs.has_value())
        return whole.rs ? "the sliced parse failed: " + sliced.diagnostics.front()
                        : "the sliced parse loaded: " + whole.diagnostics.front();
    if (!whole.rs) return whole.diagnostics == sliced.diagnostics ? "" : "other diagnostics";
    const rules::RuleSet &a = *whole.rs, &b = *sliced.rs;
    if (rules::content_hash(a) != rules::content_hash(b) || a.rules.size() != b.rules.size())
        return "other rules";
    for (size_t i = 0; i < a.rules.size(); ++i) {
        const rules::Rule &x = a.rules[i], &y = b.rules[i];
        if (x.id != y.id || x.pattern_text != y.pattern_text || x.source != y.source ||
            x.where.line != y.where.line || x.where.column != y.where.column)
            return "rule " + std::to_string(x.id) + " differs";
    }
    return "";
}

void check_round_trip(const rules::RuleSet &rs) {
    const std::string out = rules::to_yaml(rs);
    rules::RuleSet back;
    try {
        back = rules::load_rules_string(out, "fuzz.yaml"); // same name: reference files resolve alike
    } catch (const std::exception &e) {
        fail(std::string("the emitted YAML of a loaded rule set does not load: ") + e.what() + "\n" + out);
    }
    require(back.rules.size() == rs.rules.size(), "emit/load changed the rule count\n" + out);
    require(rules::content_hash(back) == rules::content_hash(rs), "emit/load changed the content hash\n" + out);
    require(rules::to_yaml(back) == out, "emitting the reloaded set gave other text\n" + out);
}

void check_compile(const std::string &yaml, const rules::RuleSet &rs) {
    wm_ruleset_t *compiled = nullptr;
    wm_error_t *err = nullptr;
    const int rc = wm_ruleset_load_string(yaml.data(), yaml.size(), "fuzz.yaml", &compiled, &err);
    if (rc == WM_SUCCESS) {
        wm_ruleset_info_t info;
        wm_ruleset_info_init(&info);
        require(wm_ruleset_info(compiled, &info) == WM_SUCCESS && info.rules == rs.rules.size(),
                "the compiled set has another rule count");
    } else {
        require(err != nullptr && err->code == rc && err->count >= 1, "a failed compile without its error");
        for (size_t i = 0; i < err->count; ++i)
            require(std::string(err->diagnostics[i].file) == "fuzz.yaml",
                    std::string("a compile diagnostic that does not name the file: ") + err->message);
    }
    wm_ruleset_free(compiled);
    wm_error_free(err);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string yaml(reinterpret_cast<const char *>(data), size);
    const Outcome whole = load(yaml, SIZE_MAX);
    const std::string diff = difference(whole, load(yaml, 1));
    if (!diff.empty()) fail("sliced and whole parses differ: " + diff);
    if (!whole.rs) return 0;
    check_round_trip(*whole.rs);
    check_compile(yaml, *whole.rs);
    return 0;
}
