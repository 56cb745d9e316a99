// tests/seed_ac/test_seed_ac_gpu.cpp - every seed_ac kernel variant against
// the CPU walk (same per-thread code: identical per-state visits) and the
// naive count, on random cases, edge sizes and automata that overflow the
// shared counters. Skips with a message without a usable device.
#include "gpu/seed_ac/seed_ac_cpu_walk.h"
#include "gpu/seed_ac/seed_ac_problem.h"
#include "gpu/seed_ac/seed_ac_variants.h"
#include "gpu/seed_ac/seed_ac_walk.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#if WARPMATCH_HAVE_CUDA
#include "gpu/seed_ac/seed_ac_cuda_check.h"
#include "gpu/seed_ac/seed_ac_gpu.h"
#include "gpu/seed_ac/seed_ac_tuning.h"
#endif

namespace {

using namespace wm::seed_ac;

#define SEED_AC_REQUIRE_GPU()                                                                      \
    do {                                                                                           \
        std::string why_;                                                                          \
        if (!gpu_usable(0, &why_)) GTEST_SKIP() << "seed_ac GPU tests skipped: " << why_;         \
    } while (0)

TEST(SeedAcGpu, UsableReportsAReason) {
    std::string why;
    if (!gpu_usable(0, &why)) EXPECT_FALSE(why.empty());
    EXPECT_FALSE(gpu_usable(-1, &why));
    EXPECT_FALSE(why.empty());
}

#if WARPMATCH_HAVE_CUDA

template <class T>
struct Dev {
    T *p = nullptr;
    explicit Dev(size_t n) { SEED_AC_CHECK(cudaMalloc(reinterpret_cast<void **>(&p), n * sizeof(T) + 1)); }
    ~Dev() { cudaFree(p); }
};

std::vector<uint32_t> to_host(const uint32_t *d, size_t n) {
    std::vector<uint32_t> h(n);
    SEED_AC_CHECK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
    return h;
}

// Runs every variant on one case; compares visits with cpu_walk and
// per-pattern counts with the naive count (when `naive` is set).
void check_case(int c, int n, int m, uint64_t len, uint64_t seed, bool naive) {
    SCOPED_TRACE(::testing::Message() << "C=" << c << " N=" << n << " M=" << m << " L=" << len << " seed=" << seed);
    const auto pats = random_patterns(n, m, c, seed);
    const auto text = random_text(len, c, seed + 1);
    const int bits = bits_for_alphabet(c);
    const auto host8 = pack_text(text, 8), hostp = pack_text(text, bits);
    const Automaton ins = build_automaton(pats, c, StateOrder::kInsertion);
    const Automaton bfs = build_automaton(pats, c, StateOrder::kBreadthFirst);
    const std::vector<uint64_t> want = naive ? naive_counts(text, pats) : std::vector<uint64_t>{};

    const uint64_t w8 = text_words(len, 8), wp = text_words(len, bits);
    Dev<uint32_t> bytes(w8), packed(wp), visits(ins.num_states);
    Dev<int32_t> next_ins(ins.next.size()), next_bfs(bfs.next.size());
    SEED_AC_CHECK(cudaMemcpy(next_ins.p, ins.next.data(), ins.table_bytes(), cudaMemcpyHostToDevice));
    SEED_AC_CHECK(cudaMemcpy(next_bfs.p, bfs.next.data(), bfs.table_bytes(), cudaMemcpyHostToDevice));
    generate_text(bytes.p, w8, len, c, seed + 1, nullptr);
    pack_text(bytes.p, len, bits, packed.p, wp, nullptr);
    SEED_AC_CHECK(cudaDeviceSynchronize());
    // The device generator and packer write what the host ones do.
    auto g8 = to_host(bytes.p, w8), gp = to_host(packed.p, wp);
    g8.resize(host8.size());
    gp.resize(hostp.size());
    ASSERT_EQ(g8, host8);
    ASSERT_EQ(gp, hostp);

    for (Variant v : kAllVariants) {
        const VariantTraits t = traits(v);
        SCOPED_TRACE(t.name);
        const Automaton &a = t.breadth_first ? bfs : ins;
        const DeviceAutomaton da{t.breadth_first ? next_bfs.p : next_ins.p, a.num_states, c, a.first_leaf};
        const DeviceText dt = t.packed ? DeviceText{packed.p, len, bits, wp} : DeviceText{bytes.p, len, 8, w8};
        // Poison, then zero as the contract says: a kernel that skips the
        // buffer shows as zeros where the CPU counts visits.
        SEED_AC_CHECK(cudaMemset(visits.p, 0xAB, a.num_states * 4u));
        SEED_AC_CHECK(cudaMemset(visits.p, 0, a.num_states * 4u));
        count_visits(v, da, dt, m, visits.p, nullptr);
        SEED_AC_CHECK(cudaDeviceSynchronize());
        const auto got = to_host(visits.p, a.num_states);
        const WalkOptions opt{CountPolicy::kTileChars, m - 1, t.mode == CountMode::kSharedLeaf};
        const auto ref = cpu_walk(a, t.packed ? hostp.data() : host8.data(), t.packed ? bits : 8, len, opt);
        ASSERT_EQ(std::vector<uint64_t>(got.begin(), got.end()), ref);
        if (naive) EXPECT_EQ(pattern_counts(a, got.data()), want);
    }
}

TEST(SeedAcGpu, EveryVariantMatchesCpuOnEdgeSizes) {
    SEED_AC_REQUIRE_GPU();
    const uint64_t tile = uint64_t(CountPolicy::kBlockThreads) * CountPolicy::kTileChars;
    for (uint64_t len : std::initializer_list<uint64_t>{0, 1, 9, 31, 32, 33, tile - 1, tile, tile + 1, 3 * tile + 17})
        check_case(4, 60, 8, len, 10 + len, true);
}

TEST(SeedAcGpu, EveryVariantMatchesCpuOnRandomCases) {
    SEED_AC_REQUIRE_GPU();
    struct Case { int c, n, m; uint64_t len; };
    const Case cases[] = {{2, 256, 10, 100003}, {2, 30, 1, 5000}, {3, 100, 5, 70001}, {4, 256, 30, 65536},
                          {4, 1500, 12, 200000}, {5, 80, 7, 40000}, {16, 200, 4, 50000}, {17, 100, 3, 30000}};
    for (const Case &k : cases) check_case(k.c, k.n, k.m, k.len, 1000 + k.n * 7 + k.m, true);
}

// More states than shared counters (SharedMem split) and more leaves than
// shared counters (EqLength/Combined split); cpu_walk only (naive too slow).
TEST(SeedAcGpu, SplitCountersWhenStatesExceedSharedMemory) {
    SEED_AC_REQUIRE_GPU();
    check_case(4, 8000, 8, 1 << 20, 42, false);   // ~20k states > kMaxSharedCounters
    check_case(4, 16000, 10, 1 << 20, 43, false); // ~16k leaves > kMaxSharedCounters
}

TEST(SeedAcGpu, RejectsMismatchedInputs) {
    SEED_AC_REQUIRE_GPU();
    const auto pats = random_patterns(10, 4, 4, 1);
    const Automaton ins = build_automaton(pats, 4, StateOrder::kInsertion);
    Dev<uint32_t> words(text_words(100, 8)), visits(ins.num_states);
    Dev<int32_t> next(ins.next.size());
    const DeviceAutomaton da{next.p, ins.num_states, 4, ins.first_leaf};
    const DeviceText bytes{words.p, 100, 8, text_words(100, 8)};
    const DeviceText two_bit{words.p, 100, 2, text_words(100, 2)};
    EXPECT_THROW(count_visits(Variant::kCompactMem, da, bytes, 4, visits.p, nullptr), std::invalid_argument);
    EXPECT_THROW(count_visits(Variant::kBaseline, da, two_bit, 4, visits.p, nullptr), std::invalid_argument);
    EXPECT_THROW(count_visits(Variant::kEqLength, da, bytes, 4, visits.p, nullptr), std::invalid_argument);
    EXPECT_THROW(count_visits(Variant::kBaseline, da, bytes, 0, visits.p, nullptr), std::invalid_argument);
}

#else

TEST(SeedAcGpu, BuiltWithoutCuda) {
    std::string why;
    EXPECT_FALSE(gpu_usable(0, &why));
    EXPECT_EQ(why, "built without CUDA support");
    GTEST_SKIP() << "seed_ac GPU tests skipped: built without CUDA support";
}

#endif

} // namespace
