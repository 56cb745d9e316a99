// gpu/chunk_trace.h - optional timeline of one matcher call, chunk by chunk:
// CUDA events on each chunk's stream (copy in, scan, passes, copy back) and
// host clock marks (staged, waiting). Off unless testing::set_chunk_trace(true);
// read with testing::last_chunk_trace(). For pipeline studies
// (bench_pairs_trace), not for production (needs the CUDA runtime).
#pragma once

#include "gpu/gpu_testing.h"

#include <array>
#include <chrono>
#include <cuda_runtime_api.h>
#include <vector>

namespace wm::gpu {

class ChunkTracer {
  public:
    using Gpu = testing::ChunkTrace::Gpu;
    using Host = testing::ChunkTrace::Host;
    ChunkTracer() = default;
    ChunkTracer(const ChunkTracer &) = delete;
    ChunkTracer &operator=(const ChunkTracer &) = delete;
    ~ChunkTracer();

    // Starts a call's timeline (origin: an event on `s`, idle at a call's start).
    void begin(cudaStream_t s);
    void gpu(uint32_t chunk, Gpu point, cudaStream_t s);
    void host(uint32_t chunk, Host point, uint32_t slot = 0, uint32_t bytes = 0);
    // After every stream of the call is idle: converts and publishes the timeline.
    void end();
    bool on() const { return on_; }

  private:
    using Events = std::array<cudaEvent_t, testing::ChunkTrace::kGpuPoints>;
    Events &events(uint32_t chunk);
    bool on_ = false;
    cudaEvent_t origin_ = nullptr;
    std::chrono::steady_clock::time_point t0_;
    std::vector<Events> pool_;
    std::vector<testing::ChunkTrace> chunks_;
};

} // namespace wm::gpu
