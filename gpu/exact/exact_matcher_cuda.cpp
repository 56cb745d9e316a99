// gpu/exact/exact_matcher_cuda.cpp - public entry: owns the device copy of
// the pattern, the text / output buffers and a stream; times each stage with
// CUDA events.
#include "gpu/cuda_check.h"
#include "gpu/exact/exact_dispatch.h"
#include "gpu/exact/exact_matcher.h"
#include "gpu/exact/exact_pattern.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace wm::gpu::exact {
namespace {

class CudaExactMatcher final : public ExactMatcher {
  public:
    CudaExactMatcher(const std::string &pattern, bool nocase, int device) {
        const auto t0 = std::chrono::steady_clock::now();
        pp_ = prepare_pattern(pattern, nocase);
        witness_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        WM_CUDA_CHECK(cudaSetDevice(device));
        WM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        for (auto &e : ev_) WM_CUDA_CHECK(cudaEventCreate(&e));
        d_bytes_ = dev_alloc<uint8_t>(pp_.m(), "pattern");
        d_wit_ = dev_alloc<uint16_t>(pp_.span, "witness");
        WM_CUDA_CHECK(cudaMemcpy(d_bytes_, pp_.bytes.data(), pp_.m(), cudaMemcpyHostToDevice));
        WM_CUDA_CHECK(cudaMemcpy(d_wit_, pp_.witness.data(), pp_.span * 2, cudaMemcpyHostToDevice));
        d_count_ = dev_alloc<uint32_t>(1, "count");
        view_ = PatternView{d_bytes_, d_wit_, pp_.m(), pp_.span, pp_.nocase ? 1u : 0u};
    }
    ~CudaExactMatcher() override {
        release();
        cudaFree(d_bytes_), cudaFree(d_wit_), cudaFree(d_count_);
        for (auto &e : ev_) cudaEventDestroy(e);
        cudaStreamDestroy(stream_);
    }

    void match(const MatchRequest &rq, StageTimes *times) override {
        if (rq.n >= (uint64_t{1} << 32)) throw GpuError("exact matcher: text of 2^32 bytes or more");
        StageTimes t;
        t.witness_ms = witness_ms_;
        const uint64_t n = rq.n;
        if (rq.positions) rq.positions->clear();
        if (n == 0) { if (times) *times = t; return; }
        reserve(n);
        const uint64_t cap = pp_.max_occurrences(n);
        DeviceOutputs o{rq.match_vector ? d_match_ : nullptr, rq.positions ? d_pos_ : nullptr,
                        static_cast<uint32_t>(cap), d_count_};
        WM_CUDA_CHECK(cudaEventRecord(ev_[0], stream_));
        WM_CUDA_CHECK(cudaMemcpyAsync(d_text_, rq.text, n, cudaMemcpyHostToDevice, stream_));
        WM_CUDA_CHECK(cudaMemsetAsync(d_count_, 0, 4, stream_));
        WM_CUDA_CHECK(cudaEventRecord(ev_[1], stream_));
        switch (rq.algorithm) {
        case Algorithm::BruteForce: launch_brute(view_, d_text_, n, o, stream_); break;
        case Algorithm::Duel: launch_duel(view_, true, d_text_, n, o, stream_); break;
        case Algorithm::DuelTwoKernel: launch_eliminate(view_, d_text_, n, d_surv_, stream_); break;
        }
        WM_CUDA_CHECK(cudaEventRecord(ev_[2], stream_));
        if (rq.algorithm == Algorithm::DuelTwoKernel) {
            if (o.d_match) WM_CUDA_CHECK(cudaMemsetAsync(o.d_match, 0, n, stream_));
            launch_verify_survivors(view_, d_text_, n, d_surv_, survivor_slots(pp_.span, n), o, stream_);
        }
        WM_CUDA_CHECK(cudaEventRecord(ev_[3], stream_));
        if (rq.match_vector)
            WM_CUDA_CHECK(cudaMemcpyAsync(rq.match_vector, d_match_, n, cudaMemcpyDeviceToHost, stream_));
        uint32_t count = 0;
        if (rq.positions) {
            WM_CUDA_CHECK(cudaMemcpyAsync(&count, d_count_, 4, cudaMemcpyDeviceToHost, stream_));
            WM_CUDA_CHECK(cudaStreamSynchronize(stream_));
            if (count > cap) throw GpuError("exact matcher: more occurrences than the period allows");
            rq.positions->resize(count);
            WM_CUDA_CHECK(cudaMemcpyAsync(rq.positions->data(), d_pos_, size_t{count} * 4,
                                          cudaMemcpyDeviceToHost, stream_));
        }
        WM_CUDA_CHECK(cudaEventRecord(ev_[4], stream_));
        WM_CUDA_CHECK(cudaEventSynchronize(ev_[4]));
        if (rq.positions) std::sort(rq.positions->begin(), rq.positions->end());
        float ms[4];
        for (int k = 0; k < 4; ++k) WM_CUDA_CHECK(cudaEventElapsedTime(&ms[k], ev_[k], ev_[k + 1]));
        t.h2d_ms = ms[0], t.eliminate_ms = ms[1], t.verify_ms = ms[2], t.d2h_ms = ms[3];
        t.total_ms = ms[0] + ms[1] + ms[2] + ms[3];
        if (times) *times = t;
    }

