// tests/align/test_sw_gpu.cpp - GPU kernels against the CPU reference: random
// databases, both kernels, several sections on one GPU, every GPU, 16-bit
// overflow fallback, traceback validity, the payload API. Skips without a GPU.
#include "gpu/align/align_search.h"
#include "gpu/align/sw_reference.h"

#include "align_test_util.h"

using namespace wm::align;

namespace {

#define SKIP_WITHOUT_GPU()                                                                                   \
    do {                                                                                                     \
        std::string why_;                                                                                    \
        if (!align_gpu_usable(0, &why_)) GTEST_SKIP() << "no usable GPU: " << why_;                         \
    } while (0)

void expect_same_hits(const std::vector<Hit> &got, const std::vector<Hit> &want, const std::vector<uint8_t> &q,
                      const std::vector<uint8_t> &d, const ScoreParams &p, const std::string &what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].score, want[k].score) << what << " hit " << k;
        EXPECT_EQ(got[k].db_end, want[k].db_end) << what << " hit " << k;
        EXPECT_EQ(got[k].query_end, want[k].query_end) << what << " hit " << k;
        test::expect_valid_alignment(got[k], q, d.data(), d.size(), p);
    }
}

struct GpuCase {
    Kernel kernel;
    uint32_t sections_per_device;
    bool all_devices;
};

class GpuSearch : public ::testing::TestWithParam<GpuCase> {};

TEST_P(GpuSearch, EqualsReferenceOnRandomDatabases) {
    SKIP_WITHOUT_GPU();
    const GpuCase c = GetParam();
    std::mt19937 rng(4242 + c.sections_per_device);
    for (int trial = 0; trial < 6; ++trial) {
        const size_t m = trial == 0 ? 1 : trial == 1 ? 1024 : 1 + rng() % 600;
        const size_t n = trial == 2 ? 1 : 2000 + rng() % 60000;
        const auto q = test::random_seq(rng, m);
        auto d = test::random_seq(rng, n);
        test::plant(rng, d, q, 5);
        ScoreParams p;
        if (trial == 3) {
            p.match = 2;
            p.mismatch = -3;
            p.gap_open = 5;
            p.gap_extend = 2;
        }
        const std::vector<int> devs = c.all_devices ? std::vector<int>{} : std::vector<int>{0};
        DatabaseSearcher s(d.data(), d.size(), devs, c.sections_per_device, exact_overlap(m, p));
        SearchOptions o;
        o.kernel = c.kernel;
        o.top_k = 50;
        const SearchResult r = s.search(q.data(), m, p, o);
        const auto want = reference_search(q.data(), m, d.data(), n, p, o.top_k);
        expect_same_hits(r.hits, want, q, d, p, "trial " + std::to_string(trial) + " m " + std::to_string(m) +
                                                   " n " + std::to_string(n));
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, GpuSearch,
                         ::testing::Values(GpuCase{Kernel::Production, 1, false}, GpuCase{Kernel::Production, 5, false},
                                           GpuCase{Kernel::Production, 2, true}, GpuCase{Kernel::RowParallel, 1, false},
                                           GpuCase{Kernel::RowParallel, 3, false}),
                         [](const auto &info) {
                             return std::string(info.param.kernel == Kernel::Production ? "production" : "rowparallel") +
                                    "_sections" + std::to_string(info.param.sections_per_device) +
                                    (info.param.all_devices ? "_alldevices" : "_device0");
                         });

// Queries past tuning::kMaxQueryRows (row-parallel kernel only) take the
// block-per-hit traceback; shorter ones the warp-per-hit traceback above.
TEST(GpuSearchLimits, LongQueryTracebackOnRowParallel) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(77);
    const size_t m = 1100, n = 9000;
    const auto q = test::random_seq(rng, m);
    auto d = test::random_seq(rng, n);
    test::plant(rng, d, q, 2);
    ScoreParams p;
    DatabaseSearcher s(d.data(), d.size(), {0}, 1, exact_overlap(m, p));
    SearchOptions o;
    o.kernel = Kernel::RowParallel;
    o.top_k = 20;
    const SearchResult r = s.search(q.data(), m, p, o);
    expect_same_hits(r.hits, reference_search(q.data(), m, d.data(), n, p, o.top_k), q, d, p, "m 1100");
}

// A best alignment jumping a 1700-byte insertion: the traceback window must
// widen twice (traceback_window_for); hits equal the reference's.
TEST(GpuSearchLimits, TracebackWidensForALongGap) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(91);
    const test::LongGapCase c = test::long_gap_case(rng);
    const auto &q = c.query, &d = c.db;
    for (uint32_t first : {1u, 256u, 4096u}) {
        DatabaseSearcher s(d.data(), d.size(), {0}, 2, exact_overlap(q.size(), c.params));
        SearchOptions o;
        o.top_k = 20;
        o.traceback_window = first;
        const SearchResult r = s.search(q.data(), q.size(), c.params, o);
        const auto want = reference_search(q.data(), q.size(), d.data(), d.size(), c.params, o.top_k);
        expect_same_hits(r.hits, want, q, d, c.params, "first window " + std::to_string(first));
        ASSERT_FALSE(r.hits.empty());
        EXPECT_GT(r.hits[0].db_end - r.hits[0].db_begin, 2000u) << r.hits[0].cigar;
    }
}

