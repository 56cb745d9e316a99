// gpu/ac_dispatch.cu - picks the grid and shared memory for a launch, runs
// CUB's sort + unique for Set mode, and checks every launch.
#include "gpu/ac_kernels.h"
#include "gpu/ac_tuning.h"
#include "gpu/cuda_check.h"

#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

namespace wm::gpu {
bool ac_prepare_kernels(const DeviceInfo &dev, uint32_t num_patterns, uint32_t state_bytes) {
    const size_t need = size_t{num_patterns} * sizeof(uint32_t);
    const size_t stat = detail::count_kernel_static_smem(state_bytes);
    if (num_patterns == 0 || stat + need > dev.smem_optin) return false;
    detail::set_count_kernel_dyn_smem(state_bytes, need);
    return true;
}

bool ac_kernels_loadable(std::string *why) {
    const cudaError_t e = detail::probe_kernel_image();
    if (e == cudaSuccess) return true;
    if (why) *why = std::string("kernel image not loadable on this device: ") + cudaGetErrorString(e);
    cudaGetLastError();
    return false;
}

void ac_dispatch_scan(EmitKind kind, const ScanParams &p, const DeviceInfo &dev, cudaStream_t stream) {
    if (p.num_tiles == 0 || p.view.num_groups == 0) return;
    const uint32_t units = (p.num_tiles + tuning::kBlockThreads - 1) / tuning::kBlockThreads;
    const uint32_t grid = std::max<uint32_t>(1, std::min<uint32_t>(units, dev.sm_count * tuning::kBlocksPerSm));
    const size_t dyn = (kind == EmitKind::Count && p.shared_counters) ? size_t{p.view.num_patterns} * 4 : 0;
    detail::launch_scan_kernel(kind, p.view.state_bytes, grid, dyn, stream, p);
}

size_t ac_dedupe_temp_bytes(uint32_t capacity) {
    size_t a = 0, b = 0;
    unsigned long long *k = nullptr;
    uint32_t *n = nullptr;
    WM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, a, k, k, capacity));
    WM_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, b, k, k, n, capacity));
    return std::max(a, b);
}

void ac_dispatch_dedupe(unsigned long long *d_keys, unsigned long long *d_alt, uint32_t n, uint32_t *d_num,
                        void *d_temp, size_t temp_bytes, cudaStream_t stream) {
    WM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_keys, d_alt, n, 0, 64, stream));
    WM_CUDA_CHECK(cub::DeviceSelect::Unique(d_temp, temp_bytes, d_alt, d_keys, d_num, n, stream));
}

} // namespace wm::gpu
