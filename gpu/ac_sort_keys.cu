// gpu/ac_sort_keys.cu - sorts a chunk's output on the device with
// cub::DeviceRadixSort, so the host receives it ordered and need not sort it:
// Set mode's distinct keys (payload << 32 | pattern), and Positions mode's
// matches packed into keys (ac_positions_order.h), or only each (payload,
// pattern)'s first (PositionsKept::FirstPerPattern).
// CUB must be compiled by nvcc, hence this file; see ac_kernels.h.
#include "gpu/ac_kernels.h"
#include "gpu/ac_positions_order.h"
#include "gpu/cuda_check.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

namespace wm::gpu {

namespace {

// Selects every key but kNotFirst (ac_select_first_positions).
struct IsFirst {
    __device__ bool operator()(unsigned long long k) const { return k != kNotFirst; }
};

} // namespace

size_t ac_sort_keys_temp_bytes(uint32_t capacity) {
    // Upper bound for every later call: the most items, the most bits (most
    // passes), the same overload and item-count type (DoubleBuffer: no
    // internal alternate key buffer, 32-bit offsets).
    cub::DoubleBuffer<unsigned long long> keys(nullptr, nullptr);
    size_t bytes = 0;
    WM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, capacity, 0, 64));
    size_t select = 0;
    WM_CUDA_CHECK(cub::DeviceSelect::If(nullptr, select, static_cast<const unsigned long long *>(nullptr),
                                        static_cast<unsigned long long *>(nullptr), static_cast<uint32_t *>(nullptr),
                                        capacity, IsFirst{}));
    return bytes > select ? bytes : select;
}

unsigned long long *ac_sort_keys(unsigned long long *d_keys, unsigned long long *d_alt, uint32_t n, int end_bit,
                                 void *d_temp, size_t temp_bytes, cudaStream_t stream) {
    if (n < 2) return d_keys;
    end_bit = end_bit < 1 ? 1 : (end_bit > 64 ? 64 : end_bit);
    cub::DoubleBuffer<unsigned long long> keys(d_keys, d_alt);
    size_t bytes = temp_bytes; // CUB fails (cudaErrorInvalidValue) rather than overrun a short buffer
    // CUB checks its own launches and returns their error.
    WM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_temp, bytes, keys, n, 0, end_bit, stream));
    return keys.Current();
}

namespace {

template <typename Codec>
__global__ void pack_positions_kernel(const Match *m, uint32_t n, Codec codec, unsigned long long *keys) {
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        keys[i] = codec.encode(m[i]);
}

__global__ void mark_first_positions_kernel(const unsigned long long *sorted, uint32_t n, FirstsKeyCodec codec,
                                            unsigned long long *marked) {
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        marked[i] = codec.first_of_run(sorted, i);
}

// A grid-stride launch over n items: at most 8192 blocks of 256.
uint32_t grid_for(uint32_t n) { return (n + 255) / 256 < 8192 ? (n + 255) / 256 : 8192; }

template <typename Codec>
void pack_positions(const Match *d_matches, uint32_t n, const Codec &codec, unsigned long long *d_keys,
                    cudaStream_t stream) {
    if (n == 0) return;
    pack_positions_kernel<<<grid_for(n), 256, 0, stream>>>(d_matches, n, codec, d_keys);
    WM_CUDA_CHECK(cudaGetLastError());
}

} // namespace

void ac_pack_positions(const Match *d_matches, uint32_t n, const PositionsKeyCodec &codec, unsigned long long *d_keys,
                       cudaStream_t stream) {
    pack_positions(d_matches, n, codec, d_keys, stream);
}

void ac_pack_first_positions(const Match *d_matches, uint32_t n, const FirstsKeyCodec &codec,
                             unsigned long long *d_keys, cudaStream_t stream) {
    pack_positions(d_matches, n, codec, d_keys, stream);
}

void ac_select_first_positions(const unsigned long long *d_sorted, uint32_t n, const FirstsKeyCodec &codec,
                               unsigned long long *d_marked, unsigned long long *d_out, uint32_t *d_num,
                               void *d_temp, size_t temp_bytes, cudaStream_t stream) {
    if (n == 0) {
        WM_CUDA_CHECK(cudaMemsetAsync(d_num, 0, sizeof(uint32_t), stream));
        return;
    }
    mark_first_positions_kernel<<<grid_for(n), 256, 0, stream>>>(d_sorted, n, codec, d_marked);
    WM_CUDA_CHECK(cudaGetLastError());
    size_t bytes = temp_bytes;
    WM_CUDA_CHECK(cub::DeviceSelect::If(d_temp, bytes, static_cast<const unsigned long long *>(d_marked), d_out, d_num,
                                        n, IsFirst{}, stream));
}

} // namespace wm::gpu
