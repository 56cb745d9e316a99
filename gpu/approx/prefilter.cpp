// gpu/approx/prefilter.cpp - pieces and candidate windows (prefilter.h).
#include "gpu/approx/prefilter.h"

#include "gpu/approx/approx_hd.h"

#include <algorithm>
#include <tuple>

namespace wm::approx {

std::vector<Piece> pigeonhole_pieces(const std::vector<ApproxPattern> &patterns) {
    std::vector<Piece> pieces;
    for (uint32_t p = 0; p < patterns.size(); ++p) {
        if (!prefilter_covers(patterns[p]))
            throw KdiffPatternError(p, "the prefilter route cannot take k >= the pattern's length (every window "
                                       "matches, no piece need occur): use the direct route");
        const uint32_t m = static_cast<uint32_t>(patterns[p].bytes.size());
        const uint32_t parts = std::min(patterns[p].k + 1, m);
        for (uint32_t i = 0; i < parts; ++i) {
            const uint32_t lo = uint32_t(uint64_t{i} * m / parts);
            const uint32_t hi = uint32_t(uint64_t{i + 1} * m / parts);
            pieces.push_back(Piece{p, lo, hi - lo});
        }
    }
    return pieces;
}

std::vector<Window> candidate_windows(const std::vector<ApproxPattern> &patterns,
                                      const std::vector<Piece> &pieces,
                                      std::vector<PieceHit> hits, const uint32_t *offsets) {
    std::vector<Window> w;
    w.reserve(hits.size());
    for (const auto &h : hits) {
        const Piece &pc = pieces[h.piece];
        const auto &p = patterns[pc.pattern];
        const int64_t len = offsets[h.payload + 1] - offsets[h.payload];
        const int64_t m = static_cast<int64_t>(p.bytes.size());
        const int64_t s = int64_t{h.end} - pc.length; // piece start in the payload
        const int64_t k = p.metric == Metric::Hamming ? 0 : p.k;
        const int64_t lo = std::max<int64_t>(0, s - pc.offset - k);
        const int64_t hi = std::min<int64_t>(len, s - pc.offset + m + k);
        if (p.metric == Metric::Hamming && (s - pc.offset < 0 || s - pc.offset + m > len)) continue;
        if (hi > lo) w.push_back(Window{pc.pattern, h.payload, uint32_t(lo), uint32_t(hi)});
    }
    std::sort(w.begin(), w.end(), [](const Window &a, const Window &b) {
        return std::tie(a.pattern, a.payload, a.lo, a.hi) < std::tie(b.pattern, b.payload, b.lo, b.hi);
    });
    std::vector<Window> merged;
    for (const auto &x : w) {
        if (!merged.empty() && merged.back().pattern == x.pattern &&
            merged.back().payload == x.payload && x.lo <= merged.back().hi)
            merged.back().hi = std::max(merged.back().hi, x.hi);
        else
            merged.push_back(x);
    }
    return merged;
}

void prefilter_cpu_scan(const KdiffBlob &blob, const PayloadBatch &batch,
                        std::vector<ApproxMatch> &out) {
    const auto pieces = pigeonhole_pieces(blob.patterns);
    std::vector<PieceHit> hits;
    for (uint32_t pi = 0; pi < pieces.size(); ++pi) {
        const auto &pc = pieces[pi];
        const auto &pat = blob.patterns[pc.pattern];
        for (uint32_t i = 0; i < batch.count; ++i) {
            const uint8_t *d = batch.data + batch.offsets[i];
            const uint32_t len = batch.offsets[i + 1] - batch.offsets[i];
            for (uint32_t s = 0; s + pc.length <= len; ++s) {
                bool ok = true;
                for (uint32_t t = 0; t < pc.length && ok; ++t) {
                    const uint8_t a = d[s + t], b = uint8_t(pat.bytes[pc.offset + t]);
                    ok = pat.nocase ? fold_ascii(a) == fold_ascii(b) : a == b;
                }
                if (ok) hits.push_back(PieceHit{pi, i, s + pc.length});
            }
        }
    }
    for (const auto &w : candidate_windows(blob.patterns, pieces, std::move(hits), batch.offsets))
        kdiff_cpu_window(blob, w.pattern, batch.data + batch.offsets[w.payload], w.payload, w.lo,
                         w.hi, out);
}

} // namespace wm::approx
