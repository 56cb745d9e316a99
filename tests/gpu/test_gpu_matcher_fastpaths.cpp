// tests/gpu/test_gpu_matcher_fastpaths.cpp - the matcher's fast paths against
// the naive reference: input in the matcher's pinned buffer (no staging copy),
// Set-mode dedupe past the shared table (global fallback) and past the output
// capacity, and outputs sized from earlier chunks. Every test skips with
// "no CUDA device: <reason>" without a GPU.
#include "gpu/gpu_matcher.h"
#include "gpu/gpu_testing.h"
#include "reference.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace wm::gpu;
using namespace wm::gpu::test;

namespace {

void expect_modes_equal_reference(GpuMatcher &m, const Case &c, const BatchView &view, const std::string &label) {
    auto ref = naive_matches(c.pats, c.view());
    sort_matches(ref);
    std::vector<Match> got;
    m.scan(view, OutputMode::Positions, got);
    sort_matches(got);
    ASSERT_EQ(got.size(), ref.size()) << label;
    EXPECT_TRUE(got == ref) << label << ": Positions";
    m.scan(view, OutputMode::Set, got);
    EXPECT_TRUE(set_sorted_distinct(got)) << label << ": Set output not sorted by (payload, pattern)";
    EXPECT_TRUE(got == dedup_set(ref)) << label << ": Set";
    std::vector<uint64_t> counts, hist(c.pats.size());
    m.count(view, counts);
    for (auto &x : ref) ++hist[x.pattern];
    EXPECT_TRUE(counts == hist) << label << ": Count";
}

// Every 2-byte string over the first `symbols` of 64, and payloads of random
// text over them with the given lengths. Over 64 symbols a 2,000-byte payload
// holds ~1,900 distinct patterns, far more than one block's shared Set table.
Case dense_pairs_case(uint32_t seed, uint32_t symbols, const std::vector<uint32_t> &lengths) {
    const std::string sym = std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/").substr(0, symbols);
    Case c;
    for (char a : sym)
        for (char b : sym) c.pats.push_back(Literal{std::string{a, b}});
    std::mt19937 rng(seed);
    for (uint32_t len : lengths) {
        for (uint32_t k = 0; k < len; ++k) c.data.push_back(static_cast<uint8_t>(sym[rng() % sym.size()]));
        c.offs.push_back(static_cast<uint32_t>(c.data.size()));
    }
    return c;
}

Case dense_pairs_case(uint32_t seed, uint32_t payloads, uint32_t len) {
    return dense_pairs_case(seed, 64, std::vector<uint32_t>(payloads, len));
}

} // namespace

TEST(GpuMatcherFastPaths, PinnedBufferInputEqualsReference) {
    REQUIRE_GPU();
    for (uint32_t seed : {1u, 2u, 3u}) {
        CaseSpec s;
        s.patterns = 200;
        s.max_len = 40;
        s.payloads = 500;
        s.max_payload = 3000;
        Case c = random_case(500 + seed, s);
        GpuOptions o;
        o.max_batch_bytes = seed == 1 ? (64u << 20) : 16384; // one chunk; many chunks with split payloads
        o.max_batch_payloads = seed == 3 ? 5 : (1u << 20);
        auto m = GpuMatcher::create(c.pats, o);
        uint8_t *pin = m->pinned_buffer(c.data.size() + 1);
        ASSERT_NE(pin, nullptr);
        std::memcpy(pin, c.data.data(), c.data.size());
        expect_modes_equal_reference(*m, c, BatchView{pin, c.offs.data(), c.view().count},
                                     "pinned seed " + std::to_string(seed));
        // The pinned buffer can grow; the old contents need not survive.
        uint8_t *pin2 = m->pinned_buffer(2 * c.data.size() + 4096);
        std::memcpy(pin2, c.data.data(), c.data.size());
        expect_modes_equal_reference(*m, c, BatchView{pin2, c.offs.data(), c.view().count}, "regrown pinned buffer");
    }
}

