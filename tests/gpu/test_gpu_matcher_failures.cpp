// tests/gpu/test_gpu_matcher_failures.cpp - a matcher whose construction
// fails (out of device memory for a chunk slot's outputs) frees the device
// memory it had taken: the blob and the scopes were raw allocations that no
// destructor freed, and an `auto` scanner per worker thread retrying on a
// full device leaked tens of MB each time. Skips without a GPU.
#include "gpu/ac_tuning.h"
#include "gpu/gpu_matcher.h"
#include "gpu/gpu_testing.h"

#include <gtest/gtest.h>

#include <random>

using namespace wm::gpu;

namespace {

// 4,000 random 12-byte literals over every byte: ~44,000 states of dense
// rows, tens of MB of blob on the device.
std::vector<Literal> many_literals() {
    std::mt19937 rng(4242);
    std::vector<Literal> pats(4000);
    for (auto &p : pats) {
        p.bytes.resize(12);
        for (char &c : p.bytes) c = static_cast<char>(rng() & 0xff);
    }
    return pats;
}

} // namespace

TEST(GpuMatcherFailures, AConstructorThatFailsFreesWhatItTook) {
    std::string why;
    if (!gpu_usable(0, &why)) GTEST_SKIP() << "no CUDA device: " << why;
    const auto pats = many_literals();
    { auto warm = GpuMatcher::create(pats, GpuOptions{}); } // the context and the allocator's pools first
    const size_t before = wm::gpu::testing::device_free_bytes();
    ASSERT_GT(before, 0u);
    size_t failures = 0;
    for (int round = 0; round < 3; ++round)
        for (size_t k = 1; k <= tuning::kStreams; ++k) { // each chunk slot's output allocation in turn
            wm::gpu::testing::fail_output_allocation(k);
            try {
                auto m = GpuMatcher::create(pats, GpuOptions{});
                ADD_FAILURE() << "slot " << k << "'s allocation did not fail";
            } catch (const GpuError &e) {
                ++failures;
                EXPECT_NE(std::string(e.what()).find("injected"), std::string::npos) << e.what();
            }
        }
    wm::gpu::testing::fail_output_allocation(0);
    EXPECT_EQ(failures, 3 * tuning::kStreams);
    const size_t after = wm::gpu::testing::device_free_bytes();
    // 12 failed constructions: the blob alone would leak ~12 x its size.
    EXPECT_GE(after + (size_t{32} << 20), before) << "free device memory fell by " << (before - after) / (1 << 20)
                                                  << " MB";
    auto m = GpuMatcher::create(pats, GpuOptions{}); // and the device is still usable
    EXPECT_NE(m, nullptr);
}
