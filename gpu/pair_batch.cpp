// gpu/pair_batch.cpp - see pair_batch.h.
#include "gpu/pair_batch.h"

#include "gpu/chunk_slot.h"
#include "gpu/cuda_check.h"

#include <algorithm>
#include <cstring>

namespace wm::gpu {

PairBatch::~PairBatch() {
    for (cudaEvent_t e : copied_)
        if (e) cudaEventDestroy(e);
}

void PairBatch::start(bool with_filter, size_t expected_pairs) {
    total = 0;
    filter = with_filter;
    split = false;
    reserve(expected_pairs);
}

void PairBatch::reserve(size_t n) {
    if (n <= h_pairs_.size()) return;
    wait(); // copies into the old buffer land before it is copied and freed
    if (g_fail_pair_buffer_allocation.load() && --g_fail_pair_buffer_allocation == 0)
        throw GpuError("cudaHostAlloc(set pairs) failed: out of memory (injected: "
                       "testing::fail_pair_buffer_allocation)");
    PinnedHostArray<unsigned long long> bigger(std::max(n + n / 2, size_t{1} << 16), "set pairs");
    if (total) std::memcpy(bigger.get(), h_pairs_.get(), total * sizeof(unsigned long long));
    h_pairs_ = std::move(bigger);
}

void PairBatch::append(const unsigned long long *d_pairs, uint32_t n, unsigned stream_index, cudaStream_t stream) {
    if (n == 0) return;
    reserve(total + n);
    WM_CUDA_CHECK(cudaMemcpyAsync(h_pairs_.get() + total, d_pairs, size_t{n} * sizeof(unsigned long long),
                                  cudaMemcpyDeviceToHost, stream));
    total += n;
    cudaEvent_t &e = copied_[stream_index];
    if (!e) WM_CUDA_CHECK(cudaEventCreateWithFlags(&e, event_flags_));
    WM_CUDA_CHECK(cudaEventRecord(e, stream)); // covers this stream's earlier copies too
    recorded_[stream_index] = true;
}

void PairBatch::wait() {
    for (unsigned i = 0; i < tuning::kStreams; ++i) {
        if (!recorded_[i]) continue;
        WM_CUDA_CHECK(cudaEventSynchronize(copied_[i]));
        recorded_[i] = false;
    }
}

void PairBatch::abandon() {
    std::fill(std::begin(recorded_), std::end(recorded_), false);
    total = 0;
}

} // namespace wm::gpu
