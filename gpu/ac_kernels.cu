// gpu/ac_kernels.cu - thin __global__ kernels: build the agent over shared
// memory and run it. Nothing else lives here (see ac_agent.cuh).
#include "gpu/ac_agent.cuh"
#include "gpu/cuda_check.h"

namespace wm::gpu {

// KIND, StateT, NG, SPARSE: see AcAgent. p: [in] by value (kernel parameter space).
template <EmitKind KIND, typename StateT, uint32_t NG, bool SPARSE>
__global__ void __launch_bounds__(tuning::kBlockThreads, tuning::kMinBlocksPerSm)
    ac_scan_kernel(const ScanParams p) {
    using Agent = AcAgent<KIND, StateT, NG, SPARSE, tuning::kBlockThreads, tuning::kTileBytes>;
    __shared__ typename Agent::TempStorage tmp;
    extern __shared__ __align__(16) uint32_t s_dyn[]; // Count: counters; SetKeys: dedupe table
    Agent(tmp, p, s_dyn).run();
}

namespace detail {
namespace {

// Calls f(kernel) with the kernel of `kind` for the view's state width,
// group count and sparse states (none: the dense-only walk).
template <EmitKind KIND, bool SPARSE, typename F> auto with_kernel_of(const AcView &v, F f) {
    if (v.state_bytes == 2)
        return v.num_groups == 2 ? f(ac_scan_kernel<KIND, uint16_t, 2, SPARSE>)
                                 : f(ac_scan_kernel<KIND, uint16_t, 1, SPARSE>);
    return v.num_groups == 2 ? f(ac_scan_kernel<KIND, uint32_t, 2, SPARSE>) : f(ac_scan_kernel<KIND, uint32_t, 1, SPARSE>);
}

template <EmitKind KIND, typename F> auto with_kernel(const AcView &v, F f) {
    return ac_all_dense(v) ? with_kernel_of<KIND, false>(v, f) : with_kernel_of<KIND, true>(v, f);
}

template <typename F> auto with_kernel(EmitKind kind, const AcView &v, F f) {
    switch (kind) {
    case EmitKind::Positions: return with_kernel<EmitKind::Positions>(v, f);
    case EmitKind::SetKeys: return with_kernel<EmitKind::SetKeys>(v, f);
    default: return with_kernel<EmitKind::Count>(v, f);
    }
}

const char *kind_name(EmitKind kind) {
    return kind == EmitKind::Positions ? "launch of ac_scan_kernel<Positions>"
           : kind == EmitKind::SetKeys ? "launch of ac_scan_kernel<SetKeys>"
                                       : "launch of ac_scan_kernel<Count>";
}

} // namespace

void launch_scan_kernel(EmitKind kind, const AcView &view, uint32_t grid, size_t dyn_smem, cudaStream_t stream,
                        const ScanParams &p) {
    void *args[] = {const_cast<ScanParams *>(&p)};
    const cudaError_t e = with_kernel(kind, view, [&](auto kernel) {
        return cudaLaunchKernel(reinterpret_cast<const void *>(kernel), dim3(grid), dim3(tuning::kBlockThreads), args,
                                dyn_smem, stream);
    });
    if (e != cudaSuccess) {
        cudaGetLastError(); // a launch error is not sticky: clear it, then report it
        throw_cuda(e, kind_name(kind), __FILE__, __LINE__);
    }
}

size_t kernel_static_smem(EmitKind kind, const AcView &view) {
    cudaFuncAttributes a{};
    with_kernel(kind, view, [&](auto kernel) {
        WM_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
        return 0;
    });
    return a.sharedSizeBytes;
}

void set_kernel_dyn_smem(EmitKind kind, const AcView &view, size_t bytes) {
    with_kernel(kind, view, [&](auto kernel) {
        WM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
        return 0;
    });
}

void set_kernel_carveout(const AcView &view, int percent) {
    for (EmitKind kind : {EmitKind::Positions, EmitKind::SetKeys, EmitKind::Count})
        with_kernel(kind, view, [&](auto kernel) {
            WM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
            return 0;
        });
}

int resident_blocks_per_sm(EmitKind kind, const AcView &view, size_t dyn_smem) {
    int n = 0;
    with_kernel(kind, view, [&](auto kernel) {
        WM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, tuning::kBlockThreads, dyn_smem));
        return 0;
    });
    return n;
}

cudaError_t probe_kernel_image() {
    cudaFuncAttributes a{};
    return cudaFuncGetAttributes(&a, ac_scan_kernel<EmitKind::Positions, uint16_t, 1, false>);
}

} // namespace detail
} // namespace wm::gpu
