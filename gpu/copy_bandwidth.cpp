// gpu/copy_bandwidth.cpp - see copy_bandwidth.h.
#include "gpu/copy_bandwidth.h"

#include "gpu/cuda_check.h"
#include "gpu/pinned_host.h"

#include <algorithm>
#include <vector>

namespace wm::gpu {

namespace {

// The device buffer, stream and events of one probe, released on every path.
struct Probe {
    uint8_t *device = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    ~Probe() {
        if (stop) cudaEventDestroy(stop);
        if (start) cudaEventDestroy(start);
        if (stream) cudaStreamDestroy(stream);
        if (device) cudaFree(device);
    }
};

} // namespace

double pinned_h2d_gb_per_s(int device, size_t bytes, int repeats) {
    std::string why;
    if (!gpu_usable(device, &why)) throw GpuError("no usable GPU: " + why);
    bytes = std::max<size_t>(bytes, 1 << 20);
    repeats = std::max(repeats, 1);
    WM_CUDA_CHECK(cudaSetDevice(device));
    PinnedHostArray<uint8_t> host(bytes, "H2D probe host buffer"); // resident: touched and registered
    Probe p;
    p.device = dev_alloc<uint8_t>(bytes, "H2D probe device buffer");
    WM_CUDA_CHECK(cudaStreamCreateWithFlags(&p.stream, cudaStreamNonBlocking));
    WM_CUDA_CHECK(cudaEventCreate(&p.start));
    WM_CUDA_CHECK(cudaEventCreate(&p.stop));
    WM_CUDA_CHECK(cudaMemcpyAsync(p.device, host.get(), bytes, cudaMemcpyHostToDevice, p.stream)); // warm-up
    std::vector<float> ms(static_cast<size_t>(repeats));
    for (float &m : ms) {
        WM_CUDA_CHECK(cudaEventRecord(p.start, p.stream));
        WM_CUDA_CHECK(cudaMemcpyAsync(p.device, host.get(), bytes, cudaMemcpyHostToDevice, p.stream));
        WM_CUDA_CHECK(cudaEventRecord(p.stop, p.stream));
        WM_CUDA_CHECK(cudaEventSynchronize(p.stop));
        WM_CUDA_CHECK(cudaEventElapsedTime(&m, p.start, p.stop));
    }
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    const double median_ms = ms[ms.size() / 2];
    if (median_ms <= 0) throw GpuError("H2D probe: a copy of " + std::to_string(bytes) + " bytes took no time");
    return static_cast<double>(bytes) / 1e6 / median_ms;
}

} // namespace wm::gpu
