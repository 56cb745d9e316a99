// gpu/ac_set_pairs.cu - Set mode's device passes after the scan kernel, for
// GpuMatcher::scan_set_pairs(): drop the keys whose pattern's scope does not
// fit the payload (before the sort, so the sort sees fewer keys), and map the
// sorted keys to pair words in place. Per-element logic: ac_scope.h.
#include "gpu/ac_kernels.h"
#include "gpu/cuda_check.h"

namespace wm::gpu {
namespace {

constexpr int kThreads = 256;

uint32_t blocks_for(uint32_t n) { return (n + kThreads - 1) / kThreads; }

// One atomic per warp: the order of the kept keys is not kept (sorted next).
__global__ void filter_keys_kernel(const unsigned long long *in, uint32_t n, unsigned long long *out,
                                   uint32_t *kept, ScopeView scopes, const PayloadMeta *meta, uint32_t meta_base) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    bool keep = false;
    unsigned long long key = 0;
    if (i < n) {
        key = in[i];
        keep = scope_applies(scopes, static_cast<uint32_t>(key), meta[static_cast<uint32_t>(key >> 32) - meta_base]);
    }
    const unsigned mask = __ballot_sync(0xffffffffu, keep);
    if (mask == 0) return;
    const int lane = threadIdx.x & 31, leader = __ffs(mask) - 1;
    uint32_t base = 0;
    if (lane == leader) base = atomicAdd(kept, static_cast<uint32_t>(__popc(mask)));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (keep) out[base + __popc(mask & ((1u << lane) - 1))] = key;
}

__global__ void keys_to_pairs_kernel(unsigned long long *keys, uint32_t n, const uint32_t *id) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) keys[i] = pair_word(keys[i], id);
}

} // namespace

void ac_filter_keys(const unsigned long long *d_in, uint32_t n, unsigned long long *d_out, uint32_t *d_kept,
                    const ScopeView &scopes, const PayloadMeta *d_meta, uint32_t meta_base, cudaStream_t stream) {
    WM_CUDA_CHECK(cudaMemsetAsync(d_kept, 0, sizeof(uint32_t), stream));
    if (n == 0) return;
    filter_keys_kernel<<<blocks_for(n), kThreads, 0, stream>>>(d_in, n, d_out, d_kept, scopes, d_meta, meta_base);
    WM_CUDA_CHECK(cudaGetLastError());
}

void ac_keys_to_pairs(unsigned long long *d_keys, uint32_t n, const uint32_t *d_id, cudaStream_t stream) {
    if (n == 0) return;
    keys_to_pairs_kernel<<<blocks_for(n), kThreads, 0, stream>>>(d_keys, n, d_id);
    WM_CUDA_CHECK(cudaGetLastError());
}

} // namespace wm::gpu
