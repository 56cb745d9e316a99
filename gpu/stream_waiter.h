// gpu/stream_waiter.h - waits for what was enqueued on a CUDA stream, the
// way a HostWait says: cudaStreamSynchronize (Spin), or an event made with
// cudaEventBlockingSync recorded on the stream and slept on (Block). One
// waiter per engine, used for every wait of that engine's thread.
#pragma once

#include "gpu/cuda_check.h"
#include "gpu/host_wait.h"

#include <cuda_runtime_api.h>

namespace wm::gpu {

class StreamWaiter {
  public:
    // Throws GpuError when the event cannot be made (the current device's).
    explicit StreamWaiter(HostWait how = HostWait::Spin) : how_(how) {
        if (how == HostWait::Block)
            WM_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventBlockingSync | cudaEventDisableTiming));
    }
    ~StreamWaiter() {
        if (done_) cudaEventDestroy(done_);
    }
    StreamWaiter(const StreamWaiter &) = delete;
    StreamWaiter &operator=(const StreamWaiter &) = delete;

    // Returns once everything enqueued on `stream` so far is done; throws
    // GpuError with the failing call and the error of the work waited for.
    void wait(cudaStream_t stream) const {
        if (!done_) {
            WM_CUDA_CHECK(cudaStreamSynchronize(stream));
            return;
        }
        WM_CUDA_CHECK(cudaEventRecord(done_, stream));
        WM_CUDA_CHECK(cudaEventSynchronize(done_));
    }
    HostWait how() const { return how_; }

  private:
    HostWait how_;
    cudaEvent_t done_ = nullptr;
};

} // namespace wm::gpu
