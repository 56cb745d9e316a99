// gpu/exact/exact_pattern.cpp - period, duel prefix and witnesses from the Z
// function; KMP and brute force for the CPU baselines.
#include "gpu/exact/exact_pattern.h"

#include <stdexcept>

namespace wm::gpu::exact {

std::vector<uint32_t> z_function(const uint8_t *s, uint32_t len) {
    std::vector<uint32_t> z(len, 0);
    if (len == 0) return z;
    z[0] = len;
    uint32_t l = 0, r = 0; // [l, r) = rightmost segment matching a prefix
    for (uint32_t k = 1; k < len; ++k) {
        uint32_t v = k < r ? std::min(r - k, z[k - l]) : 0;
        while (k + v < len && s[v] == s[k + v]) ++v;
        z[k] = v;
        if (k + v > r) l = k, r = k + v;
    }
    return z;
}

static uint32_t smallest_period(const std::vector<uint32_t> &z) {
    const uint32_t len = static_cast<uint32_t>(z.size());
    for (uint32_t d = 1; d < len; ++d)
        if (d + z[d] == len) return d;
    return len;
}

PreparedPattern prepare_pattern(const std::string &pattern, bool nocase) {
    if (pattern.empty()) throw std::invalid_argument("exact matcher: empty pattern");
    if (pattern.size() > 65535)
        throw std::invalid_argument("exact matcher: pattern longer than 65535 bytes (" +
                                    std::to_string(pattern.size()) + ")");
    PreparedPattern pp;
    pp.nocase = nocase;
    pp.bytes = pattern;
    if (nocase)
        for (auto &c : pp.bytes) c = static_cast<char>(fold_byte(static_cast<uint8_t>(c)));
    const auto *p = reinterpret_cast<const uint8_t *>(pp.bytes.data());
    const uint32_t m = pp.m();
    pp.period = smallest_period(z_function(p, m));
    // A prefix of length 2p-1 of a string with smallest period p has smallest
    // period p (Fine and Wilf), so it is non-periodic and has witnesses for
    // every shift below p.
    pp.duel_length = pp.periodic() ? 2 * pp.period - 1 : m;
    const auto z = z_function(p, pp.duel_length);
    pp.span = smallest_period(z);
    pp.witness.assign(pp.span, 0);
    for (uint32_t d = 1; d < pp.span; ++d) pp.witness[d] = static_cast<uint16_t>(d + z[d]);
    return pp;
}

PatternView PreparedPattern::view() const {
    return PatternView{reinterpret_cast<const uint8_t *>(bytes.data()), witness.data(), m(), span,
                       nocase ? 1u : 0u};
}

uint64_t PreparedPattern::max_occurrences(uint64_t n) const {
    return n < m() ? 0 : (n - m()) / period + 1;
}

std::vector<uint32_t> kmp_failure(const std::string &pattern) {
    const uint32_t m = static_cast<uint32_t>(pattern.size());
    std::vector<uint32_t> f(m + 1, 0); // f[k] = longest proper border of P[0, k)
    uint32_t b = 0;
    for (uint32_t k = 1; k < m; ++k) {
        while (b > 0 && pattern[k] != pattern[b]) b = f[b];
        if (pattern[k] == pattern[b]) ++b;
        f[k + 1] = b;
    }
    return f;
}

void kmp_search(const uint8_t *text, uint64_t n, const std::string &pattern,
                const std::vector<uint32_t> &f, std::vector<uint32_t> &positions) {
    const uint32_t m = static_cast<uint32_t>(pattern.size());
    const auto *p = reinterpret_cast<const uint8_t *>(pattern.data());
    uint32_t q = 0;
    for (uint64_t i = 0; i < n; ++i) {
        while (q > 0 && text[i] != p[q]) q = f[q];
        if (text[i] == p[q]) ++q;
        if (q == m) {
            positions.push_back(static_cast<uint32_t>(i + 1 - m));
            q = f[q];
        }
    }
}

std::vector<uint32_t> brute_search(const uint8_t *text, uint64_t n, const std::string &pattern,
                                   bool nocase) {
    std::vector<uint32_t> out;
    const uint32_t m = static_cast<uint32_t>(pattern.size());
    if (m == 0 || n < m) return out;
    for (uint64_t i = 0; i + m <= n; ++i) {
        uint32_t k = 0;
        for (; k < m; ++k) {
            uint8_t a = text[i + k], b = static_cast<uint8_t>(pattern[k]);
            if (nocase) a = fold_byte(a), b = fold_byte(b);
            if (a != b) break;
        }
        if (k == m) out.push_back(static_cast<uint32_t>(i));
    }
    return out;
}

} // namespace wm::gpu::exact
