// gpu/cuda_check.h - CUDA error checks that throw GpuError naming the call.
// Internal: include only from CUDA-aware translation units.
#pragma once

#include "gpu/gpu_matcher.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

namespace wm::gpu {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char *what, const char *file, int line) {
    throw GpuError(std::string(what) + " failed: " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) +
                   ", " + file + ":" + std::to_string(line) + ")");
}

// cudaMalloc of count T (at least 16 bytes); an out-of-memory error names
// the buffer and its size, so "GPU out of memory" says what and where.
template <typename T> T *dev_alloc(size_t count, const char *what) {
    void *p = nullptr;
    const size_t bytes = std::max<size_t>(count * sizeof(T), 16);
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess)
        throw GpuError(std::string("cudaMalloc(") + what + ", " + std::to_string(bytes) +
                       " bytes) failed: " + cudaGetErrorString(e));
    return static_cast<T *>(p);
}

} // namespace wm::gpu

// Checks a CUDA runtime call; throws GpuError naming it.
#define WM_CUDA_CHECK(call)                                                                        \
    do {                                                                                           \
        const cudaError_t wm_e_ = (call);                                                          \
        if (wm_e_ != cudaSuccess) ::wm::gpu::throw_cuda(wm_e_, #call, __FILE__, __LINE__);         \
    } while (0)

// Checks the launch error right after a kernel launch.
#define WM_CUDA_CHECK_LAUNCH(name)                                                                 \
    do {                                                                                           \
        const cudaError_t wm_e_ = cudaGetLastError();                                              \
        if (wm_e_ != cudaSuccess) ::wm::gpu::throw_cuda(wm_e_, "launch of " name, __FILE__, __LINE__); \
    } while (0)
