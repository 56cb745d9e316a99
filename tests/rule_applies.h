// tests/rule_applies.h - whether a rule's protocol and ports take a payload,
// written out from docs/rules.md ("matches if the source or destination port
// is in the list") independently of the product's scope checks
// (CompiledRuleSet::applies, scope_applies), which the differential tests
// would otherwise share with the code they check.
#pragma once

#include "rules/rule.h"
#include "warpmatch.h"

namespace wm::test {

inline bool rule_applies(const rules::Rule &r, const wm_payload_meta_t &m) {
    if (r.protocol == rules::Protocol::Tcp && m.proto != WM_PROTO_TCP) return false;
    if (r.protocol == rules::Protocol::Udp && m.proto != WM_PROTO_UDP) return false;
    if (r.ports.empty()) return true;
    for (const rules::PortRange &p : r.ports)
        if ((m.src_port >= p.lo && m.src_port <= p.hi) || (m.dst_port >= p.lo && m.dst_port <= p.hi)) return true;
    return false;
}

} // namespace wm::test
