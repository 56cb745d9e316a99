// Scanner::scan_set (wm_scan_batch_set): the distinct (rule id, payload)
// hits equal the positions scan reduced to a set, on the CPU path here and on
// the GPU's in-place path (skips without a device), with protocol/port
// scopes, without meta, with verification, and with approximate rules
// (general path on either backend); and the same pipelined two batches deep
// (submit_set / collect_set), through a GPU failure in a sampled batch.
#include "compiled_ruleset.h"
#include "gpu/gpu_matcher.h"
#include "gpu/gpu_testing.h"
#include "random_rules.h"
#include "scanner.h"
#include "status_error.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

using namespace wm;

namespace {

using Hit = std::pair<uint32_t, uint32_t>; // (payload, rule id): the promised order

using test::random_batch;
using test::scoped_rules;

// The reference: a positions scan on the CPU path, reduced to distinct hits.
std::vector<Hit> positions_as_set(const CompiledRuleSet &crs, const BatchView &v) {
    Scanner sc(crs, test::scanner_options(WM_BACKEND_CPU, WM_OUTPUT_POSITIONS));
    std::vector<Match> out;
    EXPECT_EQ(sc.scan(v, out), WM_SUCCESS);
    std::set<Hit> s;
    for (const auto &m : out)
        s.insert({m.payload, crs.rules()[m.rule].id});
    return {s.begin(), s.end()};
}

std::vector<Hit> hits_of(Scanner &sc, const BatchView &v, int want_rc = WM_SUCCESS) {
    const wm_set_hit_t *hits = nullptr;
    size_t n = 0;
    EXPECT_EQ(sc.scan_set(v, &hits, &n), want_rc);
    std::vector<Hit> out;
    for (size_t i = 0; i < n; ++i)
        out.push_back({hits[i].payload_index, hits[i].rule_id});
    return out;
}

bool gpu_here(std::string *why) { return gpu::gpu_usable(0, why); }

} // namespace

TEST(ScanSet, CpuPathEqualsPositionsReducedToASet) {
    for (uint32_t seed = 1; seed <= 6; ++seed) {
        CompiledRuleSet crs(scoped_rules(seed, 60));
        const auto b = random_batch(100 + seed, 200);
        for (int mode : {WM_OUTPUT_SET, WM_OUTPUT_POSITIONS}) { // set semantics either way
            Scanner sc(crs, test::scanner_options(WM_BACKEND_CPU, mode));
            for (bool meta : {true, false}) {
                const auto want = positions_as_set(crs, b.view(meta));
                ASSERT_FALSE(want.empty());
                EXPECT_EQ(hits_of(sc, b.view(meta)), want) << "seed " << seed << " mode " << mode;
            }
            EXPECT_EQ(sc.stats().batches, 2u);
        }
    }
}

TEST(ScanSet, ApproximateRulesJoinInRuleOrder) {
    rules::RuleSet rs = scoped_rules(9, 20);
    rules::Rule approx;
    approx.id = 5; // sorts first: hits must still come in (payload, rule id) order
    approx.msg = "approx";
    approx.pattern = "abcab";
    approx.max_edits = 1;
    rs.rules.insert(rs.rules.begin(), approx);
    CompiledRuleSet crs(rs);
    const auto b = random_batch(42, 150);
    Scanner sc(crs, test::scanner_options(WM_BACKEND_CPU, WM_OUTPUT_SET));
    const auto got = hits_of(sc, b.view());
    EXPECT_EQ(got, positions_as_set(crs, b.view()));
    EXPECT_TRUE(std::any_of(got.begin(), got.end(), [](const Hit &h) { return h.second == 5; }));
}

