// tests/align/align_test_util.h - random sequences and checks shared by the align suites.
#pragma once

#include "gpu/align/align_types.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace wm::align::test {

// Random bytes over the first `alphabet` letters of "ACGT..." (alphabet 0 = all 256 bytes).
inline std::vector<uint8_t> random_seq(std::mt19937 &rng, size_t n, int alphabet = 4) {
    static const char kDna[] = "ACGTNRYKMSWBDHV";
    std::vector<uint8_t> s(n);
    std::uniform_int_distribution<int> pick(0, alphabet ? alphabet - 1 : 255);
    for (auto &c : s) c = alphabet ? (uint8_t)kDna[pick(rng)] : (uint8_t)pick(rng);
    return s;
}

// Copies of a query planted (with mutations) into a database, so top-K has real alignments.
inline void plant(std::mt19937 &rng, std::vector<uint8_t> &db, const std::vector<uint8_t> &q, int copies) {
    if (db.size() <= q.size() + 2) return;
    std::uniform_int_distribution<size_t> at(0, db.size() - q.size() - 1);
    std::uniform_int_distribution<int> pct(0, 99);
    for (int k = 0; k < copies; ++k) {
        size_t p = at(rng);
        for (size_t i = 0; i < q.size() && p < db.size(); ++i) {
            const int r = pct(rng);
            if (r < 5) continue;            // deletion from the copy
            if (r < 10) db[p++] = 'A';      // insertion
            if (p < db.size()) db[p++] = r < 15 ? 'C' : q[i];
        }
    }
}

// A query whose best alignment jumps a long database insertion: halves A, B of
// `half` bytes each planted as A + (gap bytes 'Z', which match nothing) + B.
// With match 10 and a gap of 1700 the jump (score 10 * 2 * half - 8 - 1700)
// beats either half alone.
struct LongGapCase {
    std::vector<uint8_t> query, db;
    ScoreParams params;
};
inline LongGapCase long_gap_case(std::mt19937 &rng, size_t half = 200, size_t gap = 1700) {
    LongGapCase c;
    c.params.match = 10;
    c.query = random_seq(rng, 2 * half);
    c.db = random_seq(rng, 3000);
    c.db.insert(c.db.end(), c.query.begin(), c.query.begin() + half);
    const std::vector<uint8_t> insertion(gap, 'Z');
    c.db.insert(c.db.end(), insertion.begin(), insertion.end());
    c.db.insert(c.db.end(), c.query.begin() + half, c.query.end());
    const auto tail = random_seq(rng, 3000);
    c.db.insert(c.db.end(), tail.begin(), tail.end());
    return c;
}

// Every traceback field is consistent: CIGAR re-scores to the score and ends where claimed.
inline void expect_valid_alignment(const Hit &h, const std::vector<uint8_t> &q, const uint8_t *db, size_t n,
                                   const ScoreParams &p) {
    if (h.score == 0) return;
    ASSERT_FALSE(h.cigar.empty()) << "score " << h.score;
    EXPECT_EQ(score_of_cigar(h.cigar, q.data(), q.size(), h.query_begin, db, n, h.db_begin, p), h.score)
        << "cigar " << h.cigar << " q[" << h.query_begin << "," << h.query_end << ") d[" << h.db_begin << ","
        << h.db_end << ")";
    long long qi = 0, dj = 0;
    size_t pos = 0;
    while (pos < h.cigar.size()) {
        long long len = 0;
        while (isdigit((unsigned char)h.cigar[pos])) len = len * 10 + (h.cigar[pos++] - '0');
        const char op = h.cigar[pos++];
        if (op != 'D') qi += len;
        if (op != 'I') dj += len;
    }
    EXPECT_EQ(h.query_begin + qi, (long long)h.query_end);
    EXPECT_EQ((long long)h.db_begin + dj, (long long)h.db_end);
}

} // namespace wm::align::test
