// gpu/align/sw_emulate.cpp - lane-by-lane emulation of the wavefront warp and a
// sequential run of the row-parallel passes.
#include "gpu/align/sw_emulate.h"

#include "gpu/align/sw_hd.h"
#include "gpu/align/sw_reference.h"
#include "gpu/align/sw_tuning.h"

#include <algorithm>
#include <stdexcept>

namespace wm::align {

using namespace detail;

namespace {

template <class L, int R, class Scorer>
void emulate_group(const std::vector<uint16_t> &qcodes, const uint8_t *db, const Section *secs,
                   const Scorer &score, const ScoreParams &p, WavefrontEmulation &out, size_t first_sec) {
    using T = typename L::T;
    constexpr int W = L::kWidth;
    T h[32][R], e[32][R], diag[32];
    uint32_t q[32][R];
    for (int t = 0; t < 32; ++t) {
        diag[t] = 0;
        for (int r = 0; r < R; ++r) {
            h[t][r] = 0;
            e[t][r] = L::kNeg;
            q[t][r] = W == 2 ? qcodes[t * R + r] * 0x10001u : qcodes[t * R + r];
        }
    }
    uint64_t len = 0;
    for (int k = 0; k < W; ++k) len = std::max(len, secs[k].end - secs[k].begin);
    T oh[32] = {}, of[32] = {}, ocm[32] = {};
    uint32_t od[32] = {};
    const T neg_ge = L::splat(-p.gap_extend), neg_gsge = L::splat(-p.gap_open - p.gap_extend);
    const int limit = 32767 - p.max_score();
    int seen_max[2] = {0, 0};
    for (uint64_t s = 0; s + 1 < len + 32; ++s) {
        T nh[32], nf[32], ncm[32];
        uint32_t nd[32];
        for (int t = 0; t < 32; ++t) {
            const long long c = (long long)s - t;
            if (c < 0 || (uint64_t)c >= len) continue;
            T up_h, up_f, cm;
            uint32_t d;
            if (t == 0) {
                up_h = 0;
                up_f = neg_gsge; // F[0][c] = max(-inf, H[-1][c] - Gs) - Ge
                cm = 0;
                d = 0;
                for (int k = 0; k < W; ++k) {
                    const uint64_t col = secs[k].begin + c;
                    d |= (col < secs[k].end ? db[col] : kDbPad) << (16 * k);
                }
            } else {
                up_h = oh[t - 1];
                up_f = of[t - 1];
                cm = ocm[t - 1];
                d = od[t - 1];
            }
            wavefront_column<L, R>(h[t], e[t], q[t], d, up_h, up_f, diag[t], cm, neg_ge, neg_gsge, score);
            nh[t] = up_h;
            nf[t] = up_f;
            ncm[t] = cm;
            nd[t] = d;
            if (t == 31)
                for (int k = 0; k < W; ++k) {
                    const int v = L::get(cm, k);
                    seen_max[k] = std::max(seen_max[k], v);
                    const uint64_t col = secs[k].begin + c;
                    if (col >= secs[k].own_begin && col < secs[k].end) out.colmax[col] = v;
                }
        }
        std::copy(nh, nh + 32, oh);
        std::copy(nf, nf + 32, of);
        std::copy(ncm, ncm + 32, ocm);
        std::copy(nd, nd + 32, od);
    }
    if (W == 2)
        for (int k = 0; k < W; ++k)
            if (seen_max[k] >= limit) out.overflow[first_sec + k] = 1;
}

template <class L, int R>
void emulate_all(const uint8_t *query, size_t m, const uint8_t *db, const std::vector<Section> &secs,
                 const ScoreParams &p, WavefrontEmulation &out) {
    const std::vector<uint16_t> qc = pad_query(query, m, 32 * R);
    for (size_t k = 0; k < secs.size(); k += L::kWidth) {
        if (p.matrix.empty())
            emulate_group<L, R>(qc, db, &secs[k], MatchScorer<L>::make(p.match, p.mismatch), p, out, k);
        else
            emulate_group<L, R>(qc, db, &secs[k], MatrixScorer<L>{p.matrix.data()}, p, out, k);
    }
}

} // namespace

WavefrontEmulation emulate_wavefront(const uint8_t *query, size_t m, const uint8_t *db, size_t n,
                                     const std::vector<Section> &sections, const ScoreParams &p, bool lanes32,
                                     int rows_per_lane) {
    p.validate();
    if (m > 32u * rows_per_lane) throw std::invalid_argument("query longer than 32 * rows_per_lane");
    WavefrontEmulation out;
    out.colmax.assign(n, -1);
    out.overflow.assign(sections.size(), 0);
    if (!lanes32 && sections.size() % 2) throw std::invalid_argument("16-bit lanes need an even section count");
    if (rows_per_lane == tuning::kRowsSmall) {
        if (lanes32) emulate_all<Lanes32, tuning::kRowsSmall>(query, m, db, sections, p, out);
        else emulate_all<Lanes16x2, tuning::kRowsSmall>(query, m, db, sections, p, out);
    } else if (rows_per_lane == tuning::kRowsLarge) {
        if (lanes32) emulate_all<Lanes32, tuning::kRowsLarge>(query, m, db, sections, p, out);
        else emulate_all<Lanes16x2, tuning::kRowsLarge>(query, m, db, sections, p, out);
    } else {
        throw std::invalid_argument("rows_per_lane must be 8 or 32");
    }
    return out;
}

std::vector<int32_t> emulate_row_parallel(const uint8_t *q, size_t m, const uint8_t *d, size_t n,
                                          const ScoreParams &p) {
    p.validate();
    const int gs = p.gap_open, ge = p.gap_extend;
    std::vector<int32_t> hprev(n, 0), f(n, -(1 << 29)), ht(n), a(n), h(n), colmax(n, 0);
    for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < n; ++j) { // pass 1: F and H~ from the previous row
            f[j] = rowpar_f(f[j], hprev[j], gs, ge);
            ht[j] = rowpar_htilde(j ? hprev[j - 1] : 0, p.score(q[i], d[j]), f[j]);
            a[j] = ht[j] + (int32_t)j * ge;
        }
        int32_t run = -(1 << 29); // pass 2: exclusive max-scan of A
        for (size_t j = 0; j < n; ++j) {
            const int32_t et = run - (int32_t)j * ge;
            run = std::max(run, a[j]);
            h[j] = rowpar_h(ht[j], et, gs); // pass 3
            colmax[j] = std::max(colmax[j], h[j]);
        }
        hprev.swap(h);
    }
    return colmax;
}