TEST(ScanSetGpu, InPlacePathEqualsTheCpuPath) {
    std::string why;
    if (!gpu_here(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    for (uint32_t seed = 1; seed <= 4; ++seed) {
        CompiledRuleSet crs(scoped_rules(seed, 80));
        Scanner gpu(crs, test::scanner_options(WM_BACKEND_GPU, WM_OUTPUT_SET));
        ASSERT_EQ(gpu.backend(), WM_BACKEND_GPU);
        for (uint32_t batch = 0; batch < 3; ++batch) { // the pinned hits buffer is reused
            const auto b = random_batch(seed * 10 + batch, 100 + 300 * batch);
            for (bool meta : {true, false})
                EXPECT_EQ(hits_of(gpu, b.view(meta)), positions_as_set(crs, b.view(meta)))
                    << "seed " << seed << " batch " << batch << " meta " << meta;
        }
        EXPECT_EQ(gpu.stats().batches, 6u);
    }
}

// verify_every 2: batches 0, 2, ... take the checked general path, the others
// the in-place path; both agree with Hyperscan and with each other.
TEST(ScanSetGpu, VerifiedAndUnverifiedBatchesAgree) {
    std::string why;
    if (!gpu_here(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    CompiledRuleSet crs(scoped_rules(77, 100));
    Scanner gpu(crs, test::scanner_options(WM_BACKEND_GPU, WM_OUTPUT_SET, 2));
    const auto b = random_batch(77, 500);
    const auto want = positions_as_set(crs, b.view());
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(hits_of(gpu, b.view()), want) << "batch " << i;
    EXPECT_EQ(gpu.stats().verified_batches, 2u);
    EXPECT_EQ(gpu.stats().verify_mismatches, 0u);
}

namespace {
// Submits batches `depth` deep (submit i + depth - 1, then collect i) and
// returns each batch's hits with its status.
std::vector<std::vector<Hit>> pipelined(Scanner &sc, const std::vector<BatchView> &views,
                                        std::vector<int> *rcs = nullptr,
                                        unsigned depth = Scanner::kPendingSetBatches) {
    std::vector<std::vector<Hit>> out;
    auto collect = [&] {
        const wm_set_hit_t *hits = nullptr;
        size_t n = 0;
        const int rc = sc.collect_set(&hits, &n);
        if (rcs) rcs->push_back(rc);
        out.emplace_back();
        for (size_t i = 0; i < n; ++i)
            out.back().push_back({hits[i].payload_index, hits[i].rule_id});
    };
    unsigned pending = 0;
    for (size_t i = 0; i < views.size(); ++i) {
        sc.submit_set(views[i]);
        if (++pending == depth) collect(), --pending;
    }
    for (; pending > 0; --pending) collect();
    return out;
}

int status_of(const std::function<void()> &f) {
    try {
        f();
    } catch (const StatusError &e) {
        return e.code();
    }
    return WM_SUCCESS;
}
} // namespace

TEST(ScanSetPipeline, CpuPathEqualsOneBatchAtATimeAndRefusesMisuse) {
    CompiledRuleSet crs(scoped_rules(5, 60));
    std::vector<test::OwnedBatch> batches;
    for (uint32_t i = 0; i < 5; ++i) batches.push_back(random_batch(500 + i, 50 + 40 * i));
    std::vector<BatchView> views;
    for (const auto &b : batches) views.push_back(b.view(true));
    Scanner sc(crs, test::scanner_options(WM_BACKEND_CPU, WM_OUTPUT_SET));
    const auto got = pipelined(sc, views);
    ASSERT_EQ(got.size(), views.size());
    for (size_t i = 0; i < views.size(); ++i)
        EXPECT_EQ(got[i], positions_as_set(crs, views[i])) << "batch " << i;
    EXPECT_EQ(sc.stats().batches, views.size());

    const wm_set_hit_t *hits = nullptr;
    size_t n = 0;
    std::vector<Match> out;
    EXPECT_EQ(status_of([&] { sc.collect_set(&hits, &n); }), WM_INVALID); // nothing submitted
    static_assert(Scanner::kPendingSetBatches < 5, "views[4] is the one refused");
    for (unsigned i = 0; i < Scanner::kPendingSetBatches; ++i) sc.submit_set(views[i]);
    EXPECT_EQ(status_of([&] { sc.submit_set(views[4]); }), WM_INVALID); // kPendingSetBatches deep at most
    EXPECT_EQ(status_of([&] { sc.scan(views[4], out); }), WM_INVALID);
    EXPECT_EQ(status_of([&] { sc.scan_set(views[4], &hits, &n); }), WM_INVALID);
    for (unsigned i = 0; i < Scanner::kPendingSetBatches; ++i) {
        ASSERT_EQ(sc.collect_set(&hits, &n), WM_SUCCESS);
        std::vector<Hit> got;
        for (size_t k = 0; k < n; ++k) got.push_back({hits[k].payload_index, hits[k].rule_id});
        EXPECT_EQ(got, positions_as_set(crs, views[i])) << "batch " << i << ", collected in order";
    }
    EXPECT_EQ(hits_of(sc, views[4]), positions_as_set(crs, views[4])); // usable again
}

TEST(ScanSetPipelineGpu, PipelinedEqualsTheCpuPath) {
    std::string why;
    if (!gpu_here(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    for (uint32_t seed = 1; seed <= 3; ++seed) {
        CompiledRuleSet crs(scoped_rules(seed, 80));
        std::vector<test::OwnedBatch> batches;
        for (uint32_t i = 0; i < 6; ++i) batches.push_back(random_batch(seed * 100 + i, 30 + 200 * (i % 3)));
        for (bool meta : {true, false})
            for (unsigned depth : {2u, Scanner::kPendingSetBatches}) {
                std::vector<BatchView> views;
                for (const auto &b : batches) views.push_back(b.view(meta));
                Scanner gpu(crs, test::scanner_options(WM_BACKEND_GPU, WM_OUTPUT_SET));
                ASSERT_EQ(gpu.backend(), WM_BACKEND_GPU);
                const auto got = pipelined(gpu, views, nullptr, depth);
                for (size_t i = 0; i < views.size(); ++i)
                    EXPECT_EQ(got[i], positions_as_set(crs, views[i]))
                        << "seed " << seed << " depth " << depth << " batch " << i;
                EXPECT_EQ(gpu.stats().batches, views.size());
            }
    }
}

// verify_every 2: batches 0, 2, 4 are checked at submit (the general path runs
// while the GPU still holds batch 1 or 3), the others stay in flight; order,
// hits and statuses are as one batch at a time.
TEST(ScanSetPipelineGpu, VerifiedBatchesInterleaveWithInFlightOnes) {
    std::string why;
    if (!gpu_here(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    CompiledRuleSet crs(scoped_rules(78, 100));
    std::vector<test::OwnedBatch> batches;
    for (uint32_t i = 0; i < 5; ++i) batches.push_back(random_batch(780 + i, 300));
    std::vector<BatchView> views;
    for (const auto &b : batches) views.push_back(b.view());
    Scanner gpu(crs, test::scanner_options(WM_BACKEND_GPU, WM_OUTPUT_SET, 2));
    std::vector<int> rcs;
    const auto got = pipelined(gpu, views, &rcs);
    for (size_t i = 0; i < views.size(); ++i) {
        EXPECT_EQ(got[i], positions_as_set(crs, views[i])) << "batch " << i;
        EXPECT_EQ(rcs[i], WM_SUCCESS) << "batch " << i;
    }
    EXPECT_EQ(gpu.stats().verified_batches, 3u);
    EXPECT_EQ(gpu.stats().verify_mismatches, 0u);
}

// A GPU failure in a batch scanned at submit (sampled for verification)
// while another is in flight: the matcher drops the one in flight. Under
// `auto` the scanner moved to the CPU and must rescan it there (collect used
// to treat the Hyperscan engine as the GPU's); under `gpu` every pending
// batch is dropped, counted, and the scanner stays usable (collect used to
// fail for good, or hand a later batch's hits out as an earlier one's).
TEST(ScanSetPipelineGpu, AGpuFailureInASampledBatchRescansOrDropsTheOneInFlight) {
    std::string why;
    if (!gpu_here(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    CompiledRuleSet crs(scoped_rules(91, 100));
    std::vector<test::OwnedBatch> batches;
    for (uint32_t i = 0; i < 4; ++i) batches.push_back(random_batch(910 + i, 300));
    std::vector<BatchView> views;
    for (const auto &b : batches) views.push_back(b.view());
    for (int backend : {WM_BACKEND_AUTO, WM_BACKEND_GPU}) {
        SCOPED_TRACE(backend == WM_BACKEND_AUTO ? "auto" : "gpu");
        gpu::testing::set_initial_output_capacity(16); // every fresh slot grows: an allocation to fail
        Scanner sc(crs, test::scanner_options(backend, WM_OUTPUT_SET, 2));
        gpu::testing::set_initial_output_capacity(0);
        ASSERT_EQ(sc.backend(), WM_BACKEND_GPU);
        sc.submit_set(views[0]); // sampled: scanned at submit
        sc.submit_set(views[1]); // in flight
        gpu::testing::fail_output_allocation(1);
        int rc = WM_SUCCESS;
        std::string message;
        try {
            sc.submit_set(views[2]); // sampled; its scan fails
        } catch (const StatusError &e) {
            rc = e.code();
            message = e.what();
        }
        gpu::testing::fail_output_allocation(0);
        const wm_set_hit_t *hits = nullptr;
        size_t n = 0;
        auto collected = [&] {
            std::vector<Hit> got;
            for (size_t k = 0; k < n; ++k) got.push_back({hits[k].payload_index, hits[k].rule_id});
            return got;
        };
        if (backend == WM_BACKEND_AUTO) {
            ASSERT_EQ(rc, WM_SUCCESS);
            EXPECT_EQ(sc.backend(), WM_BACKEND_CPU);
            for (int i = 0; i < 3; ++i) {
                ASSERT_EQ(sc.collect_set(&hits, &n), WM_SUCCESS) << "batch " << i;
                EXPECT_EQ(collected(), positions_as_set(crs, views[i])) << "batch " << i;
            }
        } else {
            EXPECT_EQ(rc, WM_GPU_ERROR);
            EXPECT_NE(message.find("2 submitted batch(es) dropped, 1 of them in flight"), std::string::npos)
                << message;
            EXPECT_EQ(status_of([&] { sc.collect_set(&hits, &n); }), WM_INVALID) << "nothing left to collect";
            EXPECT_EQ(sc.backend(), WM_BACKEND_GPU);
            const auto again = pipelined(sc, views); // usable, in order
            for (size_t i = 0; i < views.size(); ++i)
                EXPECT_EQ(again[i], positions_as_set(crs, views[i])) << "batch " << i << " after the failure";
        }
    }
}
