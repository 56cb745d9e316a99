// ABI suite: wm_scanner_options_t. Argument checks, the shorter structs of
// earlier callers, and options that must not change what is delivered
// (cpu_threads, gpu_wait).
#include "abi_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace abi_test;

struct ScannerOptions : Fixture {};

TEST_F(ScannerOptions, ScannerCreateArgumentChecks) {
    wm_scanner_t *s2 = nullptr;
    wm_scanner_options_t o;
    wm_scanner_options_init(&o);
    EXPECT_EQ(wm_scanner_create(nullptr, &o, &s2, nullptr), WM_INVALID);
    EXPECT_EQ(wm_scanner_create(rs, &o, nullptr, nullptr), WM_INVALID);
    o.backend = 7;
    EXPECT_EQ(wm_scanner_create(rs, &o, &s2, nullptr), WM_INVALID);
    wm_scanner_options_init(&o);
    o.output_mode = 9;
    EXPECT_EQ(wm_scanner_create(rs, &o, &s2, nullptr), WM_INVALID);
    wm_scanner_options_init(&o);
    o.struct_size = 3;
    EXPECT_EQ(wm_scanner_create(rs, &o, &s2, nullptr), WM_INVALID);
    EXPECT_EQ(s2, nullptr);
    wm_scanner_options_init(&o);
    o.backend = WM_BACKEND_GPU;
    wm_error_t *err = nullptr;
    int rc = wm_scanner_create(rs, &o, &s2, &err);
    if (rc == WM_SUCCESS) {
        EXPECT_EQ(wm_scanner_backend(s2), WM_BACKEND_GPU);
        wm_scanner_free(s2);
    } else {
        EXPECT_EQ(rc, WM_NO_GPU);
        ASSERT_NE(err, nullptr);
        EXPECT_NE(std::string(err->message).find("GPU"), std::string::npos);
        wm_error_free(err);
    }
}

// cpu_threads came in 0.8: options of a 0.7 caller (the shorter struct,
// which ends at max_batch_payloads) still create a scanner. gpu_wait (0.9)
// went into cpu_threads' tail padding, so a 0.8 struct had today's size and
// offsetof(gpu_wait) is no header's sizeof: refused like any other size.
// The fields past a caller's size are not read: set here to invalid values.
TEST_F(ScannerOptions, ScannerOptionsOfTheOlderSizesAreAccepted) {
    wm_scanner_options_t never;
    wm_scanner_options_init(&never);
    never.backend = WM_BACKEND_CPU;
    never.struct_size = offsetof(wm_scanner_options_t, gpu_wait);
    wm_scanner_t *none = nullptr;
    EXPECT_EQ(wm_scanner_create(rs, &never, &none, nullptr), WM_INVALID);
    EXPECT_EQ(none, nullptr);
    for (const size_t older : {offsetof(wm_scanner_options_t, cpu_threads)}) {
        wm_scanner_options_t o;
        wm_scanner_options_init(&o);
        o.backend = WM_BACKEND_CPU;
        o.gpu_wait = 99;
        o.struct_size = older;
        wm_scanner_t *s2 = nullptr;
        ASSERT_EQ(wm_scanner_create(rs, &o, &s2, nullptr), WM_SUCCESS) << "size " << older;
        EXPECT_EQ(wm_scanner_backend(s2), WM_BACKEND_CPU);
        wm_scanner_free(s2);
        o.struct_size = older + 1;
        EXPECT_EQ(wm_scanner_create(rs, &o, &s2, nullptr), WM_INVALID) << "size " << older + 1;
    }
}

TEST_F(ScannerOptions, UnknownGpuWaitIsRefusedNamingIt) {
    wm_scanner_options_t o;
    wm_scanner_options_init(&o);
    EXPECT_EQ(o.gpu_wait, WM_GPU_WAIT_SPIN);
    for (const int bad : {-1, 2}) {
        o.gpu_wait = bad;
        wm_scanner_t *s2 = nullptr;
        wm_error_t *err = nullptr;
        EXPECT_EQ(wm_scanner_create(rs, &o, &s2, &err), WM_INVALID);
        EXPECT_EQ(s2, nullptr);
        ASSERT_NE(err, nullptr);
        EXPECT_EQ(std::string(err->message), "unknown gpu_wait " + std::to_string(bad));
        wm_error_free(err);
    }
}

