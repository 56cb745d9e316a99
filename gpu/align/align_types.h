// gpu/align/align_types.h - score parameters and hits of Smith-Waterman search.
// Plain C++17, no CUDA headers.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace wm::align {

// Scores of the local alignment. A gap of length k costs gap_open + k * gap_extend
// (SEEDS.md §4). Defaults are the seed's worked example (SSCA #1): +5 / -3,
// Gs = 8, Ge = 1. When `matrix` is non-empty it must hold 256 * 256 entries,
// matrix[q * 256 + d] scoring query byte q against database byte d, and replaces
// match/mismatch.
//
// Score width: the production kernel computes in 16-bit lanes (two problems per
// 32-bit register); any section whose scores come within max_score of 32767 is
// detected and recomputed in 32-bit lanes, so results are always exact 32-bit
// scores.
struct ScoreParams {
    int match = 5;       // > 0, <= 127
    int mismatch = -3;   // <= 0, >= -127
    int gap_open = 8;    // Gs >= 0
    int gap_extend = 1;  // Ge >= 1; Gs + Ge <= 4096
    std::vector<int8_t> matrix; // empty, or 65536 entries (rows: query byte)

    int max_score() const;   // largest substitution score
    int score(uint8_t q, uint8_t d) const {
        return matrix.empty() ? (q == d ? match : mismatch) : matrix[q * 256u + d];
    }
    // Throws std::invalid_argument naming the bad field.
    void validate() const;
};

// Overlap between database sections that makes every section's values exact:
// a positive-scoring alignment of a query of length m spans at most
// m + (m * max_score - gap_open) / gap_extend database columns.
uint64_t exact_overlap(size_t query_len, const ScoreParams &p);

// Database columns an alignment scoring `score` can span: at most m aligned
// pairs, plus the database-gap bytes that the score left over can pay for,
// m + (m * max_score - gap_open - score) / gap_extend (+1). Never above
// exact_overlap().
uint64_t span_bound(size_t query_len, const ScoreParams &p, int32_t score);

// Traceback window of round r = 0, 1, ... for a hit scoring `score`: round 0
// is max(first_min, 2 * score / max_score + 32) columns, each later round 4x
// wider, capped at span_bound(). A window that scores less than the hit is
// retried one round wider; the capped round always holds the alignment.
uint64_t traceback_window_for(unsigned round, size_t query_len, const ScoreParams &p, int32_t score,
                              uint64_t first_min);

// One local alignment. Rows are query positions, columns database positions;
// ranges are half open. cigar uses '=' (match) 'X' (mismatch) 'I' (query
// byte against a gap) 'D' (database byte against a gap), run-length encoded.
struct Hit {
    int32_t score = 0;
    uint64_t db_end = 0;      // exclusive end column in the database (or payload)
    uint64_t db_begin = 0;
    uint32_t query_begin = 0, query_end = 0;
    std::string cigar;        // empty when traceback was not asked for
};

// Run-length encodes ops given end-first ("==X" read backwards) into a CIGAR.
std::string cigar_from_reversed_ops(const char *ops, int n);

// Score of an alignment described by a CIGAR at the given starts (-1e9 when the
// CIGAR does not fit the sequences): an oracle for traceback output.
long long score_of_cigar(const std::string &cigar, const uint8_t *query, size_t query_len,
                         uint32_t query_begin, const uint8_t *db, size_t db_len, uint64_t db_begin,
                         const ScoreParams &p);

} // namespace wm::align
