// gpu/approx/kdiff_kernels.cu - thin __global__ wrappers and the dispatch of
// the k-differences kernels (kdiff_kernels.h).
#include "gpu/approx/kdiff_agent.cuh"
#include "gpu/approx/kdiff_kinds.h"
#include "gpu/cuda_check.h"

#include <algorithm>

namespace wm::approx {
namespace {

template <uint32_t W> constexpr size_t kPeqGroupBytes = size_t{256} * W * 32 * sizeof(uint64_t);

// Direct route. Block = kWarpsPerBlock warps of one group (blockIdx.y); the
// group's Peq table is staged in shared memory when Smem, and the warps walk
// the work list persistently.
template <typename Tag, bool Smem>
__global__ void __launch_bounds__(tuning::kBlockThreads)
kdiff_scan_kernel(KdiffDevice dev, uint32_t first_group, const uint8_t *__restrict__ d_text,
                  const uint32_t *__restrict__ d_offsets, const WorkItem *__restrict__ d_work,
                  uint32_t n_work, KdiffOutput out) {
    extern __shared__ uint64_t s_peq[];
    constexpr uint32_t W = Tag::kWords;
    const GroupDesc g = dev.d_groups[first_group + blockIdx.y];
    const uint64_t *__restrict__ g_peq = dev.d_peq + g.peq_offset;
    if constexpr (Smem) {
        static_assert(kPeqGroupBytes<W> <= 227 * 1024, "Peq table exceeds shared memory");
        for (uint32_t t = threadIdx.x; t < 256 * W * 32; t += blockDim.x) s_peq[t] = g_peq[t];
        __syncthreads();
    }
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const LaneDesc ld = dev.d_lanes[g.lane_base + lane];
    auto peq = [&](uint32_t c, uint32_t w, uint32_t l) {
        if constexpr (Smem) return s_peq[(c * W + w) * 32 + l];
        else return __ldg(g_peq + (size_t{c} * W + w) * 32 + l);
    };
    for (uint32_t i = blockIdx.x * tuning::kWarpsPerBlock + warp; i < n_work;
         i += gridDim.x * tuning::kWarpsPerBlock)
        kdiff_warp_agent<Tag>(g, ld, peq, d_text, d_offsets, d_work[i], out);
}

template <typename Tag>
__global__ void __launch_bounds__(tuning::kVerifyBlockThreads)
kdiff_verify_kernel(KdiffDevice dev, const uint8_t *__restrict__ d_text,
                    const uint32_t *__restrict__ d_offsets, const Window *__restrict__ d_windows,
                    uint32_t n, KdiffOutput out) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) kdiff_window_agent<Tag>(dev, d_text, d_offsets, d_windows[i], out);
}

// Raises the dynamic shared-memory limit (per device and kernel: cheap enough
// to repeat before each launch, and safe from any thread or device).
template <typename Tag, bool Smem> void prepare_launch() {
    if constexpr (Smem)
        WM_CUDA_CHECK(cudaFuncSetAttribute(kdiff_scan_kernel<Tag, true>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           int(kPeqGroupBytes<Tag::kWords>)));
}

} // namespace

std::vector<KindRange> kind_ranges(const KdiffBlob &blob) {
    std::vector<KindRange> r;
    for (uint32_t i = 0; i < blob.groups.size(); ++i) {
        const auto &g = blob.groups[i];
        if (!r.empty() && r.back().proto.metric == g.metric && r.back().proto.words == g.words &&
            r.back().proto.kmax == g.kmax)
            ++r.back().count;
        else
            r.push_back(KindRange{g, i, 1});
    }
    return r;
}

void build_work(const uint32_t *offsets, uint32_t count, std::vector<WorkItem> &work) {
    work.clear();
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t len = offsets[i + 1] - offsets[i];
        for (uint32_t lo = 0; lo < len; lo += tuning::kChunkBytes) work.push_back(WorkItem{i, lo});
    }
}

void kdiff_scan_dispatch(const KdiffBlob &blob, const KdiffDevice &dev, const uint8_t *d_text,
                         const uint32_t *d_offsets, const WorkItem *d_work, uint32_t n_work,
                         const KdiffOutput &out, int sm_count, cudaStream_t stream) {
    if (n_work == 0) return;
    for (const auto &kr : kind_ranges(blob)) {
        with_kind(kr.proto, [&](auto tag) {
            using Tag = decltype(tag);
            constexpr bool smem = Tag::kWords <= tuning::kSmemPeqMaxWords;
            prepare_launch<Tag, smem>();
            const uint32_t want = (n_work + tuning::kWarpsPerBlock - 1) / tuning::kWarpsPerBlock;
            const uint32_t resident =
                std::max<uint32_t>(1, uint32_t(sm_count) * tuning::kBlocksPerSm / kr.count);
            const dim3 grid(std::min(want, resident), kr.count);
            const size_t shm = smem ? kPeqGroupBytes<Tag::kWords> : 0;
            kdiff_scan_kernel<Tag, smem><<<grid, tuning::kBlockThreads, shm, stream>>>(
                dev, kr.first, d_text, d_offsets, d_work, n_work, out);
            WM_CUDA_CHECK_LAUNCH("kdiff_scan_kernel");
        });
    }
}

void kdiff_verify_dispatch(const KdiffBlob &blob, const KdiffDevice &dev, const uint8_t *d_text,
                           const uint32_t *d_offsets, const Window *d_windows,
                           const std::vector<uint32_t> &per_kind, const KdiffOutput &out,
                           cudaStream_t stream) {
    const auto kinds = kind_ranges(blob);
    size_t at = 0;
    for (size_t k = 0; k < kinds.size() && k < per_kind.size(); ++k) {
        const uint32_t n = per_kind[k];
        if (n) {
            with_kind(kinds[k].proto, [&](auto tag) {
                using Tag = decltype(tag);
                const uint32_t blocks = (n + tuning::kVerifyBlockThreads - 1) / tuning::kVerifyBlockThreads;
                kdiff_verify_kernel<Tag><<<blocks, tuning::kVerifyBlockThreads, 0, stream>>>(
                    dev, d_text, d_offsets, d_windows + at, n, out);
                WM_CUDA_CHECK_LAUNCH("kdiff_verify_kernel");
            });
        }
        at += n;
    }
}

} // namespace wm::approx