TEST(GpuSearchSeed, WorkedExample) {
    SKIP_WITHOUT_GPU();
    const std::string qs = "AAUGCCAUUGCCGG", ds = "CAGCCUCGCUUAG";
    const std::vector<uint8_t> q(qs.begin(), qs.end()), d(ds.begin(), ds.end());
    for (Kernel k : {Kernel::Production, Kernel::RowParallel}) {
        DatabaseSearcher s(d.data(), d.size(), {0});
        SearchOptions o;
        o.kernel = k;
        o.top_k = 1;
        const auto r = s.search(q.data(), q.size(), ScoreParams{}, o);
        ASSERT_EQ(r.hits.size(), 1u);
        EXPECT_EQ(r.hits[0].score, 18);
        EXPECT_EQ(r.hits[0].query_end, 11u);
        EXPECT_EQ(r.hits[0].db_end, 9u);
        EXPECT_EQ(r.hits[0].cigar, "3=1I1=1X2=");
    }
}

TEST(GpuSearchLimits, NearThe16BitLimitFallsBackTo32Bit) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(5);
    const auto q = test::random_seq(rng, 1023);
    auto d = test::random_seq(rng, 5000);
    d.insert(d.begin() + 1000, q.begin(), q.end());
    for (int match : {31, 32, 100}) {
        ScoreParams p;
        p.match = match;
        DatabaseSearcher s(d.data(), d.size(), {0}, 1, exact_overlap(q.size(), p));
        SearchOptions o;
        o.top_k = 10;
        const auto r = s.search(q.data(), q.size(), p, o);
        const auto want = reference_search(q.data(), q.size(), d.data(), d.size(), p, o.top_k);
        expect_same_hits(r.hits, want, q, d, p, "match " + std::to_string(match));
        EXPECT_EQ(r.hits.at(0).score, 1023 * match);
        if (match >= 32) EXPECT_GT(r.timings.fallback_sections, 0u);
        else EXPECT_EQ(r.timings.fallback_sections, 0u);
    }
}

TEST(GpuSearchLimits, TiesKeepTheSmallestColumns) {
    SKIP_WITHOUT_GPU();
    const std::string qs = "GATTACA";
    std::string ds;
    for (int k = 0; k < 3000; ++k) ds += "TTTTGATTACATTTT";
    const std::vector<uint8_t> q(qs.begin(), qs.end()), d(ds.begin(), ds.end());
    DatabaseSearcher s(d.data(), d.size(), {0}, 3);
    SearchOptions o;
    o.top_k = 200;
    const auto r = s.search(q.data(), q.size(), ScoreParams{}, o);
    ASSERT_EQ(r.hits.size(), 200u);
    for (size_t k = 0; k < 200; ++k) {
        EXPECT_EQ(r.hits[k].score, 35);
        EXPECT_EQ(r.hits[k].db_end, 15u * k + 11) << k;
    }
}

TEST(GpuSearchLimits, SubstitutionMatrix) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(8);
    ScoreParams p;
    p.matrix.resize(65536);
    for (auto &v : p.matrix) v = (int8_t)((int)(rng() % 7) - 5);
    for (int c = 0; c < 256; ++c) p.matrix[c * 257] = 6;
    const auto q = test::random_seq(rng, 300, 0);
    auto d = test::random_seq(rng, 40000, 0);
    std::copy(q.begin() + 10, q.begin() + 200, d.begin() + 777);
    for (Kernel k : {Kernel::Production, Kernel::RowParallel}) {
        DatabaseSearcher s(d.data(), d.size(), {0}, 2, exact_overlap(q.size(), p));
        SearchOptions o;
        o.kernel = k;
        o.top_k = 20;
        const auto r = s.search(q.data(), q.size(), p, o);
        expect_same_hits(r.hits, reference_search(q.data(), q.size(), d.data(), d.size(), p, 20), q, d, p, "matrix");
    }
}

