// gpu/ac_set_pairs.cu - Set mode's device passes around the sort, for
// GpuMatcher::scan_set_pairs(): re-encode the keys for a short sort (and drop
// those whose pattern's scope does not fit the payload, so the sort sees fewer
// keys), pad the sort buffer, and map the sorted keys to pair words in place.
// Every pass reads the key count from device memory, so a chunk's passes are
// enqueued right behind its scan kernel with no host round trip. Per-element
// logic: ac_scope.h.
#include "gpu/ac_kernels.h"
#include "gpu/cuda_check.h"

namespace wm::gpu {
namespace {

constexpr int kThreads = 256;

uint32_t blocks_for(uint32_t n) { return (n + kThreads - 1) / kThreads; }

__device__ inline uint32_t clamped(const uint32_t *d_n, uint32_t cap) { return min(*d_n, cap); }

// In place: keys[0, n) encoded, keys[n, cap) padded.
__global__ void encode_keys_kernel(unsigned long long *keys, const uint32_t *d_n, uint32_t cap, SortKeyCodec codec) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cap) return;
    keys[i] = i < clamped(d_n, cap) ? codec.encode(keys[i]) : kSortPadKey;
}

// One atomic per warp: the order of the kept keys is not kept (sorted next).
__global__ void filter_encode_kernel(const unsigned long long *in, const uint32_t *d_n, uint32_t cap,
                                     unsigned long long *out, uint32_t *kept, ScopeView scopes,
                                     const PayloadMeta *meta, uint32_t meta_base, SortKeyCodec codec) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    bool keep = false;
    unsigned long long key = 0;
    if (i < clamped(d_n, cap)) {
        key = in[i];
        keep = scope_applies(scopes, static_cast<uint32_t>(key), meta[static_cast<uint32_t>(key >> 32) - meta_base]);
    }
    const unsigned mask = __ballot_sync(0xffffffffu, keep);
    if (mask == 0) return;
    const int lane = threadIdx.x & 31, leader = __ffs(mask) - 1;
    uint32_t base = 0;
    if (lane == leader) base = atomicAdd(kept, static_cast<uint32_t>(__popc(mask)));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (keep) out[base + __popc(mask & ((1u << lane) - 1))] = codec.encode(key);
}

__global__ void pad_keys_kernel(unsigned long long *keys, const uint32_t *d_n, uint32_t cap) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < cap && i >= clamped(d_n, cap)) keys[i] = kSortPadKey;
}

__global__ void sorted_keys_to_pairs_kernel(unsigned long long *keys, const uint32_t *d_n, uint32_t cap,
                                            SortKeyCodec codec, const uint32_t *id) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < clamped(d_n, cap)) keys[i] = codec.pair(keys[i], id);
}

} // namespace

void ac_encode_keys(unsigned long long *d_keys, const uint32_t *d_n, uint32_t sort_n, const SortKeyCodec &codec,
                    cudaStream_t stream) {
    if (sort_n == 0) return;
    encode_keys_kernel<<<blocks_for(sort_n), kThreads, 0, stream>>>(d_keys, d_n, sort_n, codec);
    WM_CUDA_CHECK(cudaGetLastError());
}

void ac_filter_encode_keys(const unsigned long long *d_in, const uint32_t *d_n, uint32_t sort_n,
                           unsigned long long *d_out, uint32_t *d_kept, const ScopeView &scopes,
                           const PayloadMeta *d_meta, uint32_t meta_base, const SortKeyCodec &codec,
                           cudaStream_t stream) {
    WM_CUDA_CHECK(cudaMemsetAsync(d_kept, 0, sizeof(uint32_t), stream));
    if (sort_n == 0) return;
    filter_encode_kernel<<<blocks_for(sort_n), kThreads, 0, stream>>>(d_in, d_n, sort_n, d_out, d_kept, scopes,
                                                                      d_meta, meta_base, codec);
    WM_CUDA_CHECK(cudaGetLastError());
    pad_keys_kernel<<<blocks_for(sort_n), kThreads, 0, stream>>>(d_out, d_kept, sort_n);
    WM_CUDA_CHECK(cudaGetLastError());
}

void ac_sorted_keys_to_pairs(unsigned long long *d_keys, const uint32_t *d_n, uint32_t sort_n,
                             const SortKeyCodec &codec, const uint32_t *d_id, cudaStream_t stream) {
    if (sort_n == 0) return;
    sorted_keys_to_pairs_kernel<<<blocks_for(sort_n), kThreads, 0, stream>>>(d_keys, d_n, sort_n, codec, d_id);
    WM_CUDA_CHECK(cudaGetLastError());
}

} // namespace wm::gpu