// A scanner that sleeps while the GPU works (WM_GPU_WAIT_BLOCK) delivers what
// a spinning one does, in both output modes and through the pipelined set
// calls; where there is no GPU, the option changes nothing on the CPU.
TEST_F(ScannerOptions, BlockingGpuWaitsDeliverTheSameMatches) {
    const RandomBatch rb(1u << 20, 7, 21); // payloads of 0 - 2047 bytes
    const wm_batch_t b = rb.batch();
    auto scan = [&](int mode, int wait, std::vector<Hit> &hits, std::vector<wm_set_hit_t> &pipelined) {
        wm_scanner_options_t o;
        wm_scanner_options_init(&o);
        o.output_mode = mode;
        o.gpu_wait = wait;
        o.max_batch_bytes = 64 << 10; // many chunks: many waits
        wm_scanner_t *s2 = nullptr;
        ASSERT_EQ(wm_scanner_create(rs, &o, &s2, nullptr), WM_SUCCESS);
        EXPECT_EQ(wm_scan_batch(s2, &b, collect, &hits, nullptr), WM_SUCCESS);
        if (mode == WM_OUTPUT_SET) { // two batches in flight, then collected
            for (int k = 0; k < 2; ++k) ASSERT_EQ(wm_scan_batch_set_submit(s2, &b, nullptr), WM_SUCCESS);
            for (int k = 0; k < 2; ++k) {
                const wm_set_hit_t *h = nullptr;
                size_t n = 0;
                ASSERT_EQ(wm_scan_batch_set_collect(s2, &h, &n, nullptr), WM_SUCCESS);
                pipelined.insert(pipelined.end(), h, h + n);
            }
        }
        wm_scanner_free(s2);
    };
    for (int mode : {WM_OUTPUT_POSITIONS, WM_OUTPUT_SET}) {
        std::vector<Hit> spin, block;
        std::vector<wm_set_hit_t> spin_set, block_set;
        scan(mode, WM_GPU_WAIT_SPIN, spin, spin_set);
        scan(mode, WM_GPU_WAIT_BLOCK, block, block_set);
        ASSERT_GT(spin.size(), mode == WM_OUTPUT_SET ? 500u : 20000u) << "mode " << mode;
        ASSERT_EQ(block.size(), spin.size()) << "mode " << mode;
        EXPECT_EQ(std::memcmp(block.data(), spin.data(), spin.size() * sizeof(Hit)), 0) << "mode " << mode;
        if (mode != WM_OUTPUT_SET) continue;
        EXPECT_EQ(spin_set.size(), 2 * spin.size()); // the same batch twice
        ASSERT_EQ(block_set.size(), spin_set.size());
        EXPECT_EQ(std::memcmp(block_set.data(), spin_set.data(), spin_set.size() * sizeof(wm_set_hit_t)), 0);
    }
}

// gpu_wait reaches every GPU engine of a scanner: with literal, approximate
// and align rules, a blocking scanner delivers what a spinning one does, and
// each cross-checked batch agrees with the CPU engines (no mismatch).
TEST_F(ScannerOptions, BlockingGpuWaitsCoverApproximateAndAlignRules) {
    static const char kMixed[] = "version: 1\n"
                                 "rules:\n"
                                 "  - {id: 1, msg: literal, pattern: \"abcab\"}\n"
                                 "  - {id: 2, msg: edits, pattern: \"abcABxyab\", max_edits: 2}\n"
                                 "  - {id: 3, msg: mismatches, pattern: \"xyabcab\", max_mismatches: 1, nocase: true}\n"
                                 "  - {id: 4, msg: align, align: {reference: \"abcABxyabcABxyabcAB\", min_score: 60}}\n";
    wm_ruleset_t *mixed = nullptr;
    ASSERT_EQ(wm_ruleset_load_string(kMixed, sizeof(kMixed) - 1, "mixed", &mixed, nullptr), WM_SUCCESS);
    RandomBatch rb(256u << 10, 5, 22); // payloads of 0 - 1023 bytes
    rb.data += "xx abcABxyabcABxyabcAB yy";   // and one the align rule finds
    rb.offsets.push_back(static_cast<uint32_t>(rb.data.size()));
    const wm_batch_t b = rb.batch();
    auto scan = [&](int wait, std::vector<Hit> &hits) {
        wm_scanner_options_t o;
        wm_scanner_options_init(&o);
        o.output_mode = WM_OUTPUT_POSITIONS;
        o.gpu_wait = wait;
        o.verify_every = 1;
        wm_scanner_t *s2 = nullptr;
        ASSERT_EQ(wm_scanner_create(mixed, &o, &s2, nullptr), WM_SUCCESS);
        EXPECT_EQ(wm_scan_batch(s2, &b, collect, &hits, nullptr), WM_SUCCESS) << wm_scanner_backend_reason(s2);
        wm_scanner_free(s2);
    };
    std::vector<Hit> spin, block;
    scan(WM_GPU_WAIT_SPIN, spin);
    scan(WM_GPU_WAIT_BLOCK, block);
    wm_ruleset_free(mixed);
    for (uint32_t id = 1; id <= 4; ++id)
        EXPECT_TRUE(std::any_of(spin.begin(), spin.end(), [&](const Hit &h) { return h.rule == id; }))
            << "rule " << id << " never matched";
    ASSERT_EQ(block.size(), spin.size());
    EXPECT_EQ(std::memcmp(block.data(), spin.data(), spin.size() * sizeof(Hit)), 0);
}