namespace {

// Lanes run from the last to the first so each reads its upper neighbour's
// last row of the previous step, as the kernel's shuffles (and, across warps,
// its shared-memory hand-off) do.
template <int R>
Hit trace_warp(const uint8_t *query, size_t m, const uint8_t *db, uint64_t win_begin, uint64_t end_col,
               const ScoreParams &p) {
    const int w = (int)(end_col - win_begin + 1);
    const uint8_t *win = db + win_begin;
    auto score = [&](uint32_t q, uint32_t d) {
        if (!p.matrix.empty()) return MatrixScorer<Lanes32>::one(p.matrix.data(), q, d);
        return q == d ? p.match : p.mismatch;
    };
    constexpr int kNeg = -(1 << 29);
    const int lanes = trace_lanes((uint32_t)m);
    std::vector<uint8_t> dirs((size_t)w * lanes * R);
    struct Lane {
        int h[R], e[R];
        uint32_t q[R];
    };
    std::vector<Lane> lane(lanes);
    std::vector<int> diag(lanes), bot_h(lanes), bot_f(lanes);
    for (int t = 0; t < lanes; ++t) {
        for (int r = 0; r < R; ++r) {
            const size_t row = (size_t)t * R + r;
            lane[t].q[r] = row < m ? query[row] : kQueryPad;
            lane[t].h[r] = 0;
            lane[t].e[r] = kNeg;
        }
        diag[t] = 0;
        bot_h[t] = 0;
        bot_f[t] = kNeg;
    }
    int best = 0, best_row = 0;
    for (int st = 0; st < w + lanes - 1; ++st)
        for (int t = lanes - 1; t >= 0; --t) {
            const int j = st - t;
            if (j < 0 || j >= w) continue;
            int up_h = t ? bot_h[t - 1] : 0, up_f = t ? bot_f[t - 1] : kNeg;
            uint8_t d[R];
            Lane &l = lane[t];
            trace_column<R>(l.h, l.e, l.q, win[j], up_h, up_f, diag[t], d, p.gap_open, p.gap_extend, score);
            bot_h[t] = up_h;
            bot_f[t] = up_f;
            std::copy(d, d + R, dirs.begin() + ((size_t)j * lanes + t) * R);
        }
    for (size_t i = 0; i < m; ++i) { // end column, first row on ties
        const int v = lane[i / R].h[i % R];
        if (v > best) best = v, best_row = (int)i;
    }
    return hit_from_directions(WarpDirs{dirs.data(), lanes, R}, best, (size_t)best_row, m, win_begin, end_col);
}

} // namespace

Hit emulate_traceback(const uint8_t *query, size_t m, const uint8_t *db, uint64_t win_begin, uint64_t end_col,
                      const ScoreParams &p) {
    if (m == 0 || m > (size_t)tuning::kMaxQueryRows) throw std::invalid_argument("emulate_traceback: m must be 1..1024");
    switch (trace_rows_per_lane((uint32_t)m)) {
    case 1: return trace_warp<1>(query, m, db, win_begin, end_col, p);
    case 2: return trace_warp<2>(query, m, db, win_begin, end_col, p);
    case 4: return trace_warp<4>(query, m, db, win_begin, end_col, p);
    default: return trace_warp<8>(query, m, db, win_begin, end_col, p);
    }
}

} // namespace wm::align