// Payloads left in place (BatchView::sources), in pageable memory and in the
// matcher's pinned buffer: the device packs each chunk from its span of the
// bytes, in one chunk and in many with split payloads, as the packed batch.
TEST(GpuMatcherFastPaths, PayloadsLeftInPlaceEqualReference) {
    REQUIRE_GPU();
    for (uint32_t seed : {1u, 2u, 3u}) {
        Case c = random_case(700 + seed, sized_spec(200, 40, 500, 3000));
        const InPlace p = left_in_place(c, seed);
        GpuOptions o;
        o.max_batch_bytes = seed == 1 ? (64u << 20) : 16384;
        o.max_batch_payloads = seed == 3 ? 5 : (1u << 20);
        auto m = GpuMatcher::create(c.pats, o);
        expect_modes_equal_reference(*m, c, p.view(c), "pageable, seed " + std::to_string(seed));
        uint8_t *pin = m->pinned_buffer(p.raw.size());
        std::memcpy(pin, p.raw.data(), p.raw.size());
        expect_modes_equal_reference(*m, c, p.view(c, pin), "pinned, seed " + std::to_string(seed));
        // The packed batch on the same matcher after it (the staging is per chunk).
        expect_modes_equal_reference(*m, c, c.view(), "packed after, seed " + std::to_string(seed));
    }
}

// pinned_buffer() memory is page-locked from its first to its last byte
// (mapped, first touched by several threads, then registered: pinned_host.h)
// in every slot, at sizes one thread or many touch, and writable to the end.
TEST(GpuMatcherFastPaths, PinnedBuffersArePageLockedInEverySlot) {
    REQUIRE_GPU();
    const Case c = random_case(600, CaseSpec{});
    auto m = GpuMatcher::create(c.pats, GpuOptions{});
    for (unsigned slot = 0; slot < GpuMatcher::kPinnedSlots; ++slot) {
        for (size_t bytes : {size_t{1}, size_t{3} << 20, (size_t{64} << 20) + 5}) {
            uint8_t *p = m->pinned_buffer(bytes, slot);
            EXPECT_TRUE(wm::gpu::testing::is_page_locked(p, bytes)) << "slot " << slot << ", " << bytes << " bytes";
            p[bytes - 1] = 7;
        }
    }
}

TEST(GpuMatcherFastPaths, SetDedupeBeyondSharedTable) {
    REQUIRE_GPU();
    Case c = dense_pairs_case(9, 60, 2000);
    auto m = GpuMatcher::create(c.pats, GpuOptions{});
    expect_modes_equal_reference(*m, c, c.view(), "4096 two-byte patterns");
}

// A Set kernel unit (256 tiles) holds many whole payloads, or part of one, or
// the end of one and the start of the next: only the keys of payloads with
// tiles in other units go through the chunk-wide table (ac_agent.cuh,
// flush_set). Payloads of 1 byte to 20 KB in random order, with 256 patterns
// (the shared table never crowds) and with 1,024 (it does).
TEST(GpuMatcherFastPaths, SetDedupeAcrossUnits) {
    REQUIRE_GPU();
    for (uint32_t symbols : {16u, 32u}) {
        std::mt19937 rng(symbols);
        std::vector<uint32_t> lengths;
        for (int i = 0; i < 200; ++i) lengths.push_back(rng() % 4 == 0 ? 1 + rng() % 20000 : 1 + rng() % 300);
        Case c = dense_pairs_case(symbols, symbols, lengths);
        auto m = GpuMatcher::create(c.pats, GpuOptions{});
        expect_modes_equal_reference(*m, c, c.view(), std::to_string(symbols * symbols) + " two-byte patterns");
    }
}