// A CPU scanner with cpu_threads delivers what one without does, in the same
// order, on a batch large enough to be cut among its threads.
TEST_F(ScannerOptions, CpuThreadsDeliverTheSameMatches) {
    const RandomBatch rb(4u << 20, 1, 20); // payloads of 0 - 4095 bytes
    const wm_batch_t b = rb.batch();
    for (int mode : {WM_OUTPUT_POSITIONS, WM_OUTPUT_SET}) {
        std::vector<Hit> want, got;
        wm_scanner_options_t o;
        wm_scanner_options_init(&o);
        o.backend = WM_BACKEND_CPU;
        o.output_mode = mode;
        wm_scanner_t *one = nullptr, *many = nullptr;
        ASSERT_EQ(wm_scanner_create(rs, &o, &one, nullptr), WM_SUCCESS);
        o.cpu_threads = 4;
        ASSERT_EQ(wm_scanner_create(rs, &o, &many, nullptr), WM_SUCCESS);
        EXPECT_EQ(wm_scan_batch(one, &b, collect, &want, nullptr), WM_SUCCESS);
        EXPECT_EQ(wm_scan_batch(many, &b, collect, &got, nullptr), WM_SUCCESS);
        wm_scanner_free(one);
        wm_scanner_free(many);
        ASSERT_GT(want.size(), mode == WM_OUTPUT_SET ? 2000u : 100000u); // set: <= 2 rules x 2,066 payloads
        ASSERT_EQ(got.size(), want.size()) << "mode " << mode;
        EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(Hit)), 0) << "mode " << mode;
    }
}

} // namespace

// wm_gpu_h2d_bandwidth (0.16): arguments checked first; without a usable GPU
// WM_NO_GPU saying why; with one a rate between what any PCIe or C2C link
// could carry (0.1 to 1000 GB/s), and a device that does not exist is
// WM_NO_GPU naming its number.
TEST(GpuH2dBandwidth, MeasuresOrSaysWhyNot) {
    double gbs = -1;
    EXPECT_EQ(wm_gpu_h2d_bandwidth(0, 1 << 20, 3, nullptr, nullptr), WM_INVALID);
    EXPECT_EQ(wm_gpu_h2d_bandwidth(0, 0, 3, &gbs, nullptr), WM_INVALID);
    EXPECT_EQ(wm_gpu_h2d_bandwidth(0, 1 << 20, 0, &gbs, nullptr), WM_INVALID);
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_gpu_h2d_bandwidth(1000, 1 << 20, 3, &gbs, &err), WM_NO_GPU);
    ASSERT_NE(err, nullptr);
    EXPECT_NE(std::string(err->message).find("GPU 1000"), std::string::npos) << err->message;
    wm_error_free(err);
    err = nullptr;
    const int rc = wm_gpu_h2d_bandwidth(0, 64 << 20, 5, &gbs, &err);
    if (rc == WM_NO_GPU) {
        ASSERT_NE(err, nullptr);
        EXPECT_EQ(gbs, 0.0);
        wm_error_free(err);
        GTEST_SKIP() << "no usable GPU: WM_NO_GPU as documented";
    }
    ASSERT_EQ(rc, WM_SUCCESS) << (err ? err->message : "");
    EXPECT_GT(gbs, 0.1);
    EXPECT_LT(gbs, 1000.0);
}
