// gpu/approx/approx_matcher_cuda.cpp - ApproxMatcher on the GPU: owns the
// device blob, grows device buffers as batches need (never per call
// otherwise), runs the direct or the prefilter route.
#include "gpu/approx/approx_matcher.h"
#include "gpu/approx/approx_tuning.h"
#include "gpu/approx/kdiff_kernels.h"
#include "gpu/approx/prefilter.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_matcher.h"
#include "gpu/stream_waiter.h"

#include <algorithm>
#include <chrono>
#include <sstream>

namespace wm::approx {
namespace {

// A device buffer that only grows.
template <typename T> struct DevBuf {
    T *p = nullptr;
    size_t cap = 0;
    void reserve(size_t n) {
        if (n <= cap) return;
        if (p) WM_CUDA_CHECK(cudaFree(p));
        p = nullptr;
        const size_t want = std::max<size_t>(n, cap * 2);
        WM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&p), std::max<size_t>(want, 1) * sizeof(T)));
        cap = want;
    }
    template <typename V> void upload(const V &v, size_t n, cudaStream_t s) {
        reserve(n);
        if (n) WM_CUDA_CHECK(cudaMemcpyAsync(p, v, n * sizeof(T), cudaMemcpyHostToDevice, s));
    }
    ~DevBuf() {
        if (p) cudaFree(p);
    }
};

class CudaApproxMatcher final : public ApproxMatcher {
  public:
    CudaApproxMatcher(const std::vector<ApproxPattern> &patterns, const ApproxOptions &opts)
        : opts_(opts), route_(opts.route), blob_(compile_kdiff(patterns)) {
        std::string why;
        if (!wm::gpu::gpu_usable(opts.device, &why))
            throw wm::gpu::GpuError("GPU approximate matcher unavailable: " + why);
        WM_CUDA_CHECK(cudaSetDevice(opts.device));
        cudaDeviceProp prop{};
        WM_CUDA_CHECK(cudaGetDeviceProperties(&prop, opts.device));
        sm_count_ = prop.multiProcessorCount;
        dev_name_ = prop.name;
        WM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        waiter_ = std::make_unique<wm::gpu::StreamWaiter>(opts.wait);
        groups_.upload(blob_.groups.data(), blob_.groups.size(), stream_);
        lanes_.upload(blob_.lanes.data(), blob_.lanes.size(), stream_);
        peq_.upload(blob_.peq.data(), blob_.peq.size(), stream_);
        group_of_.upload(blob_.group_of.data(), blob_.group_of.size(), stream_);
        lane_of_.upload(blob_.lane_of.data(), blob_.lane_of.size(), stream_);
        waiter_->wait(stream_);
        dev_ = KdiffDevice{groups_.p, lanes_.p, peq_.p, group_of_.p, lane_of_.p};
        count_.reserve(1);
        out_.reserve(tuning::kInitialOutputRecords);
        if (route_ == Route::Auto && !std::all_of(patterns.begin(), patterns.end(), prefilter_covers))
            route_ = Route::Direct; // Hamming k >= m: no piece need occur
        if (route_ != Route::Direct && !patterns.empty()) {
            pieces_ = pigeonhole_pieces(patterns); // Route::Prefilter: throws for such a pattern
            std::vector<wm::gpu::Literal> lits;
            for (const auto &pc : pieces_)
                lits.push_back(wm::gpu::Literal{patterns[pc.pattern].bytes.substr(pc.offset, pc.length),
                                                patterns[pc.pattern].nocase, 0, 0});
            wm::gpu::GpuOptions go;
            go.device = opts.device;
            go.wait = opts.wait;
            ac_ = wm::gpu::GpuMatcher::create(lits, go);
        }
    }
    ~CudaApproxMatcher() override {
        if (stream_) cudaStreamDestroy(stream_);
    }

    Route route() const override { return route_; }
    void auto_timings(double *d, double *p) const override {
        if (d) *d = auto_direct_ms_;
        if (p) *p = auto_prefilter_ms_;
    }
    std::string describe() const override {
        std::ostringstream o;
        o << blob_.describe() << ", route " << route_name(route_) << ", device " << dev_name_ << ", host waits "
          << wm::gpu::host_wait_name(opts_.wait);
        return o.str();
    }

    void scan(const PayloadBatch &batch, std::vector<ApproxMatch> &out) override {
        out.clear();
        if (blob_.patterns.empty() || batch.count == 0) return;
        if (route_ == Route::Direct) return scan_direct(batch, out);
        if (route_ == Route::Prefilter) return scan_prefilter(batch, out);
        // Auto: decide on a batch big enough to time meaningfully.
        if (batch.offsets[batch.count] - batch.offsets[0] < kAutoMinBytes) return scan_direct(batch, out);
        std::vector<ApproxMatch> other;
        auto t0 = std::chrono::steady_clock::now();
        scan_direct(batch, out);
        auto t1 = std::chrono::steady_clock::now();
        scan_prefilter(batch, other);
        auto t2 = std::chrono::steady_clock::now();
        auto_direct_ms_ = std::chrono::duration<double, std::milli>(t1 - t0).count();
        auto_prefilter_ms_ = std::chrono::duration<double, std::milli>(t2 - t1).count();
        // The routes compute the same function; if they ever disagree, trust
        // the direct one (no prefilter assumptions) and stay on it.
        route_ = (other == out && auto_prefilter_ms_ < auto_direct_ms_) ? Route::Prefilter : Route::Direct;
    }

