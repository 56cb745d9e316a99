// tests/gpu/wide_case.h - pieces of the test cases that need the blob's
// 32-bit states (the only ones with spare flag bits: one-byte literals,
// covered steps, case columns): literals, keys that push a group past 16,384
// states, the compile options those tests share, the CPU walk's tile and
// chunk configurations, and the GPU matcher checked in every mode.
#pragma once

#include "gpu/ac_compile.h"
#include "gpu/ac_cpu_walk.h"
#include "gpu/gpu_matcher.h"
#include "reference.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

namespace wm::gpu::test {

inline Literal literal(std::string b, bool nocase, uint32_t offset = 0, uint32_t depth = 0) {
    Literal l;
    l.bytes = std::move(b);
    l.nocase = nocase;
    l.offset = offset;
    l.depth = depth;
    return l;
}

// 2,200 keys of 8-16 letters c-r, half nocase: over 16,384 states (32-bit
// states) from bytes the tests' payloads never hold.
inline void add_wide_state_keys(std::mt19937 &rng, std::vector<Literal> &pats) {
    const std::string keys = "cdefghijklmnopqr";
    for (uint32_t i = 0; i < 2200; ++i) {
        std::string s(8 + rng() % 9, 'c');
        for (char &ch : s) ch = keys[rng() % keys.size()];
        pats.push_back(literal(s, rng() % 2));
    }
}

// Keys of 16 bytes, as the matcher's; dense_budget 0 walks sparse states.
inline AcBlob compile_wide(const Case &c, size_t dense_budget = 24u << 20, bool covered_steps = true,
                           bool case_columns = false) {
    AcCompileOptions co;
    co.key_bytes = 16;
    co.dense_budget_bytes = dense_budget;
    co.covered_steps = covered_steps;
    co.case_columns = case_columns;
    return compile_ac(c.pats, co);
}

// Class c's one-byte literals in the blob's list (ac_blob.h), sorted.
inline std::vector<uint32_t> listed_literals(const AcGroupView &g, uint32_t c) {
    std::vector<uint32_t> ids;
    if (g.one_byte_lits)
        for (uint32_t k = g.one_byte_lits[c]; k < g.one_byte_lits[c + 1]; ++k)
            ids.push_back(g.one_byte_lits[kMaxOneByteClasses + 1 + k]);
    return ids;
}

// Calls body(options, label) for CPU walks over tiles of 52, 5 and 1 bytes
// and chunks of 64 MB or of 97 bytes and 3 payloads: tiny tiles and chunks
// put literals on tile and piece boundaries (a continuation's warm-up must
// not report).
template <typename Body> void for_each_walk_config(Body body) {
    for (uint32_t tile : {52u, 5u, 1u})
        for (size_t chunk : {size_t{64} << 20, size_t{97}}) {
            CpuWalkOptions o;
            o.tile_bytes = tile;
            o.max_chunk_bytes = chunk;
            o.max_chunk_payloads = chunk == 97 ? 3 : 1u << 20;
            body(o, "tile " + std::to_string(tile) + " chunk " + std::to_string(chunk));
        }
}

// The CPU walk of `blob` over c, in every configuration above: Positions
// equal the naive matcher's `ref` (sorted by sort_matches), Set its pairs.
inline void expect_cpu_walk_gives(const AcBlob &blob, const Case &c, const std::vector<Match> &ref,
                                  const std::string &label) {
    const auto want = distinct_pairs(ref);
    for_each_walk_config([&](CpuWalkOptions o, const std::string &config) {
        const std::string at = label + " " + config;
        std::vector<Match> pos, set;
        cpu_walk_scan(blob, c.view(), pos, o);
        sort_matches(pos);
        EXPECT_TRUE(pos == ref) << at;
        o.set_semantics = true;
        cpu_walk_scan(blob, c.view(), set, o);
        EXPECT_EQ(distinct_pairs(set), want) << at;
    });
}

// The matcher's Positions, Set (sorted, distinct) and Count of c against the
// naive matcher's `ref` (sorted by sort_matches).
inline void expect_every_mode(GpuMatcher &m, const Case &c, const std::vector<Match> &ref, const std::string &at) {
    std::vector<Match> pos, set;
    m.scan(c.view(), OutputMode::Positions, pos);
    sort_matches(pos);
    EXPECT_TRUE(pos == ref) << at;
    m.scan(c.view(), OutputMode::Set, set);
    EXPECT_TRUE(set_sorted_distinct(set)) << at;
    const auto want = dedup_set(ref);
    EXPECT_TRUE(set == want) << at << ": " << set.size() << " keys, want " << want.size() << "; " << m.describe();
    std::vector<uint64_t> counts, hist(c.pats.size());
    m.count(c.view(), counts);
    for (const Match &x : ref) ++hist[x.pattern];
    EXPECT_TRUE(counts == hist) << at;
}

} // namespace wm::gpu::test
