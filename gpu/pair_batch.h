// gpu/pair_batch.h - one batch of GpuMatcher::submit_set_pairs() until it is
// collected: its page-locked pair buffer, filled chunk by chunk by copies on
// the chunk streams, and per stream an event after the last copy into it, so
// collecting it waits for its own copies and not for the next batch's work
// (internal; needs the CUDA runtime).
#pragma once

#include "gpu/ac_tuning.h"
#include "gpu/pinned_host.h"

#include <cuda_runtime_api.h>
#include <cstddef>
#include <cstdint>

namespace wm::gpu {

class PairBatch {
  public:
    PairBatch() = default;
    PairBatch(const PairBatch &) = delete;
    PairBatch &operator=(const PairBatch &) = delete;
    ~PairBatch();

    // Reuses the buffer for a new batch (the previous one was collected),
    // with room for expected_pairs: growing it mid-batch waits for the
    // copies already in flight. Throws GpuError.
    void start(bool filter, size_t expected_pairs);
    // Enqueues the copy of n pair words from d_pairs, after those already
    // appended, on stream `stream_index` (< tuning::kStreams). Throws GpuError.
    void append(const unsigned long long *d_pairs, uint32_t n, unsigned stream_index, cudaStream_t stream);
    // Waits for every copy appended so far. Throws GpuError.
    void wait();
    // Forgets copies in flight (their streams were synchronised after a failure).
    void abandon();
    // wait() sleeps on its events instead of spinning (HostWait::Block);
    // before the first append.
    void use_blocking_waits() { event_flags_ |= cudaEventBlockingSync; }

    unsigned long long *pairs() const { return h_pairs_.get(); }
    size_t total = 0;    // pair words appended (join_split may shrink it)
    bool filter = false; // scopes applied on the device
    bool split = false;  // some payload spanned chunks: pairs need joining

  private:
    void reserve(size_t n); // waits, then grows keeping the contents
    PinnedHostArray<unsigned long long> h_pairs_;
    cudaEvent_t copied_[tuning::kStreams] = {};
    bool recorded_[tuning::kStreams] = {};
    unsigned event_flags_ = cudaEventDisableTiming;
};

} // namespace wm::gpu