  private:
    void upload_batch(const PayloadBatch &batch) {
        const uint32_t bytes = batch.offsets[batch.count];
        text_.upload(batch.data, bytes, stream_);
        offsets_.upload(batch.offsets, size_t{batch.count} + 1, stream_);
    }

    // Runs `launch` with the output buffer, growing it and rerunning on overflow.
    template <typename F> void collect(F &&launch, std::vector<ApproxMatch> &out) {
        for (;;) {
            WM_CUDA_CHECK(cudaMemsetAsync(count_.p, 0, sizeof(uint32_t), stream_));
            launch(KdiffOutput{out_.p, count_.p, uint32_t(std::min<size_t>(out_.cap, UINT32_MAX))});
            // The kernel's time is waited for here, as opts_.wait says: a copy
            // into pageable memory would wait inside the driver, spinning.
            waiter_->wait(stream_);
            uint32_t n = 0;
            WM_CUDA_CHECK(cudaMemcpyAsync(&n, count_.p, sizeof n, cudaMemcpyDeviceToHost, stream_));
            WM_CUDA_CHECK(cudaStreamSynchronize(stream_)); // the copy alone
            if (n <= out_.cap) {
                const size_t first = out.size();
                out.resize(first + n);
                if (n)
                    WM_CUDA_CHECK(cudaMemcpy(out.data() + first, out_.p, size_t{n} * sizeof(ApproxMatch),
                                             cudaMemcpyDeviceToHost));
                return;
            }
            out_.reserve(n);
        }
    }

    void scan_direct(const PayloadBatch &batch, std::vector<ApproxMatch> &out) {
        upload_batch(batch);
        build_work(batch.offsets, batch.count, work_);
        work_d_.upload(work_.data(), work_.size(), stream_);
        collect([&](const KdiffOutput &o) {
            kdiff_scan_dispatch(blob_, dev_, text_.p, offsets_.p, work_d_.p, uint32_t(work_.size()), o,
                                sm_count_, stream_);
        }, out);
        sort_approx_matches(out);
    }

    void scan_prefilter(const PayloadBatch &batch, std::vector<ApproxMatch> &out) {
        out.clear();
        std::vector<wm::gpu::Match> hits;
        ac_->scan(wm::gpu::BatchView{batch.data, batch.offsets, batch.count},
                  wm::gpu::OutputMode::Positions, hits);
        std::vector<PieceHit> ph(hits.size());
        for (size_t i = 0; i < hits.size(); ++i) ph[i] = PieceHit{hits[i].pattern, hits[i].payload, hits[i].end};
        auto windows = candidate_windows(blob_.patterns, pieces_, std::move(ph), batch.offsets);
        if (windows.empty()) return;
        // Bucket by kind (kind_ranges order) for one launch per kind.
        const auto kinds = kind_ranges(blob_);
        auto kind_of = [&](const Window &w) {
            const uint32_t g = blob_.group_of[w.pattern];
            for (uint32_t k = 0; k < kinds.size(); ++k)
                if (g >= kinds[k].first && g < kinds[k].first + kinds[k].count) return k;
            return 0u;
        };
        std::stable_sort(windows.begin(), windows.end(),
                         [&](const Window &a, const Window &b) { return kind_of(a) < kind_of(b); });
        std::vector<uint32_t> per_kind(kinds.size(), 0);
        for (const auto &w : windows) ++per_kind[kind_of(w)];
        upload_batch(batch);
        windows_d_.upload(windows.data(), windows.size(), stream_);
        collect([&](const KdiffOutput &o) {
            kdiff_verify_dispatch(blob_, dev_, text_.p, offsets_.p, windows_d_.p, per_kind, o, stream_);
        }, out);
        sort_approx_matches(out);
    }

    ApproxOptions opts_;
    Route route_;
    KdiffBlob blob_;
    std::vector<Piece> pieces_;
    std::unique_ptr<wm::gpu::GpuMatcher> ac_;
    int sm_count_ = 0;
    std::string dev_name_;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<wm::gpu::StreamWaiter> waiter_; // made once the device is current
    DevBuf<GroupDesc> groups_;
    DevBuf<LaneDesc> lanes_;
    DevBuf<uint64_t> peq_;
    DevBuf<uint32_t> group_of_, lane_of_, offsets_, count_;
    DevBuf<uint8_t> text_;
    DevBuf<WorkItem> work_d_;
    DevBuf<Window> windows_d_;
    DevBuf<ApproxMatch> out_;
    KdiffDevice dev_;
    std::vector<WorkItem> work_;
    double auto_direct_ms_ = 0, auto_prefilter_ms_ = 0;
};

} // namespace

const char *route_name(Route r) {
    switch (r) {
    case Route::Direct: return "direct";
    case Route::Prefilter: return "prefilter";
    default: return "auto";
    }
}

std::unique_ptr<ApproxMatcher> ApproxMatcher::create(const std::vector<ApproxPattern> &patterns,
                                                     const ApproxOptions &opts) {
    return std::make_unique<CudaApproxMatcher>(patterns, opts);
}

bool approx_gpu_usable(int device, std::string *reason) { return wm::gpu::gpu_usable(device, reason); }

} // namespace wm::approx
