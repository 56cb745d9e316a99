#include "approx_start.h"

#include <algorithm>
#include <vector>

namespace wm {
namespace {

inline uint8_t fold(uint8_t c, bool nocase) { return nocase && c >= 'A' && c <= 'Z' ? c + 32 : c; }

} // namespace

std::optional<uint32_t> approx_match_start(const uint8_t *payload, uint32_t end, const std::string &pattern,
                                           bool nocase, uint32_t k, uint32_t min_start) {
    const uint64_t m = pattern.size();
    // A substring within k edits of m bytes is at least m - k and at most m + k long.
    const uint64_t reach = m + k;
    const uint32_t lo = std::max<uint64_t>(min_start, end > reach ? end - reach : 0);
    if (lo > end) return std::nullopt;
    const uint32_t span = end - lo;
    // Both read backwards from `end`: row i is the pattern's last i bytes,
    // column j the payload's j bytes before end, so row m, column j is the
    // distance of the whole pattern to payload[end - j, end).
    std::vector<uint32_t> prev(span + 1), cur(span + 1);
    for (uint32_t j = 0; j <= span; ++j) prev[j] = j;
    for (uint64_t i = 1; i <= m; ++i) {
        const uint8_t p = fold(static_cast<uint8_t>(pattern[m - i]), nocase);
        cur[0] = static_cast<uint32_t>(i);
        for (uint32_t j = 1; j <= span; ++j) {
            const uint32_t sub = prev[j - 1] + (fold(payload[end - j], nocase) != p);
            cur[j] = std::min({sub, prev[j] + 1, cur[j - 1] + 1});
        }
        std::swap(prev, cur);
    }
    uint32_t best = 0;
    for (uint32_t j = 1; j <= span; ++j)
        if (prev[j] < prev[best]) best = j; // strictly fewer edits: ties keep the shorter span
    if (prev[best] > k) return std::nullopt;
    return end - best;
}

} // namespace wm
