// gpu/pinned_host.cpp - see pinned_host.h.
#include "gpu/pinned_host.h"

#include "gpu/gpu_matcher.h"

#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace wm::gpu {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kHugePage = size_t{2} << 20;
// Bytes each touching thread takes at least (a thread costs ~50 us to start).
constexpr size_t kBytesPerToucher = size_t{4} << 20;

size_t mapped_length(size_t bytes) { return (std::max<size_t>(bytes, 1) + kHugePage - 1) / kHugePage * kHugePage; }

// Writes one byte per page, the range split over threads: the page faults
// run in parallel instead of one after another.
void touch_pages(uint8_t *p, size_t len) {
    const size_t hw = std::max(1u, std::thread::hardware_concurrency());
    const size_t n = std::clamp<size_t>(len / kBytesPerToucher, 1, std::min<size_t>(hw, 16));
    const size_t pages = len / kPage; // len is a multiple of kHugePage
    auto touch = [p, pages, n](size_t i) { // pages [pages * i / n, pages * (i + 1) / n): no page twice
        for (size_t g = pages * i / n; g < pages * (i + 1) / n; ++g) p[g * kPage] = 0;
    };
    std::vector<std::thread> threads;
    for (size_t i = 1; i < n; ++i) threads.emplace_back(touch, i);
    touch(0);
    for (auto &t : threads) t.join();
}

} // namespace

uint8_t *pinned_host_alloc(size_t bytes, const char *what) {
    const size_t len = mapped_length(bytes);
    void *m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        throw GpuError(std::string("mmap(") + what + ", " + std::to_string(len) + " bytes) failed");
    auto *p = static_cast<uint8_t *>(m);
    madvise(p, len, MADV_HUGEPAGE); // fewer faults where transparent huge pages are allowed; advice only
    touch_pages(p, len);
    const cudaError_t e = cudaHostRegister(p, len, cudaHostRegisterDefault);
    if (e != cudaSuccess) {
        cudaGetLastError();
        munmap(p, len);
        throw GpuError(std::string("cudaHostRegister(") + what + ", " + std::to_string(len) +
                       " bytes) failed: " + cudaGetErrorString(e));
    }
    return p;
}

size_t pinned_host_capacity(size_t bytes) { return mapped_length(bytes); }

void pinned_host_free(uint8_t *p, size_t bytes) {
    if (!p) return;
    cudaHostUnregister(p);
    munmap(p, mapped_length(bytes));
}

} // namespace wm::gpu
