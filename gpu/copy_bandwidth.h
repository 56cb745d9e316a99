// gpu/copy_bandwidth.h - the pinned host-to-device copy rate of a GPU: the
// bound of every path that brings payloads from the host (issue 3's plugin
// target is a fraction of it), measured where the figures that use it are.
#pragma once

#include <cstddef>

namespace wm::gpu {

// GB/s (1e9 bytes) of copying `bytes` from page-locked host memory (the
// memory the matcher's batches are staged in, pinned_host.h) to device
// `device`: the median of `repeats` copies, each timed by CUDA events on a
// stream of its own, after one untimed copy. Throws GpuError when the GPU
// is not usable or a buffer cannot be allocated (naming it and its size).
double pinned_h2d_gb_per_s(int device, size_t bytes, int repeats);

} // namespace wm::gpu
