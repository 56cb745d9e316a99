// gpu/approx/prefilter.h - the pigeonhole route: a pattern matched with at most
// k edits (or mismatches) contains at least one of k + 1 disjoint pieces
// exactly, so an exact matcher over the pieces finds every candidate, and only
// a window around each piece hit needs the bit-parallel verification.
//
// Windows (piece at pattern offset o, exact hit at payload [s, s + l)):
//   Levenshtein: [s - o - k, s - o + m + k)   (prefix/suffix absorb <= k edits)
//   Hamming:     [s - o, s - o + m)
// clipped to the payload; overlapping windows of one (pattern, payload) are
// merged. Verifying a window reports ends in (lo, hi] with the distance of the
// best substring starting at or after lo: never below the true distance, and
// equal to it for the best alignment (it contains a piece, whose window
// contains the alignment), so the union over windows equals the direct route.
#pragma once

#include "gpu/approx/kdiff.h"

#include <cstdint>
#include <vector>

namespace wm::approx {

struct Piece {
    uint32_t pattern;
    uint32_t offset; // in the pattern
    uint32_t length;
};

struct PieceHit {
    uint32_t piece;
    uint32_t payload;
    uint32_t end; // exclusive end of the exact piece occurrence
};

struct Window {
    uint32_t pattern;
    uint32_t payload;
    uint32_t lo, hi;
};

// Whether the pigeonhole holds for p: k + 1 disjoint pieces, none empty,
// need m > k. Hamming takes k >= m too, and then every m-byte window
// matches whether or not any piece occurs: such a pattern is for the direct
// route only.
inline bool prefilter_covers(const ApproxPattern &p) { return p.k < p.bytes.size(); }

// k + 1 pieces per pattern, lengths floor/ceil(m / (k + 1)), in pattern order.
// Throws KdiffPatternError for a pattern that !prefilter_covers().
std::vector<Piece> pigeonhole_pieces(const std::vector<ApproxPattern> &patterns);

// Windows sorted by (pattern, payload, lo), merged. `offsets`: the batch's.
std::vector<Window> candidate_windows(const std::vector<ApproxPattern> &patterns,
                                      const std::vector<Piece> &pieces,
                                      std::vector<PieceHit> hits, const uint32_t *offsets);

// CPU prefilter route end to end (naive exact piece search + kdiff_cpu_window),
// the reference the GPU prefilter route is tested against.
void prefilter_cpu_scan(const KdiffBlob &blob, const PayloadBatch &batch,
                        std::vector<ApproxMatch> &out);

} // namespace wm::approx
