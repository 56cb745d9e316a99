// gpu/align/align_types.cpp - score validation, overlap bound, CIGAR helpers.
#include "gpu/align/align_types.h"

#include <algorithm>

namespace wm::align {

int ScoreParams::max_score() const {
    if (matrix.empty()) return match;
    return *std::max_element(matrix.begin(), matrix.end());
}

void ScoreParams::validate() const {
    if (!matrix.empty() && matrix.size() != 65536)
        throw std::invalid_argument("score matrix must have 256*256 entries, has " +
                                    std::to_string(matrix.size()));
    if (matrix.empty() && (match <= 0 || match > 127))
        throw std::invalid_argument("match must be in 1..127, is " + std::to_string(match));
    if (matrix.empty() && (mismatch > 0 || mismatch < -127))
        throw std::invalid_argument("mismatch must be in -127..0, is " + std::to_string(mismatch));
    if (!matrix.empty() && max_score() <= 0)
        throw std::invalid_argument("score matrix has no positive entry");
    if (gap_open < 0) throw std::invalid_argument("gap_open must be >= 0");
    if (gap_extend < 1) throw std::invalid_argument("gap_extend must be >= 1");
    if (gap_open + gap_extend > 4096) throw std::invalid_argument("gap_open + gap_extend must be <= 4096");
}

uint64_t span_bound(size_t m, const ScoreParams &p, int32_t score) {
    const long long spare = (long long)m * p.max_score() - p.gap_open - std::max<long long>(score, 0);
    return m + (spare > 0 ? (uint64_t)(spare / p.gap_extend) : 0) + 1;
}

uint64_t exact_overlap(size_t m, const ScoreParams &p) { return span_bound(m, p, 0); }

uint64_t traceback_window_for(unsigned round, size_t m, const ScoreParams &p, int32_t score, uint64_t first_min) {
    const uint64_t cap = span_bound(m, p, score);
    const uint64_t least = (uint64_t)std::max(score, 0) / (uint64_t)std::max(p.max_score(), 1);
    uint64_t w = std::max<uint64_t>({first_min, 2 * least + 32, 1});
    for (unsigned r = 0; r < round && w < cap; ++r) w *= 4;
    return std::min(w, cap);
}

std::string cigar_from_reversed_ops(const char *ops, int n) {
    std::string out;
    int k = n - 1;
    while (k >= 0) {
        const char c = ops[k];
        int run = 0;
        while (k >= 0 && ops[k] == c) {
            ++run;
            --k;
        }
        out += std::to_string(run);
        out += c;
    }
    return out;
}

long long score_of_cigar(const std::string &cigar, const uint8_t *q, size_t qn, uint32_t qb,
                         const uint8_t *d, size_t dn, uint64_t db, const ScoreParams &p) {
    constexpr long long kBad = -1000000000LL;
    long long s = 0;
    size_t i = qb, j = db;
    size_t pos = 0;
    while (pos < cigar.size()) {
        size_t len = 0;
        while (pos < cigar.size() && cigar[pos] >= '0' && cigar[pos] <= '9') len = len * 10 + (cigar[pos++] - '0');
        if (pos >= cigar.size() || len == 0) return kBad;
        const char op = cigar[pos++];
        if (op == '=' || op == 'X') {
            for (size_t k = 0; k < len; ++k, ++i, ++j) {
                if (i >= qn || j >= dn) return kBad;
                if ((q[i] == d[j]) != (op == '=')) return kBad;
                s += p.score(q[i], d[j]);
            }
        } else if (op == 'I' || op == 'D') {
            s -= p.gap_open + (long long)len * p.gap_extend;
            (op == 'I' ? i : j) += len;
            if (i > qn || j > dn) return kBad;
        } else {
            return kBad;
        }
    }
    return s;
}

} // namespace wm::align
