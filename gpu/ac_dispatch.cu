// gpu/ac_dispatch.cu - picks the grid and shared memory for a launch and
// checks every launch.
#include "gpu/ac_kernels.h"
#include "gpu/ac_tuning.h"
#include "gpu/cuda_check.h"

#include <algorithm>

namespace wm::gpu {
namespace {
constexpr size_t kSetHashBytes = size_t{tuning::kSetHashSlots} * sizeof(unsigned long long);
}

bool ac_prepare_kernels(const DeviceInfo &dev, uint32_t num_patterns, uint32_t state_bytes) {
    if (detail::kernel_static_smem(EmitKind::SetKeys, state_bytes) + kSetHashBytes > dev.smem_optin)
        throw GpuError("Set-mode dedupe table does not fit in shared memory");
    detail::set_kernel_dyn_smem(EmitKind::SetKeys, state_bytes, kSetHashBytes);
    const size_t need = size_t{num_patterns} * sizeof(uint32_t);
    const size_t stat = detail::kernel_static_smem(EmitKind::Count, state_bytes);
    if (num_patterns == 0 || stat + need > dev.smem_optin) return false;
    detail::set_kernel_dyn_smem(EmitKind::Count, state_bytes, need);
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
    const size_t dyn = kind == EmitKind::SetKeys                        ? kSetHashBytes
                       : (kind == EmitKind::Count && p.shared_counters) ? size_t{p.view.num_patterns} * 4
                                                                        : 0;
    detail::launch_scan_kernel(kind, p.view.state_bytes, grid, dyn, stream, p);
}

size_t ac_set_hash_slots(size_t capacity) {
    size_t slots = 1024;
    while (slots < 2 * capacity) slots <<= 1;
    return slots;
}

} // namespace wm::gpu
