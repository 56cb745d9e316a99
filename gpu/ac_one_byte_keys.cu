// gpu/ac_one_byte_keys.cu - the Set keys of one-byte literals (ac_blob.h).
// The Set kernel's lanes OR the one-byte classes of the bytes they step into
// their payload's word; this pass, behind the kernel on its stream, makes
// each class bit of a word into one key per literal of that class. On ET
// Open those literals are half of the Set keys, and the walk no longer
// queues the 42% of hits that only they made (PERFORMANCE.md, runs 268-275).
#include "gpu/ac_kernels.h"
#include "gpu/ac_walk.cuh"
#include "gpu/cuda_check.h"

#include <algorithm>

namespace wm::gpu {
namespace {

constexpr uint32_t kThreads = 256;
constexpr uint32_t kMaxBlocks = 1024;

// One payload per thread. The literals of each class come from shared
// memory, copied once per block from the blob's list (ac_blob.h), so a
// payload costs its word's load and its keys' stores; a warp reserves its
// keys with one atomic (ET Open makes ~47 M of these keys per 4 GB of real
// payloads, too many for one counter key by key) and stages them in shared
// memory, so its stores to the output are whole sectors (a lane's own keys,
// ~2 per payload, had made a partial sector per key).
__global__ void __launch_bounds__(kThreads) one_byte_keys_kernel(const ScanParams p) {
    static_assert(kMaxOneByteClasses == 32, "a word's bits are the classes");
    constexpr uint32_t kStageKeys = 256; // per warp; a round with more keys writes them in place
    __shared__ uint32_t first[kMaxOneByteClasses + 1]; // class c's literals: ids[first[c], first[c + 1])
    __shared__ uint32_t ids[kMaxOneByteLiterals];
    __shared__ unsigned long long stage[kThreads / 32][kStageKeys];
    const AcGroupView &g = p.view.groups[0];
    const uint32_t lane = threadIdx.x & 31, words = p.one_byte_words;
    static_assert(kThreads > kMaxOneByteClasses, "a thread per list bound");
    if (threadIdx.x <= kMaxOneByteClasses) first[threadIdx.x] = g.one_byte_lits[threadIdx.x];
    for (uint32_t k = threadIdx.x; k < g.one_byte_lits[kMaxOneByteClasses]; k += kThreads)
        ids[k] = g.one_byte_lits[kMaxOneByteClasses + 1 + k]; // at most kMaxOneByteLiterals (ac_compile.cpp)
    __syncthreads();
    for (uint32_t base = blockIdx.x * kThreads; base < words; base += gridDim.x * kThreads) {
        const uint32_t j = base + threadIdx.x;
        const uint32_t bits = j < words ? p.d_one_byte[j] : 0u;
        uint32_t n = 0;
        for (uint32_t b = bits; b; b &= b - 1) {
            const uint32_t c = __ffs(b) - 1;
            n += first[c + 1] - first[c];
        }
        uint32_t incl = n; // inclusive scan of the lanes' key counts
        for (uint32_t d = 1; d < 32; d <<= 1) {
            const uint32_t t = __shfl_up_sync(~0u, incl, d);
            if (lane >= d) incl += t;
        }
        const uint32_t total = __shfl_sync(~0u, incl, 31);
        uint32_t warp_at = 0;
        if (lane == 31 && total) warp_at = atomicAdd(p.d_count, total);
        warp_at = __shfl_sync(~0u, warp_at, 31);
        const bool staged = total <= kStageKeys; // warp-uniform
        unsigned long long *out = staged ? stage[threadIdx.x >> 5] : p.d_keys + warp_at;
        const unsigned long long payload = static_cast<unsigned long long>(p.one_byte_first + j) << 32;
        uint32_t at = incl - n;
        for (uint32_t b = bits; b; b &= b - 1) {
            const uint32_t c = __ffs(b) - 1;
            for (uint32_t k = first[c]; k < first[c + 1]; ++k, ++at)
                if (staged || warp_at + at < p.capacity) out[at] = payload | ids[k];
        }
        if (staged) {
            __syncwarp();
            for (uint32_t r = lane; r < total; r += 32)
                if (warp_at + r < p.capacity) p.d_keys[warp_at + r] = out[r];
            __syncwarp(); // the stage is read before the next round writes it
        }
    }
}

} // namespace

void ac_one_byte_keys(const ScanParams &p, cudaStream_t stream) {
    if (p.one_byte_words == 0) return;
    const uint32_t blocks = std::min<uint32_t>(kMaxBlocks, (p.one_byte_words + kThreads - 1) / kThreads);
    one_byte_keys_kernel<<<blocks, kThreads, 0, stream>>>(p);
    WM_CUDA_CHECK_LAUNCH("one_byte_keys_kernel");
}

} // namespace wm::gpu
