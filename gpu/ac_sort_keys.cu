// gpu/ac_sort_keys.cu - sorts a chunk's output on the device with
// cub::DeviceRadixSort, so the host receives it ordered and need not sort it:
// Set mode's distinct keys (payload << 32 | pattern), and Positions mode's
// matches packed into keys (ac_positions_order.h).
// CUB must be compiled by nvcc, hence this file; see ac_kernels.h.
#include "gpu/ac_kernels.h"
#include "gpu/ac_positions_order.h"
#include "gpu/cuda_check.h"

#include <cub/device/device_radix_sort.cuh>

namespace wm::gpu {

size_t ac_sort_keys_temp_bytes(uint32_t capacity) {
    // Upper bound for every later call: the most items, the most bits (most
    // passes), the same overload and item-count type (DoubleBuffer: no
    // internal alternate key buffer, 32-bit offsets).
    cub::DoubleBuffer<unsigned long long> keys(nullptr, nullptr);
    size_t bytes = 0;
    WM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, capacity, 0, 64));
    return bytes;
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

__global__ void pack_positions_kernel(const Match *m, uint32_t n, PositionsKeyCodec codec, unsigned long long *keys) {
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        keys[i] = codec.encode(m[i]);
}

} // namespace

void ac_pack_positions(const Match *d_matches, uint32_t n, const PositionsKeyCodec &codec, unsigned long long *d_keys,
                       cudaStream_t stream) {
    if (n == 0) return;
    const uint32_t grid = (n + 255) / 256 < 8192 ? (n + 255) / 256 : 8192;
    pack_positions_kernel<<<grid, 256, 0, stream>>>(d_matches, n, codec, d_keys);
    WM_CUDA_CHECK(cudaGetLastError());
}

} // namespace wm::gpu
