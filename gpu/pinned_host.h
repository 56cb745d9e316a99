// gpu/pinned_host.h - page-locked host memory that is quick to set up: fresh
// pages are first touched by several threads, then registered with CUDA
// (internal; needs the CUDA runtime). cudaHostAlloc faults its pages in on
// one thread: 4 x 16 MB took 24-29 ms on the H200 machines, where a first
// touch runs at ~2.5 GB/s per thread; 64 MB touched by 15 threads and then
// registered took 5-6 ms (2026-11-23, tools/device probe). The matcher's
// staging and result buffers come from here too: with cudaHostAlloc a new
// scanner's first replay took ~20 ms longer (docs/PERFORMANCE.md run 75).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace wm::gpu {

// At least `bytes` of page-locked host memory; throws GpuError naming `what`
// and the size when it cannot be mapped or registered.
uint8_t *pinned_host_alloc(size_t bytes, const char *what);
// Frees what pinned_host_alloc(bytes) returned; null is ignored.
void pinned_host_free(uint8_t *p, size_t bytes);
// Bytes pinned_host_alloc(bytes) really maps (whole 2 MB pages), all usable.
size_t pinned_host_capacity(size_t bytes);

// An owned array of T in pinned_host_alloc() memory (contents uninitialised);
// the matcher's staging and result buffers. size() is at least the count
// asked for: everything mapped. Moves, does not copy.
template <typename T> class PinnedHostArray {
  public:
    PinnedHostArray() = default;
    PinnedHostArray(size_t count, const char *what)
        : p_(reinterpret_cast<T *>(pinned_host_alloc(std::max<size_t>(count, 1) * sizeof(T), what))),
          count_(pinned_host_capacity(std::max<size_t>(count, 1) * sizeof(T)) / sizeof(T)) {}
    PinnedHostArray(PinnedHostArray &&o) noexcept : p_(std::exchange(o.p_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    PinnedHostArray &operator=(PinnedHostArray &&o) noexcept {
        if (this != &o) {
            reset();
            p_ = std::exchange(o.p_, nullptr);
            count_ = std::exchange(o.count_, 0);
        }
        return *this;
    }
    ~PinnedHostArray() { reset(); }

    void reset() {
        pinned_host_free(reinterpret_cast<uint8_t *>(p_), count_ * sizeof(T));
        p_ = nullptr;
        count_ = 0;
    }
    T *get() const { return p_; }
    size_t size() const { return count_; }

  private:
    T *p_ = nullptr;
    size_t count_ = 0;
};

} // namespace wm::gpu