    std::string describe() const override {
        const DuelShape sh = duel_shape(pp_.span);
        return "m=" + std::to_string(pp_.m()) + " period=" + std::to_string(pp_.period) +
               (pp_.periodic() ? " periodic" : " non-periodic") + " duel_prefix=" +
               std::to_string(pp_.duel_length) + " span=" + std::to_string(pp_.span) + " shape=" +
               std::to_string(sh.items) + "x" + std::to_string(sh.lanes);
    }

  private:
    void reserve(uint64_t n) {
        if (n <= cap_n_) return;
        release();
        d_text_ = dev_alloc<uint8_t>(n + 16, "text");
        d_match_ = dev_alloc<uint8_t>(n + 16, "match vector");
        d_pos_ = dev_alloc<uint32_t>(pp_.max_occurrences(n) + 1, "positions");
        d_surv_ = dev_alloc<uint32_t>(survivor_slots(pp_.span, n), "survivors");
        cap_n_ = n;
    }
    void release() {
        cudaFree(d_text_), cudaFree(d_match_), cudaFree(d_pos_), cudaFree(d_surv_);
        d_text_ = d_match_ = nullptr, d_pos_ = d_surv_ = nullptr, cap_n_ = 0;
    }

    PreparedPattern pp_;
    double witness_ms_ = 0;
    cudaStream_t stream_ = nullptr;
    cudaEvent_t ev_[5] = {};
    uint8_t *d_bytes_ = nullptr;
    uint16_t *d_wit_ = nullptr;
    uint32_t *d_count_ = nullptr;
    PatternView view_{};
    uint8_t *d_text_ = nullptr, *d_match_ = nullptr;
    uint32_t *d_pos_ = nullptr, *d_surv_ = nullptr;
    uint64_t cap_n_ = 0;
};

} // namespace

bool exact_gpu_usable(int device, std::string *reason) { return gpu_usable(device, reason); }

std::unique_ptr<ExactMatcher> ExactMatcher::create(const std::string &pattern, bool nocase, int device) {
    return std::make_unique<CudaExactMatcher>(pattern, nocase, device);
}

uint8_t *ExactMatcher::alloc_pinned(size_t bytes) {
    void *p = nullptr;
    WM_CUDA_CHECK(cudaHostAlloc(&p, std::max<size_t>(bytes, 16), cudaHostAllocDefault));
    return static_cast<uint8_t *>(p);
}

void ExactMatcher::free_pinned(uint8_t *p) { cudaFreeHost(p); }

} // namespace wm::gpu::exact
