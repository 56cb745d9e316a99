#include "reference_matcher.h"

namespace wm {

namespace {
uint8_t fold(uint8_t c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

bool equal_at(const uint8_t *text, const std::string &pat, bool nocase) {
    for (size_t k = 0; k < pat.size(); ++k) {
        uint8_t a = text[k], b = static_cast<uint8_t>(pat[k]);
        if (nocase ? fold(a) != fold(b) : a != b)
            return false;
    }
    return true;
}
} // namespace

void ReferenceMatcher::scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) {
    std::vector<Match> found;
    for (size_t p = 0; p < batch.count; ++p) {
        const uint8_t *text = batch.payload(p);
        uint32_t n = batch.payload_len(p);
        for (size_t r = 0; r < rules_.size(); ++r) {
            const auto &rule = rules_[r];
            if (!CompiledRuleSet::is_literal(rule))
                continue; // exact literals only; tests/approx and tests/align have DP references
            uint32_t len = static_cast<uint32_t>(rule.pattern.size());
            for (uint32_t s = rule.offset; s + len <= n; ++s) {
                if (rule.depth != 0 && s + len > rule.offset + rule.depth)
                    break;
                if (equal_at(text + s, rule.pattern, rule.nocase))
                    found.push_back(Match{static_cast<uint32_t>(r), static_cast<uint32_t>(p), s,
                                          s + len});
            }
        }
    }
    if (mode == WM_OUTPUT_SET)
        to_set(found);
    out.insert(out.end(), found.begin(), found.end());
}

} // namespace wm
