// gpu/align/device_buffer.h - a growable device allocation (internal).
// Grows only, so steady-state calls allocate nothing.
#pragma once

#include "gpu/cuda_check.h"

#include <cuda_runtime_api.h>
#include <cstddef>
#include <string>

namespace wm::align {

struct DeviceBuffer {
    int device = 0;
    void *ptr = nullptr;
    size_t bytes = 0;

    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    ~DeviceBuffer() {
        if (ptr) {
            cudaSetDevice(device);
            cudaFree(ptr);
        }
    }
    void *get() const { return ptr; }
    // Current device must be `device`.
    template <class T> T *reserve(size_t count) {
        const size_t want = count * sizeof(T) + 16;
        if (want > bytes) {
            if (ptr) WM_CUDA_CHECK(cudaFree(ptr));
            ptr = nullptr;
            bytes = 0;
            const cudaError_t e = cudaMalloc(&ptr, want);
            if (e != cudaSuccess)
                throw gpu::GpuError("cudaMalloc of " + std::to_string(want) + " bytes failed: " + cudaGetErrorString(e));
            bytes = want;
        }
        return static_cast<T *>(ptr);
    }
    template <class T> T *upload(const T *host, size_t count, cudaStream_t stream) {
        T *d = reserve<T>(count);
        if (count) WM_CUDA_CHECK(cudaMemcpyAsync(d, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
        return d;
    }
};

} // namespace wm::align
