// gpu/ac_set_pairs.cu - Set mode's device passes around the sort, for
// GpuMatcher::scan_set_pairs(): re-encode the keys for a short sort (each
// expanded to its pattern's scope entries that fit the payload, so the sort
// sees only keys that are delivered), pad the sort buffer, and map the sorted
// keys to pair words in place.
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

// Each key becomes its pattern's scope entries that fit the payload (meta may
// be null: all of them), encoded for the sort. One atomic per warp; the order
// of the output is not kept (sorted next). Writes past `cap` are dropped but
// counted in *kept, so the host sees the overflow and rescans with more room.
__global__ void expand_encode_kernel(const unsigned long long *in, const uint32_t *d_n, uint32_t cap,
                                     unsigned long long *out, uint32_t *kept, ScopeView scopes,
                                     const PayloadMeta *meta, uint32_t meta_base, SortKeyCodec codec) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long key = 0;
    const PayloadMeta *m = nullptr;
    uint32_t fits = 0;
    if (i < clamped(d_n, cap)) {
        key = in[i];
        if (meta) m = &meta[static_cast<uint32_t>(key >> 32) - meta_base];
        fits = expand_key(scopes, key, m, [](unsigned long long) {});
    }
    const int lane = threadIdx.x & 31;
    uint32_t upto = fits; // inclusive prefix over the warp
    for (int d = 1; d < 32; d <<= 1) {
        const uint32_t v = __shfl_up_sync(0xffffffffu, upto, d);
        if (lane >= d) upto += v;
    }
    const uint32_t total = __shfl_sync(0xffffffffu, upto, 31);
    if (total == 0) return;
    uint32_t base = 0;
    if (lane == 31) base = atomicAdd(kept, total);
    uint32_t at = __shfl_sync(0xffffffffu, base, 31) + upto - fits;
    if (fits == 0) return;
    expand_key(scopes, key, m, [&](unsigned long long k) {
        if (at < cap) out[at] = codec.encode(k);
        ++at;
    });
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

void ac_expand_encode_keys(const unsigned long long *d_in, const uint32_t *d_n, uint32_t sort_n,
                           unsigned long long *d_out, uint32_t *d_kept, const ScopeView &scopes,
                           const PayloadMeta *d_meta, uint32_t meta_base, const SortKeyCodec &codec,
                           cudaStream_t stream) {
    WM_CUDA_CHECK(cudaMemsetAsync(d_kept, 0, sizeof(uint32_t), stream));
    if (sort_n == 0) return;
    expand_encode_kernel<<<blocks_for(sort_n), kThreads, 0, stream>>>(d_in, d_n, sort_n, d_out, d_kept, scopes,
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
