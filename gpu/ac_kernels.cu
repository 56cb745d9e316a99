// gpu/ac_kernels.cu - thin __global__ kernels: build the agent over shared
// memory and run it. Nothing else lives here (see ac_agent.cuh).
#include "gpu/ac_agent.cuh"
#include "gpu/cuda_check.h"

namespace wm::gpu {

// KIND, StateT: see AcAgent. p: [in] by value (kernel parameter space).
template <EmitKind KIND, typename StateT>
__global__ void __launch_bounds__(tuning::kBlockThreads, tuning::kMinBlocksPerSm)
    ac_scan_kernel(const ScanParams p) {
    using Agent = AcAgent<KIND, StateT, tuning::kBlockThreads, tuning::kTileBytes>;
    __shared__ typename Agent::TempStorage tmp;
    extern __shared__ __align__(16) uint32_t s_dyn[]; // Count: counters; SetKeys: dedupe table
    Agent(tmp, p, s_dyn).run();
}

namespace detail {

template <typename StateT>
void launch_typed(EmitKind kind, uint32_t grid, size_t dyn, cudaStream_t s, const ScanParams &p) {
    switch (kind) {
    case EmitKind::Positions:
        ac_scan_kernel<EmitKind::Positions, StateT><<<grid, tuning::kBlockThreads, 0, s>>>(p);
        WM_CUDA_CHECK_LAUNCH("ac_scan_kernel<Positions>");
        break;
    case EmitKind::SetKeys:
        ac_scan_kernel<EmitKind::SetKeys, StateT><<<grid, tuning::kBlockThreads, dyn, s>>>(p);
        WM_CUDA_CHECK_LAUNCH("ac_scan_kernel<SetKeys>");
        break;
    case EmitKind::Count:
        ac_scan_kernel<EmitKind::Count, StateT><<<grid, tuning::kBlockThreads, dyn, s>>>(p);
        WM_CUDA_CHECK_LAUNCH("ac_scan_kernel<Count>");
        break;
    }
}

void launch_scan_kernel(EmitKind kind, uint32_t state_bytes, uint32_t grid, size_t dyn_smem,
                        cudaStream_t stream, const ScanParams &p) {
    if (state_bytes == 2) launch_typed<uint16_t>(kind, grid, dyn_smem, stream, p);
    else launch_typed<uint32_t>(kind, grid, dyn_smem, stream, p);
}

template <EmitKind KIND> const void *kernel_ptr(uint32_t state_bytes) {
    return state_bytes == 2 ? reinterpret_cast<const void *>(ac_scan_kernel<KIND, uint16_t>)
                            : reinterpret_cast<const void *>(ac_scan_kernel<KIND, uint32_t>);
}

const void *kernel_for(EmitKind kind, uint32_t state_bytes) {
    switch (kind) {
    case EmitKind::Positions: return kernel_ptr<EmitKind::Positions>(state_bytes);
    case EmitKind::SetKeys: return kernel_ptr<EmitKind::SetKeys>(state_bytes);
    default: return kernel_ptr<EmitKind::Count>(state_bytes);
    }
}

size_t kernel_static_smem(EmitKind kind, uint32_t state_bytes) {
    cudaFuncAttributes a{};
    WM_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel_for(kind, state_bytes)));
    return a.sharedSizeBytes;
}

void set_kernel_dyn_smem(EmitKind kind, uint32_t state_bytes, size_t bytes) {
    WM_CUDA_CHECK(cudaFuncSetAttribute(kernel_for(kind, state_bytes), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(bytes)));
}

int resident_blocks_per_sm(EmitKind kind, uint32_t state_bytes, size_t dyn_smem) {
    int n = 0;
    WM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel_for(kind, state_bytes),
                                                                tuning::kBlockThreads, dyn_smem));
    return n;
}

cudaError_t probe_kernel_image() {
    cudaFuncAttributes a{};
    return cudaFuncGetAttributes(&a, ac_scan_kernel<EmitKind::Positions, uint16_t>);
}

} // namespace detail
} // namespace wm::gpu
