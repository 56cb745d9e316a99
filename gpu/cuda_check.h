// gpu/cuda_check.h - CUDA error checks that throw GpuError naming the call.
// Internal: include only from CUDA-aware translation units.
#pragma once

#include "gpu/gpu_matcher.h"

#include <cuda_runtime_api.h>
#include <string>

namespace wm::gpu {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char *what, const char *file, int line) {
    throw GpuError(std::string(what) + " failed: " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) +
                   ", " + file + ":" + std::to_string(line) + ")");
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
