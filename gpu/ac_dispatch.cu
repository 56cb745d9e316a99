// gpu/ac_dispatch.cu - picks the grid and shared memory for a launch and
// checks every launch.
#include "gpu/ac_kernels.h"
#include "gpu/ac_tuning.h"
#include "gpu/cuda_check.h"

#include <algorithm>

namespace wm::gpu {
namespace {
using tuning::kCountHashBytes;
using tuning::kSetHashBytes;

// Dynamic shared memory of a launch: the Set table, or Count's counters.
size_t dyn_smem(EmitKind kind, uint32_t num_patterns, uint32_t count_counters) {
    if (kind == EmitKind::SetKeys) return kSetHashBytes;
    if (kind != EmitKind::Count) return 0;
    return count_counters == kCountDirect   ? size_t{num_patterns} * sizeof(uint32_t)
           : count_counters == kCountHashed ? kCountHashBytes
                                            : 0;
}
// Positions: output slots per warp reservation for `warps` warps writing at
// most `capacity` records. A warp's last slab leaves on average half of it
// unused, so the slabs shrink, to 128 at least, until those holes are at most
// a sixteenth of the capacity (a 32 MB chunk's first 1 M records: 128; a 1 GB
// chunk: 512). The rest of a slab that a flush does not fit is a hole too
// (~16 slots on average, so ~3% of a 512-slot slab and ~12% of 128).
uint32_t positions_slab(uint32_t capacity, uint32_t warps) {
    uint32_t slab = tuning::kPositionsSlab;
    while (slab > 128 && uint64_t{warps} * slab > uint64_t{capacity} / 8) slab >>= 1;
    return slab;
}
} // namespace

CountCounters ac_prepare_kernels(DeviceInfo &dev, const AcView &view) {
    if (view.num_groups > 2) // the walk takes one group or a pair (ac_agent.cuh); compile_ac makes at most two
        throw GpuError("automaton has " + std::to_string(view.num_groups) + " groups; the GPU kernels take at most 2");
    if (view.key_len > tuning::kKeyBytes) // the staging window holds a key's run-out past the tiles (ac_agent.cuh)
        throw GpuError("automaton keys of " + std::to_string(view.key_len) + " bytes; the GPU kernels take at most " +
                       std::to_string(tuning::kKeyBytes));
    for (uint32_t g = 0; g < view.num_groups; ++g)
        if (view.groups[g].num_states > (1u << tuning::kQueueStateBits))
            throw GpuError("automaton group " + std::to_string(g) + " has " + std::to_string(view.groups[g].num_states) +
                           " states; the GPU kernels take at most 2^" + std::to_string(tuning::kQueueStateBits) +
                           " per group (split the rule set)");
    if (detail::kernel_static_smem(EmitKind::SetKeys, view) + kSetHashBytes > dev.smem_optin)
        throw GpuError("Set-mode dedupe table does not fit in shared memory");
    detail::set_kernel_dyn_smem(EmitKind::SetKeys, view, kSetHashBytes);
    const size_t direct = size_t{view.num_patterns} * sizeof(uint32_t), count_static =
        detail::kernel_static_smem(EmitKind::Count, view);
    const CountCounters counters = view.num_patterns == 0                           ? kCountGlobal
                                   : direct <= kCountHashBytes                      ? kCountDirect
                                   : count_static + kCountHashBytes <= dev.smem_optin ? kCountHashed
                                                                                    : kCountGlobal;
    if (counters != kCountGlobal)
        detail::set_kernel_dyn_smem(EmitKind::Count, view, dyn_smem(EmitKind::Count, view.num_patterns, counters));
    // Persistent grid: one wave of resident blocks (Count with per-pattern
    // shared counters fits fewer than Set).
    for (EmitKind k : {EmitKind::Positions, EmitKind::SetKeys, EmitKind::Count}) {
        const int per_sm = detail::resident_blocks_per_sm(k, view, dyn_smem(k, view.num_patterns, counters));
        dev.grid[static_cast<int>(k)] = static_cast<uint32_t>(dev.sm_count * std::max(1, per_sm));
    }
    return counters;
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
    const uint32_t grid = std::max<uint32_t>(1, std::min<uint32_t>(units, dev.grid[static_cast<int>(kind)]));
    ScanParams q = p;
    q.positions_slab = positions_slab(p.capacity, grid * (tuning::kBlockThreads / 32));
    const bool one_byte = kind == EmitKind::SetKeys && ac_needs_one_byte_words(p.view);
    if (one_byte) {
        if (!p.d_one_byte) throw GpuError("ac_dispatch_scan: the Set scan of one-byte classes needs d_one_byte");
        WM_CUDA_CHECK(cudaMemsetAsync(p.d_one_byte, 0, size_t{p.one_byte_words} * sizeof(uint32_t), stream));
    }
    detail::launch_scan_kernel(kind, q.view, grid, dyn_smem(kind, q.view.num_patterns, q.count_counters),
                               stream, q);
    if (one_byte) ac_one_byte_keys(q, stream);
}

size_t ac_set_hash_slots(size_t capacity) {
    size_t slots = 1024;
    while (slots < 2 * capacity) slots <<= 1;
    return slots;
}

} // namespace wm::gpu