TEST(GpuPayloads, EqualReferencePerPair) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(31);
    std::vector<std::string> refs;
    std::vector<std::vector<uint8_t>> refb;
    for (size_t len : {1u, 40u, 256u, 257u, 1024u}) {
        refb.push_back(test::random_seq(rng, len, 0));
        refs.emplace_back(refb.back().begin(), refb.back().end());
    }
    std::vector<uint8_t> data;
    std::vector<uint32_t> off{0};
    for (int k = 0; k < 301; ++k) {
        auto pl = test::random_seq(rng, k % 50 == 0 ? 0 : rng() % 1500, 0);
        if (k % 3 == 0 && pl.size() > 300) {
            const auto &r = refb[rng() % refb.size()];
            std::copy(r.begin(), r.begin() + std::min<size_t>(r.size(), 200), pl.begin() + 50);
        }
        data.insert(data.end(), pl.begin(), pl.end());
        off.push_back((uint32_t)data.size());
    }
    const ScoreParams p;
    const int min_score = 40;
    PayloadAligner al(refs, p, 0);
    const auto got = al.align(data.data(), off.data(), (uint32_t)off.size() - 1, min_score);
    size_t idx = 0;
    for (uint32_t k = 0; k + 1 < off.size(); ++k)
        for (uint32_t r = 0; r < refs.size(); ++r) {
            const uint32_t len = off[k + 1] - off[k];
            const auto cm = reference_column_maxima(refb[r].data(), refb[r].size(), data.data() + off[k], len, p);
            int best = 0;
            uint32_t col = 0;
            for (uint32_t j = 0; j < len; ++j)
                if (cm[j] > best) {
                    best = cm[j];
                    col = j;
                }
            if (best < min_score) continue;
            ASSERT_LT(idx, got.size());
            const PayloadHit &h = got[idx++];
            EXPECT_EQ(h.payload, k);
            EXPECT_EQ(h.reference, r);
            EXPECT_EQ(h.hit.score, best);
            EXPECT_EQ(h.hit.db_end, col + 1u);
            test::expect_valid_alignment(h.hit, refb[r], data.data() + off[k], len, p);
        }
    EXPECT_EQ(idx, got.size());
    EXPECT_GT(got.size(), 20u);
}

// Each traceback window is exact_overlap() columns ending at the hit, not
// the payload's whole prefix (whose direction bytes, jobs x longest payload x
// m, once asked for more than the device has), and the jobs run in rounds
// under a workspace budget: long payloads, and enough 1 KB-reference hits
// for several rounds, give the regions the CPU's windowed traceback gives.
TEST(GpuPayloads, WindowedTracebackInRoundsEqualsTheCpus) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(77);
    const std::vector<uint8_t> ref = test::random_seq(rng, 1024, 0), short_ref = test::random_seq(rng, 48, 0);
    std::vector<uint8_t> data;
    std::vector<uint32_t> off{0};
    for (int k = 0; k < 1200; ++k) {
        const bool long_payload = k % 100 == 0;
        auto pl = test::random_seq(rng, long_payload ? 40000 : 1400, 0);
        const auto &r = long_payload ? short_ref : ref;
        std::copy(r.begin(), r.begin() + std::min<size_t>(r.size(), 600), pl.end() - 700); // near the end
        data.insert(data.end(), pl.begin(), pl.end());
        off.push_back((uint32_t)data.size());
    }
    const ScoreParams p;
    const std::vector<std::vector<uint8_t>> refs = {ref, short_ref};
    PayloadAligner al({std::string(ref.begin(), ref.end()), std::string(short_ref.begin(), short_ref.end())}, p, 0);
    const auto got = al.align(data.data(), off.data(), (uint32_t)off.size() - 1, 60);
    size_t long_hits = 0;
    for (const PayloadHit &h : got) {
        const auto &r = refs[h.reference];
        const uint8_t *payload = data.data() + off[h.payload];
        const uint32_t len = off[h.payload + 1] - off[h.payload];
        const uint64_t w = exact_overlap(r.size(), p);
        const uint64_t begin = h.hit.db_end > w ? h.hit.db_end - w : 0;
        const Hit cpu = reference_traceback(r.data(), r.size(), payload, begin, h.hit.db_end - 1, p);
        EXPECT_EQ(h.hit.score, cpu.score) << h.payload;
        EXPECT_EQ(h.hit.db_begin, cpu.db_begin) << h.payload;
        EXPECT_EQ(h.hit.query_begin, cpu.query_begin) << h.payload;
        EXPECT_EQ(h.hit.query_end, cpu.query_end) << h.payload;
        test::expect_valid_alignment(h.hit, r, payload, len, p);
        long_hits += len == 40000;
    }
    EXPECT_GE(got.size(), 1188u); // every 1 KB-reference copy of 600 bytes scores far above 60
    EXPECT_EQ(long_hits, 12u);
}

TEST(GpuPayloads, EmptyBatchAndRejectsBadReferences) {
    SKIP_WITHOUT_GPU();
    EXPECT_THROW(PayloadAligner({std::string()}, ScoreParams{}, 0), std::invalid_argument);
    EXPECT_THROW(PayloadAligner({std::string(1025, 'A')}, ScoreParams{}, 0), std::invalid_argument);
    PayloadAligner al({"ACGT"}, ScoreParams{}, 0);
    const uint32_t off[1] = {0};
    EXPECT_TRUE(al.align(nullptr, off, 0, 5).empty());
}

TEST(GpuAvailability, ReasonIsGivenWhenUnusable) {
    std::string why;
    if (align_gpu_usable(0, &why)) GTEST_SKIP() << "GPU usable; nothing to check";
    EXPECT_FALSE(why.empty());
}

} // namespace
