// tests/gpu/test_chunk_trace.cpp - the matcher's chunk timelines
// (testing::set_chunk_trace, WM_CHUNK_TRACE): every point a Positions call
// marks is reached, in the order the work runs, chunk by chunk. Every test
// skips with "no CUDA device: <reason>" without a GPU.
#include "gpu/gpu_matcher.h"
#include "gpu/gpu_testing.h"
#include "gpu/positions_chunk.h"
#include "reference.h"

#include <gtest/gtest.h>

using namespace wm::gpu;
using namespace wm::gpu::test;
using wm::gpu::testing::ChunkTrace;

namespace {

// Restores the process-wide hooks a test turned on.
struct TraceHooks {
    explicit TraceHooks(size_t chunk_bytes) {
        wm::gpu::testing::set_max_chunk_bytes(chunk_bytes);
        wm::gpu::testing::set_chunk_trace(true);
    }
    ~TraceHooks() {
        wm::gpu::testing::set_chunk_trace(false);
        wm::gpu::testing::set_max_chunk_bytes(0);
    }
};

void expect_ordered_timeline(const std::vector<ChunkTrace> &trace, const std::string &label) {
    for (size_t k = 0; k < trace.size(); ++k) {
        const ChunkTrace &t = trace[k];
        const std::string at = label + ", chunk " + std::to_string(k);
        EXPECT_GT(t.bytes, 0u) << at;
        EXPECT_LT(t.slot, 4u) << at;
        for (double ms : t.gpu_ms) EXPECT_GE(ms, 0.0) << at << ": a point not reached";
        for (double ms : t.host_ms) EXPECT_GE(ms, 0.0) << at << ": a point not reached";
        for (int p = 1; p < ChunkTrace::kGpuPoints; ++p) // events of one stream, in its order
            EXPECT_LE(t.gpu_ms[p - 1], t.gpu_ms[p]) << at << ": GPU point " << p;
        EXPECT_LE(t.host_ms[ChunkTrace::kWaitBegin], t.host_ms[ChunkTrace::kWaitEnd]) << at;
        if (k > 0) EXPECT_LE(trace[k - 1].host_ms[ChunkTrace::kStaged], t.host_ms[ChunkTrace::kStaged]) << at;
    }
}

} // namespace

TEST(ChunkTrace, PositionsCallsMarkEveryPointInOrder) {
    REQUIRE_GPU();
    CaseSpec s;
    s.payloads = 400;
    s.max_payload = 2000; // ~330 KB: several 64 KB chunks, each with matches
    s.offset_depth = false;
    const Case c = random_case(5, s);
    TraceHooks hooks(64 << 10);
    auto m = GpuMatcher::create(c.pats, GpuOptions{});
    for (PositionsKept kept : {PositionsKept::Every, PositionsKept::FirstPerPattern}) {
        const std::string label = kept == PositionsKept::Every ? "every match" : "firsts";
        size_t records = 0;
        m->scan_positions(c.view(), [&](const PositionsChunk &ch) { records += ch.count; }, kept);
        EXPECT_GT(records, 0u) << label;
        const std::vector<ChunkTrace> trace = wm::gpu::testing::last_chunk_trace();
        ASSERT_GE(trace.size(), 5u) << label << ": one timeline entry per chunk";
        // A call that drains its chunks starts at the first slot, whatever the call before left.
        EXPECT_EQ(trace[0].slot, 0u) << label;
        size_t bytes = 0;
        for (const ChunkTrace &t : trace) bytes += t.bytes;
        EXPECT_GE(bytes, c.data.size()) << label << ": the chunks cover the batch";
        expect_ordered_timeline(trace, label);
    }
}
