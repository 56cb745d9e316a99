// gpu/align/sw_reference.cpp - plain CPU Gotoh reference.
#include "gpu/align/sw_reference.h"

#include "gpu/align/sw_hd.h"

#include <algorithm>

namespace wm::align {

using detail::CellIn;
using detail::CellOut;
using detail::sw_cell;

namespace {
constexpr int kNeg = -(1 << 29);
}

FullDp reference_full_dp(const uint8_t *q, size_t m, const uint8_t *d, size_t n, const ScoreParams &p) {
    p.validate();
    FullDp r;
    r.m = m;
    r.n = n;
    r.h.assign(m * n, 0);
    r.e.assign(m * n, kNeg);
    r.f.assign(m * n, kNeg);
    r.dir.assign(m * n, 0);
    for (size_t i = 0; i < m; ++i)
        for (size_t j = 0; j < n; ++j) {
            CellIn c;
            c.diag = (i && j) ? r.h[(i - 1) * n + j - 1] : 0;
            c.left_h = j ? r.h[i * n + j - 1] : 0;
            c.left_e = j ? r.e[i * n + j - 1] : kNeg;
            c.up_h = i ? r.h[(i - 1) * n + j] : 0;
            c.up_f = i ? r.f[(i - 1) * n + j] : kNeg;
            const CellOut o = sw_cell(c, p.score(q[i], d[j]), p.gap_open, p.gap_extend, q[i] == d[j]);
            r.h[i * n + j] = o.h;
            r.e[i * n + j] = o.e;
            r.f[i * n + j] = o.f;
            r.dir[i * n + j] = o.dir;
        }
    return r;
}

std::vector<int32_t> reference_column_maxima(const uint8_t *q, size_t m, const uint8_t *d, size_t n,
                                             const ScoreParams &p) {
    p.validate();
    std::vector<int32_t> colmax(n, 0), hp(n, 0), fp(n, kNeg), hc(n), fc(n);
    for (size_t i = 0; i < m; ++i) {
        int lh = 0, le = kNeg;
        for (size_t j = 0; j < n; ++j) {
            CellIn c{j ? hp[j - 1] : 0, lh, le, hp[j], fp[j]};
            const CellOut o = sw_cell(c, p.score(q[i], d[j]), p.gap_open, p.gap_extend, false);
            hc[j] = o.h;
            fc[j] = o.f;
            lh = o.h;
            le = o.e;
            colmax[j] = std::max(colmax[j], o.h);
        }
        hp.swap(hc);
        fp.swap(fc);
    }
    return colmax;
}

std::vector<Hit> reference_top_k(const std::vector<int32_t> &colmax, size_t k) {
    std::vector<uint64_t> cols;
    for (uint64_t j = 0; j < colmax.size(); ++j)
        if (colmax[j] > 0) cols.push_back(j);
    std::stable_sort(cols.begin(), cols.end(), [&](uint64_t a, uint64_t b) { return colmax[a] > colmax[b]; });
    if (cols.size() > k) cols.resize(k);
    std::vector<Hit> hits;
    for (uint64_t j : cols) {
        Hit h;
        h.score = colmax[j];
        h.db_end = j + 1;
        hits.push_back(h);
    }
    return hits;
}

Hit reference_traceback(const uint8_t *q, size_t m, const uint8_t *d, uint64_t win_begin, uint64_t end_col,
                        const ScoreParams &p) {
    const size_t w = end_col - win_begin + 1;
    const FullDp dp = reference_full_dp(q, m, d + win_begin, w, p);
    int best = 0;
    size_t best_i = 0;
    for (size_t i = 0; i < m; ++i)
        if (dp.h[i * w + w - 1] > best) {
            best = dp.h[i * w + w - 1];
            best_i = i;
        }
    auto dir = [&](int i, int j) { return dp.dir[(size_t)i * w + j]; };
    return hit_from_directions(dir, best, best_i, m, win_begin, end_col);
}

std::vector<Hit> reference_search(const uint8_t *q, size_t m, const uint8_t *d, size_t n, const ScoreParams &p,
                                  size_t k) {
    std::vector<Hit> hits = reference_top_k(reference_column_maxima(q, m, d, n, p), k);
    const uint64_t w = exact_overlap(m, p);
    for (Hit &h : hits) {
        const uint64_t end = h.db_end - 1;
        const uint64_t begin = end + 1 > w ? end + 1 - w : 0;
        h = reference_traceback(q, m, d, begin, end, p);
    }
    return hits;
}

} // namespace wm::align
