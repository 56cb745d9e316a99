// gpu/ac_gather.cu - a chunk's text packed on the device from payloads left
// in place (ac_gather.h): 16 bytes of the text per thread.
#include "gpu/ac_gather.h"
#include "gpu/ac_kernels.h"
#include "gpu/cuda_check.h"

#include <algorithm>

namespace wm::gpu {
namespace {

__global__ void gather_payloads(const uint8_t *__restrict__ raw, uint64_t raw_begin,
                                const uint32_t *__restrict__ offsets, const uint32_t *__restrict__ sources, uint32_t n,
                                uint64_t text_begin, uint64_t text_end, uint8_t *__restrict__ text) {
    const uint64_t blocks = gather_blocks(text_end - text_begin);
    const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
    for (uint64_t k = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; k < blocks; k += stride) {
        alignas(16) uint8_t out[kGatherBlockBytes];
        const uint32_t len = gather_block(k, offsets, sources, n, raw, raw_begin, text_begin, text_end, out);
        uint8_t *dst = text + k * kGatherBlockBytes; // 16-byte aligned: d_text is
        if (len == kGatherBlockBytes) {
            *reinterpret_cast<uint4 *>(dst) = *reinterpret_cast<const uint4 *>(out);
        } else {
            for (uint32_t j = 0; j < len; ++j) dst[j] = out[j];
        }
    }
}

} // namespace

void ac_gather_payloads(const uint8_t *d_raw, uint64_t raw_begin, const uint32_t *d_offsets,
                        const uint32_t *d_sources, uint32_t n, uint64_t text_begin, uint32_t text_bytes,
                        uint8_t *d_text, cudaStream_t stream) {
    if (n == 0 || text_bytes == 0) return;
    const uint32_t threads = 256;
    const uint64_t blocks = (gather_blocks(text_bytes) + threads - 1) / threads;
    gather_payloads<<<static_cast<uint32_t>(std::min<uint64_t>(blocks, 65535)), threads, 0, stream>>>(
        d_raw, raw_begin, d_offsets, d_sources, n, text_begin, text_begin + text_bytes, d_text);
    WM_CUDA_CHECK_LAUNCH("gather_payloads");
}

} // namespace wm::gpu
