#include "compiled_ruleset.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wm {

namespace {

// All literal rules go through Hyperscan's literal API (no regex escaping,
// no regex compile cost). offset/depth are applied exactly in the match
// callback: a literal's start is end - length.
hs_database_t *compile_literals(const std::vector<rules::Rule> &rules) {
    if (rules.empty())
        return nullptr;
    std::vector<const char *> exprs;
    std::vector<size_t> lens;
    std::vector<unsigned> flags, ids;
    for (size_t i = 0; i < rules.size(); ++i) {
        exprs.push_back(rules[i].pattern.data());
        lens.push_back(rules[i].pattern.size());
        flags.push_back(rules[i].nocase ? HS_FLAG_CASELESS : 0);
        ids.push_back(static_cast<unsigned>(i));
    }
    hs_database_t *db = nullptr;
    hs_compile_error_t *err = nullptr;
    hs_error_t rc = hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(),
                                         static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK,
                                         nullptr, &db, &err);
    if (rc != HS_SUCCESS) {
        std::string msg = err ? err->message : "unknown error";
        int expr = err ? err->expression : -1;
        hs_free_compile_error(err);
        if (expr >= 0 && static_cast<size_t>(expr) < rules.size()) {
            const auto &r = rules[expr];
            throw rules::RuleError({rules::Diagnostic{
                r.where, r.id, fmt::format("Hyperscan rejected the pattern: {}", msg)}});
        }
        throw std::runtime_error(fmt::format("Hyperscan compile failed: {}", msg));
    }
    return db;
}

} // namespace

CompiledRuleSet::CompiledRuleSet(rules::RuleSet rs) : rs_(std::move(rs)) {
    std::sort(rs_.rules.begin(), rs_.rules.end(),
              [](const rules::Rule &a, const rules::Rule &b) { return a.id < b.id; });
    for (size_t i = 0; i < rs_.rules.size(); ++i) {
        index_.emplace(rs_.rules[i].id, i);
        size_t n = rs_.rules[i].pattern.size();
        min_len_ = i == 0 ? n : std::min(min_len_, n);
        max_len_ = std::max(max_len_, n);
    }
    std::vector<rules::Diagnostic> unsupported;
    for (const auto &r : rs_.rules)
        if (r.max_edits || r.max_mismatches)
            unsupported.push_back({r.where, r.id,
                                   "approximate rules (max_edits/max_mismatches) are not "
                                   "supported by this version's engines yet"});
    if (!unsupported.empty())
        throw rules::RuleError(std::move(unsupported));
    db_.reset(compile_literals(rs_.rules));
    hash_ = rules::content_hash(rs_);
}

long CompiledRuleSet::index_of(uint32_t id) const {
    auto it = index_.find(id);
    return it == index_.end() ? -1 : static_cast<long>(it->second);
}

bool CompiledRuleSet::applies(const rules::Rule &r, const wm_payload_meta_t &meta) {
    if (r.protocol == rules::Protocol::Tcp && meta.proto != WM_PROTO_TCP)
        return false;
    if (r.protocol == rules::Protocol::Udp && meta.proto != WM_PROTO_UDP)
        return false;
    if (r.ports.empty())
        return true;
    for (const auto &p : r.ports) {
        if ((meta.src_port >= p.lo && meta.src_port <= p.hi) ||
            (meta.dst_port >= p.lo && meta.dst_port <= p.hi))
            return true;
    }
    return false;
}

} // namespace wm