TEST(GpuMatcherFastPaths, SetOverflowGrowsAndRescans) {
    REQUIRE_GPU();
    wm::gpu::testing::set_initial_output_capacity(16);
    Case c = dense_pairs_case(10, 40, 1500);
    auto m = GpuMatcher::create(c.pats, GpuOptions{});
    wm::gpu::testing::set_initial_output_capacity(0);
    expect_modes_equal_reference(*m, c, c.view(), "Set overflow");
}

TEST(GpuMatcherFastPaths, LaterChunksSizedFromTheFirstOverflow) {
    REQUIRE_GPU();
    // One chunk per call, as a replay's windows come: the first overflows its
    // outputs; every later one, as dense (a match per byte but the first of
    // each payload) and most of them bigger, is sized before its launch.
    // Each slot used to overflow on its own first chunk, and again on a
    // bigger one than it had grown for. 16 symbols: 256 patterns, so the
    // naive reference stays quick.
    const std::vector<Literal> pats = dense_pairs_case(11, 16, std::vector<uint32_t>{}).pats;
    for (OutputMode mode : {OutputMode::Positions, OutputMode::Set}) {
        wm::gpu::testing::set_initial_output_capacity(16);
        auto m = GpuMatcher::create(pats, GpuOptions{});
        wm::gpu::testing::set_initial_output_capacity(0);
        const size_t before = wm::gpu::testing::output_rescans();
        uint32_t k = 0;
        for (uint32_t payloads : {70u, 150u, 90u, 200u, 110u, 250u, 80u}) { // 70-250 KB, one chunk each
            const Case c = dense_pairs_case(12 + k++, 16, std::vector<uint32_t>(payloads, 1000));
            auto ref = naive_matches(c.pats, c.view());
            sort_matches(ref);
            if (mode == OutputMode::Set) ref = dedup_set(ref);
            std::vector<Match> got;
            m->scan(c.view(), mode, got);
            if (mode == OutputMode::Positions) sort_matches(got);
            ASSERT_EQ(got.size(), ref.size()) << "call " << k;
            ASSERT_TRUE(got == ref) << "call " << k << (mode == OutputMode::Set ? ", Set" : ", Positions");
        }
        EXPECT_EQ(wm::gpu::testing::output_rescans() - before, 1u)
            << (mode == OutputMode::Set ? "Set" : "Positions") << ": only the first chunk is scanned again";
    }
}

TEST(GpuMatcherFastPaths, FailedOutputGrowthLeavesTheMatcherUsable) {
    REQUIRE_GPU();
    // Out of GPU memory while outputs grow, after an overflow (the rescan's
    // growth) or before a launch (the sizer's): the call fails with a
    // GpuError naming the buffer, and the next call runs as if from a fresh
    // slot. The slot had kept the capacity it asked for with no buffers.
    const Case small = dense_pairs_case(21, 16, std::vector<uint32_t>(70, 1000));
    const Case big = dense_pairs_case(22, 16, std::vector<uint32_t>(200, 1000));
    wm::gpu::testing::set_initial_output_capacity(16);
    auto m = GpuMatcher::create(small.pats, GpuOptions{});
    wm::gpu::testing::set_initial_output_capacity(0);
    std::vector<Match> got;
    wm::gpu::testing::fail_output_allocation(1);
    try {
        m->scan(small.view(), OutputMode::Positions, got);
        ADD_FAILURE() << "the rescan's growth did not fail";
    } catch (const GpuError &e) {
        EXPECT_NE(std::string(e.what()).find("d_matches"), std::string::npos) << e.what();
    }
    expect_modes_equal_reference(*m, small, small.view(), "after a failed rescan growth");
    wm::gpu::testing::fail_output_allocation(1); // big needs more than small left: grown before its launch
    EXPECT_THROW(m->scan(big.view(), OutputMode::Positions, got), GpuError);
    wm::gpu::testing::fail_output_allocation(0);
    expect_modes_equal_reference(*m, big, big.view(), "after a failed growth before the launch");
}
