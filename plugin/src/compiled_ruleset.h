// Compiled rule set: the immutable result of loading a YAML file, shared
// read-only by every scanner (and thread). Holds the validated rules sorted
// by id, the Hyperscan database built from them, and the per-rule data the
// engines need. Engines refer to rules by index into rules().
#pragma once

#include "rules/rule.h"
#include "warpmatch.h"

#include <hs/hs.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace wm {

struct HsDatabaseDeleter {
    void operator()(hs_database_t *db) const { hs_free_database(db); }
};

// Hyperscan regex for a literal: every byte as \xHH (no regex metacharacter
// can survive, and no literal-API bug is reached; see compiled_ruleset.cpp).
std::string hs_escape_bytes(const std::string &bytes);

// Hyperscan database of the approximate rules among `rules` (extended
// parameters: edit or Hamming distance), expression id i = the i-th of them
// in `rules` order; null when there are none. Throws rules::RuleError naming
// the rule when Hyperscan rejects one (too long, k too large, too costly).
hs_database_t *compile_approximate(const std::vector<rules::Rule> &rules);

class CompiledRuleSet {
  public:
    // Throws rules::RuleError (a pattern Hyperscan rejects, with its rule) or
    // std::runtime_error (any other compile failure).
    explicit CompiledRuleSet(rules::RuleSet rs);

    const rules::RuleSet &ruleset() const { return rs_; }
    const std::vector<rules::Rule> &rules() const { return rs_.rules; }
    const hs_database_t *hs_database() const { return db_.get(); }
    // The approximate rules' database (compile_approximate), null when there
    // are none. Compiled here rather than per scanner so that loading, and
    // so `rules check`, fails on a pattern Hyperscan rejects.
    const hs_database_t *hs_approx_database() const { return approx_db_.get(); }
    uint64_t hash() const { return hash_; }
    // Three kinds of rules, each run by its own engines: align rules (an
    // `align:` reference, no pattern) by AlignEngine; rules with max_edits /
    // max_mismatches by ApproxEngine; all others are literals for Hyperscan
    // and the GPU automaton. The loader keeps the kinds disjoint.
    static bool is_alignment(const rules::Rule &r) { return r.align.has_value(); }
    static bool is_approximate(const rules::Rule &r) {
        return !is_alignment(r) && (r.max_edits || r.max_mismatches);
    }
    static bool is_literal(const rules::Rule &r) { return !is_alignment(r) && !is_approximate(r); }
    size_t approximate_rules() const { return approximate_; }
    size_t alignment_rules() const { return alignment_; }
    // Index of a rule id, or -1.
    long index_of(uint32_t id) const;
    // True when payload metadata satisfies the rule's protocol and ports.
    static bool applies(const rules::Rule &r, const wm_payload_meta_t &meta);
    // The same for rule index i, from a flat copy of every rule's protocol and
    // ports: the scanner asks once per match (hundreds of millions a GB in
    // positions mode), and a Rule is ~300 bytes with its ports on the heap.
    bool applies(size_t i, const wm_payload_meta_t &meta) const {
        const RuleScope &s = scope_[i];
        return scope_applies(s.protocol, scope_ports_.data() + s.port_begin, scope_ports_.data() + s.port_end, meta);
    }

    // Some rule has a protocol or ports (else every rule applies everywhere).
    bool constrained() const { return constrained_; }

    // The EVE `"alert":{...}` object of rule i, escaped once at load time.
    const std::string &eve_alert_json(size_t i) const { return eve_alert_[i]; }

    // Over the rules that have a pattern (literal and approximate; align
    // rules have none). 0 when there are none.
    size_t min_pattern_len() const { return min_len_; }
    size_t max_pattern_len() const { return max_len_; }

  private:
    // protocol: 0 (any) or the WM_PROTO_* the payload must have; ports
    // [begin, end), none: any port (either end of the flow may match).
    static bool scope_applies(uint8_t protocol, const rules::PortRange *begin, const rules::PortRange *end,
                              const wm_payload_meta_t &meta) {
        if (protocol != 0 && protocol != meta.proto)
            return false;
        if (begin == end)
            return true;
        for (const rules::PortRange *p = begin; p != end; ++p)
            if ((meta.src_port >= p->lo && meta.src_port <= p->hi) || (meta.dst_port >= p->lo && meta.dst_port <= p->hi))
                return true;
        return false;
    }
    static uint8_t wire_protocol(const rules::Rule &r);

    struct RuleScope {
        uint32_t port_begin, port_end; // [begin, end) in scope_ports_; empty: any port
        uint8_t protocol;              // 0: any, else the WM_PROTO_* the payload must have
    };

    rules::RuleSet rs_;
    std::vector<RuleScope> scope_;
    std::vector<rules::PortRange> scope_ports_;
    std::unique_ptr<hs_database_t, HsDatabaseDeleter> db_, approx_db_;
    std::unordered_map<uint32_t, size_t> index_;
    std::vector<std::string> eve_alert_;
    uint64_t hash_ = 0;
    size_t min_len_ = 0, max_len_ = 0;
    bool constrained_ = false;
    size_t approximate_ = 0;
    size_t alignment_ = 0;
};

} // namespace wm
