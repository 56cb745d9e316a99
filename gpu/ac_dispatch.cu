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
    for (uint32_t g = 0; g < p.view.num_groups; ++g)
        if (p.view.groups[g].num_states > (1u << tuning::kQueueStateBits))
            throw GpuError("automaton group " + std::to_string(g) + " has " +
                           std::to_string(p.view.groups[g].num_states) + " states; the GPU kernels take at most 2^" +
                           std::to_string(tuning::kQueueStateBits) + " per group (split the rule set)");
    const uint32_t units = (p.num_tiles + tuning::kBlockThreads - 1) / tuning::kBlockThreads;
    const size_t dyn = kind == EmitKind::SetKeys                        ? kSetHashBytes
                       : (kind == EmitKind::Count && p.shared_counters) ? size_t{p.view.num_patterns} * 4
                                                                        : 0;
    // Persistent grid: one wave of resident blocks (Count with per-pattern
    // shared counters fits fewer than Set).
    const int per_sm = std::max(1, detail::resident_blocks_per_sm(kind, p.view.state_bytes, dyn));
    const uint32_t grid = std::max<uint32_t>(1, std::min<uint32_t>(units, dev.sm_count * (uint32_t)per_sm));
    detail::launch_scan_kernel(kind, p.view.state_bytes, grid, dyn, stream, p);
}

size_t ac_set_hash_slots(size_t capacity) {
    size_t slots = 1024;
    while (slots < 2 * capacity) slots <<= 1;
    return slots;
}

} // namespace wm::gpu
