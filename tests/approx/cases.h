// tests/approx/cases.h - random (patterns, payloads) cases shared by the CPU
// and GPU suites: fixed seeds, small alphabets, planted mutated copies at the
// payload edges, payloads shorter than patterns, empty payloads.
#pragma once

#include "reference.h"

namespace wm::approx::test {

struct Case {
    std::vector<ApproxPattern> pats;
    OwnedBatch batch;
};

// max_m: longest pattern; hamming: share of Hamming patterns (0..1).
inline Case random_case(uint32_t seed, uint32_t npats, uint32_t max_m, uint32_t npayloads,
                        uint32_t max_len, double hamming = 0.3) {
    std::mt19937 rng(seed);
    const std::string alpha = (seed % 3 == 0) ? "ab" : (seed % 3 == 1) ? "acgt" : "abcdeABCDE";
    Case c;
    for (uint32_t i = 0; i < npats; ++i) {
        ApproxPattern p;
        const uint32_t m = std::uniform_int_distribution<uint32_t>(3, max_m)(rng);
        p.metric = std::bernoulli_distribution(hamming)(rng) ? Metric::Hamming : Metric::Levenshtein;
        const uint32_t kcap = p.metric == Metric::Hamming ? std::min<uint32_t>(7, m - 1)
                                                          : std::min<uint32_t>(m - 2, 8);
        p.k = std::uniform_int_distribution<uint32_t>(0, kcap)(rng);
        if (p.metric == Metric::Hamming && (m + 63) / 64 > 2) p.k = std::min<uint32_t>(p.k, 3);
        if (p.metric == Metric::Hamming && (m + 63) / 64 > 4) p.metric = Metric::Levenshtein;
        p.bytes = random_text(rng, m, alpha);
        if (rng() % 5 == 0) p.bytes = std::string(m, alpha[0]); // repeated characters
        p.nocase = rng() % 4 == 0;
        c.pats.push_back(p);
    }
    for (uint32_t i = 0; i < npayloads; ++i) {
        const uint32_t n = std::uniform_int_distribution<uint32_t>(0, max_len)(rng);
        std::string t = random_text(rng, n, alpha);
        if (!c.pats.empty() && n > 0 && rng() % 2) { // plant at the start or the end
            const auto &p = c.pats[rng() % c.pats.size()];
            std::string v = mutate(rng, p.bytes, p.k, alpha, p.metric == Metric::Hamming);
            if (v.size() <= n) {
                if (rng() % 2) t.replace(0, v.size(), v);
                else t.replace(n - v.size(), v.size(), v);
            }
        }
        c.batch.add(t);
    }
    return c;
}

} // namespace wm::approx::test
