// tests/exact/test_exact_cpu.cpp - the duel plan walked on the CPU (same
// exact_hd.h logic as the kernels) vs brute force, KMP and Hyperscan.
#include "gpu/exact/exact_cpu.h"
#include "exact_reference.h"

#include <gtest/gtest.h>

using namespace wm::gpu::exact;
using namespace wm::gpu::exact::test;

namespace {

void check_all_peers(const TextCase &c) {
    const PreparedPattern pp = prepare_pattern(c.pattern, c.nocase);
    const auto brute = brute_search(u8(c.text), c.text.size(), c.pattern, c.nocase);
    const auto duel = duel_search_cpu(u8(c.text), c.text.size(), pp.view());
    ASSERT_EQ(duel, brute) << c.label << " " << (pp.periodic() ? "periodic" : "aperiodic");
    ASSERT_EQ(hyperscan_search(c.text, c.pattern, c.nocase), brute) << c.label << ": hyperscan";
    if (!c.nocase) {
        std::vector<uint32_t> kmp;
        kmp_search(u8(c.text), c.text.size(), c.pattern, kmp_failure(c.pattern), kmp);
        ASSERT_EQ(kmp, brute) << c.label << ": kmp";
    }
    ASSERT_LE(brute.size(), pp.max_occurrences(c.text.size())) << c.label;
}

TEST(ExactCpu, RandomCasesAgreeWithBruteKmpHyperscan) {
    for (uint64_t seed = 100; seed < 400; ++seed) check_all_peers(random_case(seed));
}

TEST(ExactCpu, NocaseAgreesWithHyperscan) {
    for (uint64_t seed = 500; seed < 560; ++seed) {
        TextCase c = random_case(seed);
        std::mt19937_64 rng(seed);
        for (auto &ch : c.text)
            if (rng() % 2 && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 32);
        c.nocase = true;
        c.label += " nocase";
        check_all_peers(c);
    }
}

TEST(ExactCpu, EdgeSizes) {
    std::mt19937_64 rng(3);
    for (size_t m : {1u, 2u, 7u, 500u, 1000u}) {
        const std::string p = random_bytes(rng, m, 4);
        // m = n (text is the pattern), m > n, n = 0, n = m + 1
        check_all_peers({p, p, "m=n m=" + std::to_string(m)});
        check_all_peers({p.substr(0, m - 1), p, "m>n m=" + std::to_string(m)});
        check_all_peers({"", p, "n=0"});
        check_all_peers({p + p.substr(0, 1), p, "n=m+1"});
    }
}

// Occurrences straddling every group and tile boundary, at both text ends,
// and overlapping runs of periodic patterns (all-'a' text: every position).
TEST(ExactCpu, BoundariesAndOverlaps) {
    std::mt19937_64 rng(11);
    for (size_t m : {1u, 3u, 8u, 9u, 33u, 256u, 257u, 1000u}) {
        for (int kind = 0; kind < 3; ++kind) {
            const std::string p = kind == 0 ? random_bytes(rng, m, 3)
                                            : kind == 1 ? periodic_pattern(rng, m, std::max<size_t>(1, m / 3), 3)
                                                        : std::string(m, 'a');
            std::string text = random_bytes(rng, 3 * 8192 + m, 3);
            for (size_t b : {size_t{8}, size_t{256}, size_t{8192}, size_t{16384}})
                for (size_t at = b; at + m <= text.size(); at += b)
                    for (long dx : {-1L, 0L, 1L}) plant(text, p, std::min(text.size() - m, at + dx - m / 2));
            plant(text, p, 0);
            plant(text, p, text.size() - m);
            check_all_peers({text, p, "boundaries m=" + std::to_string(m) + " kind=" + std::to_string(kind)});
            check_all_peers({std::string(2 * 8192 + 5, 'a'), std::string(m, 'a'), "all-a m=" + std::to_string(m)});
        }
    }
}

// The elimination stage leaves at most one survivor per group, and every
// occurrence is some group's survivor.
TEST(ExactCpu, OneSurvivorPerGroupCoversEveryOccurrence) {
    for (uint64_t seed = 900; seed < 960; ++seed) {
        const TextCase c = random_case(seed);
        const PreparedPattern pp = prepare_pattern(c.pattern, false);
        const auto surv = duel_survivors_cpu(u8(c.text), c.text.size(), pp.view());
        const DuelShape sh = duel_shape(pp.span);
        ASSERT_LE(sh.items * sh.lanes, pp.span) << c.label;
        for (uint32_t occ : brute_search(u8(c.text), c.text.size(), c.pattern, false))
            ASSERT_EQ(surv.at(occ / (sh.items * sh.lanes)), occ) << c.label;
    }
}

} // namespace
