// gpu/pinned_host.h - page-locked host memory that is quick to set up: fresh
// pages are first touched by several threads, then registered with CUDA
// (internal; needs the CUDA runtime). cudaHostAlloc faults its pages in on
// one thread: 4 x 16 MB took 24-29 ms on the H200 machines, where a first
// touch runs at ~2.5 GB/s per thread; 64 MB touched by 15 threads and then
// registered took 5-6 ms (2026-11-23, tools/device probe). A replay's window
// buffers are set up on its first call, so this was ~27 ms of it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wm::gpu {

// At least `bytes` of page-locked host memory; throws GpuError naming `what`
// and the size when it cannot be mapped or registered.
uint8_t *pinned_host_alloc(size_t bytes, const char *what);
// Frees what pinned_host_alloc(bytes) returned; null is ignored.
void pinned_host_free(uint8_t *p, size_t bytes);

} // namespace wm::gpu
