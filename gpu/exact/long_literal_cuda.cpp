// gpu/exact/long_literal_cuda.cpp - CUDA long literal matcher: one flat
// device blob (pattern views, bytes, witnesses), a text buffer sized to the
// chunk capacity, records grown and the chunk rerun on overflow.
#include "gpu/cuda_check.h"
#include "gpu/exact/exact_dispatch.h"
#include "gpu/exact/exact_tuning.h"
#include "gpu/exact/long_literal_plan.h"

#include <algorithm>
#include <cstring>

namespace wm::gpu {
namespace {

using namespace exact;

void *dev_alloc(size_t bytes, const char *what) {
    void *p = nullptr;
    bytes = std::max<size_t>(bytes, 16);
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess)
        throw GpuError(std::string("cudaMalloc(") + what + ", " + std::to_string(bytes) +
                       " bytes) failed: " + cudaGetErrorString(e));
    return p;
}

size_t align16(size_t x) { return (x + 15) / 16 * 16; }

class CudaLongLiteralMatcher final : public LongLiteralMatcher {
  public:
    CudaLongLiteralMatcher(const std::vector<Literal> &literals, const GpuOptions &opts)
        : opts_(opts), set_(prepare_literals(literals)) {
        std::string why;
        if (!gpu_usable(opts.device, &why)) throw GpuError("long literal matcher: " + why);
        WM_CUDA_CHECK(cudaSetDevice(opts.device));
        WM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        upload_blob();
        d_count_ = static_cast<uint32_t *>(dev_alloc(4, "record count"));
        WM_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void **>(&h_count_), 4, cudaHostAllocDefault));
    }
    ~CudaLongLiteralMatcher() override {
        cudaFree(d_blob_), cudaFree(d_text_), cudaFree(d_out_), cudaFree(d_count_);
        cudaFreeHost(h_count_);
        cudaStreamDestroy(stream_);
    }

    void scan(const BatchView &in_batch, std::vector<Match> &out) override {
        out.clear();
        if (set_.prepared.empty()) return;
        const BatchView batch = packed_batch(in_batch, packed_);
        for (const auto &c : plan_chunks(batch, opts_.max_batch_bytes)) scan_chunk(batch, c, out);
    }

    std::string describe() const override {
        size_t periodic = 0, min_m = ~size_t{0};
        for (const auto &p : set_.prepared) periodic += p.periodic(), min_m = std::min<size_t>(min_m, p.m());
        return "long literals: " + std::to_string(set_.prepared.size()) + " (" +
               std::to_string(set_.prepared.empty() ? 0 : min_m) + ".." + std::to_string(set_.max_m) +
               " bytes, " + std::to_string(periodic) + " periodic), device " + std::to_string(opts_.device);
    }

  private:
    // Layout: [PatternView x K][bytes, 16-aligned each][witnesses, 16-aligned each].
    void upload_blob() {
        const size_t k = set_.prepared.size();
        size_t off = align16(k * sizeof(PatternView));
        std::vector<size_t> byte_off(k), wit_off(k);
        for (size_t i = 0; i < k; ++i) byte_off[i] = off, off += align16(set_.prepared[i].m());
        for (size_t i = 0; i < k; ++i) wit_off[i] = off, off += align16(set_.prepared[i].span * 2);
        d_blob_ = static_cast<uint8_t *>(dev_alloc(off, "long literal blob"));
        std::vector<uint8_t> blob(off, 0);
        auto *views = reinterpret_cast<PatternView *>(blob.data());
        for (size_t i = 0; i < k; ++i) {
            const auto &p = set_.prepared[i];
            std::memcpy(blob.data() + byte_off[i], p.bytes.data(), p.m());
            std::memcpy(blob.data() + wit_off[i], p.witness.data(), p.span * 2);
            views[i] = PatternView{d_blob_ + byte_off[i],
                                   reinterpret_cast<const uint16_t *>(d_blob_ + wit_off[i]), p.m(),
                                   p.span, p.nocase ? 1u : 0u};
        }
        WM_CUDA_CHECK(cudaMemcpy(d_blob_, blob.data(), off, cudaMemcpyHostToDevice));
        d_views_ = reinterpret_cast<const PatternView *>(d_blob_);
    }

    void reserve_text(size_t n) {
        if (n <= text_cap_) return;
        cudaFree(d_text_);
        text_cap_ = std::max(n, opts_.max_batch_bytes);
        d_text_ = static_cast<uint8_t *>(dev_alloc(text_cap_, "long literal text"));
    }
    void reserve_out(size_t records) {
        if (records <= out_cap_) return;
        cudaFree(d_out_);
        out_cap_ = records;
        d_out_ = static_cast<BatchRecord *>(dev_alloc(records * sizeof(BatchRecord), "long literal records"));
    }

    void run(const uint64_t n) {
        WM_CUDA_CHECK(cudaMemsetAsync(d_count_, 0, 4, stream_));
        launch_duel_batch(d_views_, static_cast<uint32_t>(set_.prepared.size()), set_.max_m, d_text_, n,
                          d_out_, static_cast<uint32_t>(out_cap_), d_count_, stream_);
        WM_CUDA_CHECK(cudaMemcpyAsync(h_count_, d_count_, 4, cudaMemcpyDeviceToHost, stream_));
        WM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    void scan_chunk(const BatchView &b, const PayloadChunk &c, std::vector<Match> &out) {
        const uint64_t n = b.offsets[c.last] - b.offsets[c.first];
        if (n == 0) return;
        reserve_text(n);
        reserve_out(std::max<uint64_t>(tuning::kBatchRecordsMin, n / tuning::kBatchBytesPerRecord));
        WM_CUDA_CHECK(cudaMemcpyAsync(d_text_, b.data + b.offsets[c.first], n, cudaMemcpyHostToDevice, stream_));
        run(n);
        if (*h_count_ > out_cap_) { // never drop: grow to the exact count and rerun
            reserve_out(*h_count_);
            run(n);
        }
        recs_.resize(*h_count_);
        WM_CUDA_CHECK(cudaMemcpyAsync(recs_.data(), d_out_, recs_.size() * sizeof(BatchRecord),
                                      cudaMemcpyDeviceToHost, stream_));
        WM_CUDA_CHECK(cudaStreamSynchronize(stream_));
        for (const auto &r : recs_) {
            Match m;
            if (map_occurrence(set_, b, c, r.pattern, r.start, &m)) out.push_back(m);
        }
    }

    GpuOptions opts_;
    LiteralSet set_;
    cudaStream_t stream_ = nullptr;
    uint8_t *d_blob_ = nullptr;
    const PatternView *d_views_ = nullptr;
    uint8_t *d_text_ = nullptr;
    size_t text_cap_ = 0;
    BatchRecord *d_out_ = nullptr;
    size_t out_cap_ = 0;
    uint32_t *d_count_ = nullptr, *h_count_ = nullptr;
    std::vector<BatchRecord> recs_;
    std::vector<uint8_t> packed_; // an in-place batch packed (packed_batch)
};

} // namespace

std::unique_ptr<LongLiteralMatcher> LongLiteralMatcher::create(const std::vector<Literal> &literals,
                                                               const GpuOptions &opts) {
    return std::make_unique<CudaLongLiteralMatcher>(literals, opts);
}

} // namespace wm::gpu
