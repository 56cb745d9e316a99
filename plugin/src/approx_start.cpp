#include "approx_start.h"

#include <algorithm>

namespace wm {
namespace {

inline uint8_t fold(uint8_t c, bool nocase) { return nocase && c >= 'A' && c <= 'Z' ? c + 32 : c; }

// A cell: the fewest edits of an alignment ending here, and of those the
// latest start. Better = fewer edits, then a later start; the start travels
// unchanged along a path, so keeping each cell's best pair keeps the best
// of every path through it.
struct Cell {
    uint32_t cost, start;
};
inline Cell better(Cell a, Cell b) { return a.cost != b.cost ? (a.cost < b.cost ? a : b) : (a.start >= b.start ? a : b); }

} // namespace

std::vector<uint32_t> approx_match_starts(const uint8_t *payload, uint32_t n, const std::string &pattern,
                                          bool nocase, uint32_t k, uint32_t min_start) {
    std::vector<uint32_t> starts(size_t{n} + 1, kNoApproxStart);
    if (min_start > n) return starts;
    const size_t m = pattern.size();
    std::vector<uint8_t> p(m);
    for (size_t i = 0; i < m; ++i) p[i] = fold(static_cast<uint8_t>(pattern[i]), nocase);
    // Column j: row i aligns the pattern's first i bytes to a text ending at j.
    std::vector<Cell> col(m + 1);
    for (size_t i = 0; i <= m; ++i) col[i] = {static_cast<uint32_t>(i), min_start}; // deletions only
    if (col[m].cost <= k) starts[min_start] = min_start;
    for (uint32_t j = min_start + 1; j <= n; ++j) {
        const uint8_t t = fold(payload[j - 1], nocase);
        Cell diag = col[0]; // column j - 1, row i - 1
        col[0] = {0, j};    // an alignment may start at any byte
        for (size_t i = 1; i <= m; ++i) {
            const Cell up = col[i]; // column j - 1, row i: payload byte j - 1 inserted
            Cell c = {diag.cost + (p[i - 1] != t), diag.start};
            c = better(c, {up.cost + 1, up.start});
            c = better(c, {col[i - 1].cost + 1, col[i - 1].start}); // pattern byte i - 1 deleted
            diag = up;
            col[i] = c;
        }
        if (col[m].cost <= k) starts[j] = col[m].start;
    }
    return starts;
}

} // namespace wm
