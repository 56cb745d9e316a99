#include "compiled_ruleset.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace wm {

// Each literal becomes a regex of \xHH escapes. Hyperscan 5.4's literal API
// (hs_compile_lit_multi) is not used: on real traffic with the ET Open set
// its literal-mode runtime fails with HS_UNKNOWN_ERROR (intel/hyperscan#303).
// offset/depth are applied exactly in the match callback: a literal's start
// is end - length.
std::string hs_escape_bytes(const std::string &bytes) {
    static const char hex[] = "0123456789abcdef";
    std::string re;
    re.reserve(bytes.size() * 4);
    for (unsigned char c : bytes) {
        re += "\\x";
        re += hex[c >> 4];
        re += hex[c & 15];
    }
    return re;
}

namespace {

// Compiles expression i = regexes[i] with flags[i], ids[i] and, when exts is
// not empty, exts[i]. A rejection that Hyperscan pins on one expression names
// its rule, rules[rule_of[i]], as the loader's diagnostics do.
hs_database_t *compile_or_name_rule(const std::vector<std::string> &regexes, const std::vector<unsigned> &flags,
                                    const std::vector<unsigned> &ids, const std::vector<hs_expr_ext_t> &exts,
                                    const std::vector<rules::Rule> &rules, const std::vector<size_t> &rule_of,
                                    const char *kind) {
    if (regexes.empty())
        return nullptr;
    std::vector<const char *> exprs;
    std::vector<const hs_expr_ext_t *> ext_ptrs;
    for (size_t i = 0; i < regexes.size(); ++i) {
        exprs.push_back(regexes[i].c_str());
        if (!exts.empty())
            ext_ptrs.push_back(&exts[i]);
    }
    hs_database_t *db = nullptr;
    hs_compile_error_t *err = nullptr;
    hs_error_t rc = hs_compile_ext_multi(exprs.data(), flags.data(), ids.data(),
                                         ext_ptrs.empty() ? nullptr : ext_ptrs.data(),
                                         static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK, nullptr, &db, &err);
    if (rc != HS_SUCCESS) {
        std::string msg = err ? err->message : "unknown error";
        int expr = err ? err->expression : -1;
        hs_free_compile_error(err);
        if (expr >= 0 && static_cast<size_t>(expr) < rule_of.size()) {
            const auto &r = rules[rule_of[expr]];
            throw rules::RuleError({rules::Diagnostic{
                r.where, r.id, fmt::format("Hyperscan rejected the {}: {}", kind, msg)}});
        }
        throw std::runtime_error(fmt::format("Hyperscan compile failed: {}", msg));
    }
    return db;
}

hs_database_t *compile_literals(const std::vector<rules::Rule> &rules) {
    std::vector<std::string> regexes;
    std::vector<unsigned> flags, ids;
    std::vector<size_t> rule_of;
    regexes.reserve(rules.size());
    for (size_t i = 0; i < rules.size(); ++i) {
        if (!CompiledRuleSet::is_literal(rules[i]))
            continue; // compile_approximate has the approximate ones; align rules need none
        regexes.push_back(hs_escape_bytes(rules[i].pattern));
        flags.push_back(rules[i].nocase ? HS_FLAG_CASELESS : 0);
        ids.push_back(static_cast<unsigned>(i));
        rule_of.push_back(i);
    }
    return compile_or_name_rule(regexes, flags, ids, {}, rules, rule_of, "pattern");
}

} // namespace

hs_database_t *compile_approximate(const std::vector<rules::Rule> &rules) {
    std::vector<std::string> regexes;
    std::vector<unsigned> flags, ids;
    std::vector<hs_expr_ext_t> exts;
    std::vector<size_t> rule_of;
    for (size_t i = 0; i < rules.size(); ++i) {
        const rules::Rule &r = rules[i];
        if (!CompiledRuleSet::is_approximate(r))
            continue;
        regexes.push_back(hs_escape_bytes(r.pattern));
        flags.push_back(r.nocase ? HS_FLAG_CASELESS : 0);
        ids.push_back(static_cast<unsigned>(ids.size()));
        rule_of.push_back(i);
        hs_expr_ext_t ext{};
        if (r.max_edits) {
            ext.flags = HS_EXT_FLAG_EDIT_DISTANCE;
            ext.edit_distance = *r.max_edits;
        } else {
            ext.flags = HS_EXT_FLAG_HAMMING_DISTANCE;
            ext.hamming_distance = *r.max_mismatches;
        }
        exts.push_back(ext);
    }
    return compile_or_name_rule(regexes, flags, ids, exts, rules, rule_of, "approximate pattern");
}

CompiledRuleSet::CompiledRuleSet(rules::RuleSet rs) : rs_(std::move(rs)) {
    std::sort(rs_.rules.begin(), rs_.rules.end(),
              [](const rules::Rule &a, const rules::Rule &b) { return a.id < b.id; });
    bool any_pattern = false;
    scope_.reserve(rs_.rules.size());
    for (size_t i = 0; i < rs_.rules.size(); ++i) {
        index_.emplace(rs_.rules[i].id, i);
        const rules::Rule &r = rs_.rules[i];
        scope_.push_back({static_cast<uint32_t>(scope_ports_.size()),
                          static_cast<uint32_t>(scope_ports_.size() + r.ports.size()), wire_protocol(r)});
        scope_ports_.insert(scope_ports_.end(), r.ports.begin(), r.ports.end());
        constrained_ = constrained_ || r.protocol != rules::Protocol::Any || !r.ports.empty();
        approximate_ += is_approximate(rs_.rules[i]) ? 1 : 0;
        alignment_ += is_alignment(rs_.rules[i]) ? 1 : 0;
        if (is_alignment(rs_.rules[i]))
            continue; // no pattern
        size_t n = rs_.rules[i].pattern.size();
        min_len_ = any_pattern ? std::min(min_len_, n) : n;
        max_len_ = std::max(max_len_, n);
        any_pattern = true;
    }
    db_.reset(compile_literals(rs_.rules));
    approx_db_.reset(compile_approximate(rs_.rules));
    hash_ = rules::content_hash(rs_);
    eve_alert_.reserve(rs_.rules.size());
    for (const auto &r : rs_.rules) {
        nlohmann::ordered_json a;
        a["action"] = "allowed";
        a["gid"] = 1;
        a["signature_id"] = r.id;
        a["rev"] = 0;
        a["signature"] = r.msg;
        a["severity"] = r.severity;
        eve_alert_.push_back(a.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
}

long CompiledRuleSet::index_of(uint32_t id) const {
    auto it = index_.find(id);
    return it == index_.end() ? -1 : static_cast<long>(it->second);
}

uint8_t CompiledRuleSet::wire_protocol(const rules::Rule &r) {
    return r.protocol == rules::Protocol::Tcp   ? WM_PROTO_TCP
           : r.protocol == rules::Protocol::Udp ? WM_PROTO_UDP
                                                : 0;
}

bool CompiledRuleSet::applies(const rules::Rule &r, const wm_payload_meta_t &meta) {
    return scope_applies(wire_protocol(r), r.ports.data(), r.ports.data() + r.ports.size(), meta);
}

} // namespace wm
