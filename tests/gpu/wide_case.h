// tests/gpu/wide_case.h - pieces of the test cases that need the blob's
// 32-bit states (the only ones with spare flag bits: one-byte literals,
// covered steps): literals, keys that push a group past 16,384 states, and
// the compile options those tests share.
#pragma once

#include "gpu/ac_compile.h"
#include "reference.h"

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
inline AcBlob compile_wide(const Case &c, size_t dense_budget = 24u << 20, bool covered_steps = true) {
    AcCompileOptions co;
    co.key_bytes = 16;
    co.dense_budget_bytes = dense_budget;
    co.covered_steps = covered_steps;
    return compile_ac(c.pats, co);
}

} // namespace wm::gpu::test
