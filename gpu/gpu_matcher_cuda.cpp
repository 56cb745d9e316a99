// gpu/gpu_matcher_cuda.cpp - public entry of the GPU matcher: owns the device
// blob, the pinned and device buffers (sized once in create()) and
// tuning::kStreams CUDA streams; splits batches into chunks (ac_plan.h) and
// keeps them in flight round-robin so one chunk's H2D copy, kernel and D2H copy
// overlap the others'. Input already in page-locked memory (pinned_buffer(), or
// any cudaHostAlloc/cudaHostRegister memory) is copied to the device straight
// from the caller's bytes: no host memcpy into the staging buffers. Set mode
// sorts each chunk's distinct keys on the device before the copy back
// (ac_sort_keys.cu), so the output comes back ordered (ac_set_order.h).
#include "gpu/ac_compile.h"
#include "gpu/ac_kernels.h"
#include "gpu/ac_set_order.h"
#include "gpu/ac_tuning.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_testing.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <sstream>

namespace wm::gpu {
namespace {

std::atomic<size_t> g_initial_output_capacity{0};

template <typename T> T *host_alloc(size_t count, const char *what) {
    void *p = nullptr;
    const size_t bytes = std::max<size_t>(count * sizeof(T), 16);
    const cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
    if (e != cudaSuccess)
        throw GpuError(std::string("cudaHostAlloc(") + what + ", " + std::to_string(bytes) +
                       " bytes) failed: " + cudaGetErrorString(e));
    return static_cast<T *>(p);
}

// Per-stream buffers: one chunk in flight.
struct Slot {
    cudaStream_t stream = nullptr;
    uint8_t *h_text = nullptr, *d_text = nullptr;
    Segment *h_segs = nullptr, *d_segs = nullptr;
    Match *d_matches = nullptr;             // also the Set keys (8 <= 12 bytes per record)
    unsigned long long *d_hash = nullptr;   // Set: chunk-wide dedupe table; after the kernel, the
    size_t hash_slots = 0;                  //      sort's second key buffer (>= 2 x capacity keys)
    void *d_sort_tmp = nullptr;             // Set: CUB radix-sort scratch for up to capacity keys
    size_t sort_tmp_bytes = 0;
    Match *h_out = nullptr;                 // pinned results (Match or keys)
    uint32_t *d_count = nullptr, *h_count = nullptr; // [0] records, [1] Set table failures
    unsigned long long *d_counters = nullptr;
    size_t capacity = 0;
    Chunk chunk;
    const uint8_t *src = nullptr;           // where the chunk's bytes are copied from (pinned)
    bool busy = false;
};

// True when [p, p + bytes) starts and ends in page-locked host memory, so the
// DMA engine can read it directly at full PCIe speed.
bool is_pinned(const uint8_t *p, size_t bytes) {
    if (!p || bytes == 0) return false;
    for (const uint8_t *q : {p, p + bytes - 1}) {
        cudaPointerAttributes a{};
        if (cudaPointerGetAttributes(&a, q) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        if (a.type != cudaMemoryTypeHost) return false;
    }
    return true;
}

class CudaMatcher final : public GpuMatcher {
  public:
    CudaMatcher(const std::vector<Literal> &patterns, const GpuOptions &opts);
    ~CudaMatcher() override;
    void scan(const BatchView &batch, OutputMode mode, std::vector<Match> &out) override;
    void count(const BatchView &batch, std::vector<uint64_t> &per_pattern) override;
    std::string describe() const override;
    uint8_t *pinned_buffer(size_t bytes) override;

  private:
    void stage(Slot &s, const BatchView &batch, bool pinned);
    void alloc_outputs(Slot &s, size_t capacity);
    void free_outputs(Slot &s);
    void submit(Slot &s);
    void run_kernel(Slot &s, EmitKind kind);
    void finish(Slot &s, OutputMode mode, std::vector<Match> &out);

    GpuOptions opts_;
    AcBlob blob_;
    uint8_t *d_blob_ = nullptr;
    AcView d_view_{};
    DeviceInfo dev_;
    std::string dev_name_;
    bool shared_counters_ = false;
    size_t chunk_bytes_ = 0, chunk_segs_ = 0;
    Slot slots_[tuning::kStreams];
    uint8_t *h_user_ = nullptr; // pinned_buffer()
    size_t h_user_bytes_ = 0;
};

CudaMatcher::CudaMatcher(const std::vector<Literal> &patterns, const GpuOptions &opts) : opts_(opts) {
    std::string why;
    if (!gpu_usable(opts.device, &why)) throw GpuError("GPU matcher unavailable: " + why);
    WM_CUDA_CHECK(cudaSetDevice(opts.device));
    cudaDeviceProp prop{};
    WM_CUDA_CHECK(cudaGetDeviceProperties(&prop, opts.device));
    dev_.sm_count = prop.multiProcessorCount;
    dev_.smem_optin = prop.sharedMemPerBlockOptin;
    dev_name_ = prop.name;

    AcCompileOptions co;
    co.key_bytes = tuning::kKeyBytes;
    co.dense_budget_bytes = tuning::kDenseBudgetBytes;
    blob_ = compile_ac(patterns, co);
    d_blob_ = dev_alloc<uint8_t>(blob_.bytes.size(), "d_blob");
    WM_CUDA_CHECK(cudaMemcpy(d_blob_, blob_.bytes.data(), blob_.bytes.size(), cudaMemcpyHostToDevice));
    d_view_ = make_ac_view(blob_.bytes.data(), d_blob_);
    shared_counters_ = ac_prepare_kernels(dev_, d_view_);

    chunk_bytes_ = std::max<size_t>(std::min<size_t>(opts.max_batch_bytes, UINT32_MAX - 4096),
                                    size_t{blob_.header().max_len} + tuning::kTileBytes);
    chunk_segs_ = std::max<size_t>(1, opts.max_batch_payloads);
    size_t cap = g_initial_output_capacity.load();
    if (cap == 0) cap = std::max(tuning::kMinOutputRecords, chunk_bytes_ / tuning::kBytesPerOutput);
    for (Slot &s : slots_) {
        WM_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
        s.h_text = host_alloc<uint8_t>(chunk_bytes_ + 64, "h_text");
        s.d_text = dev_alloc<uint8_t>(chunk_bytes_ + 64, "d_text");
        s.h_segs = host_alloc<Segment>(chunk_segs_, "h_segs");
        s.d_segs = dev_alloc<Segment>(chunk_segs_, "d_segs");
        s.d_count = dev_alloc<uint32_t>(2, "d_count");
        s.h_count = host_alloc<uint32_t>(2, "h_count");
        s.d_counters = dev_alloc<unsigned long long>(std::max<uint32_t>(1, d_view_.num_patterns), "d_counters");
        alloc_outputs(s, cap);
    }
}

CudaMatcher::~CudaMatcher() {
    for (Slot &s : slots_) {
        if (s.stream) cudaStreamSynchronize(s.stream);
        free_outputs(s);
        cudaFreeHost(s.h_text);
        cudaFree(s.d_text);
        cudaFreeHost(s.h_segs);
        cudaFree(s.d_segs);
        cudaFree(s.d_count);
        cudaFreeHost(s.h_count);
        cudaFree(s.d_counters);
        if (s.stream) cudaStreamDestroy(s.stream);
    }
    cudaFree(d_blob_);
    cudaFreeHost(h_user_);
}

uint8_t *CudaMatcher::pinned_buffer(size_t bytes) {
    if (bytes > h_user_bytes_) {
        WM_CUDA_CHECK(cudaSetDevice(opts_.device));
        cudaFreeHost(h_user_);
        h_user_ = nullptr;
        h_user_bytes_ = 0;
        h_user_ = host_alloc<uint8_t>(bytes, "pinned_buffer");
        h_user_bytes_ = bytes;
    }
    return h_user_;
}

void CudaMatcher::alloc_outputs(Slot &s, size_t capacity) {
    capacity = std::min<size_t>(capacity, UINT32_MAX);
    s.capacity = capacity;
    s.d_matches = dev_alloc<Match>(capacity, "d_matches");
    s.hash_slots = ac_set_hash_slots(capacity);
    s.d_hash = dev_alloc<unsigned long long>(s.hash_slots, "d_set_hash");
    s.sort_tmp_bytes = ac_sort_keys_temp_bytes(static_cast<uint32_t>(capacity));
    s.d_sort_tmp = dev_alloc<uint8_t>(s.sort_tmp_bytes, "d_sort_tmp");
    s.h_out = host_alloc<Match>(capacity, "h_out");
}

void CudaMatcher::free_outputs(Slot &s) {
    cudaFree(s.d_matches);
    cudaFree(s.d_hash);
    cudaFree(s.d_sort_tmp);
    cudaFreeHost(s.h_out);
    s.d_matches = nullptr;
    s.d_hash = nullptr;
    s.d_sort_tmp = nullptr;
    s.sort_tmp_bytes = 0;
    s.h_out = nullptr;
}

// Points the slot at its chunk's bytes: the caller's pinned memory as is, else
// a copy in the slot's pinned staging buffer (free: the slot's stream is idle).
void CudaMatcher::stage(Slot &s, const BatchView &batch, bool pinned) {
    if (pinned) {
        s.src = batch.data + s.chunk.src_begin;
    } else {
        std::memcpy(s.h_text, batch.data + s.chunk.src_begin, s.chunk.bytes);
        s.src = s.h_text;
    }
    std::memcpy(s.h_segs, s.chunk.segs.data(), s.chunk.segs.size() * sizeof(Segment));
}

// Copies the slot's chunk (pinned) to the device.
void CudaMatcher::submit(Slot &s) {
    WM_CUDA_CHECK(cudaMemcpyAsync(s.d_text, s.src, s.chunk.bytes, cudaMemcpyHostToDevice, s.stream));
    WM_CUDA_CHECK(cudaMemcpyAsync(s.d_segs, s.h_segs, s.chunk.segs.size() * sizeof(Segment),
                                  cudaMemcpyHostToDevice, s.stream));
}

void CudaMatcher::run_kernel(Slot &s, EmitKind kind) {
    ScanParams p{};
    p.view = d_view_;
    p.d_text = s.d_text;
    p.d_segs = s.d_segs;
    p.num_segs = static_cast<uint32_t>(s.chunk.segs.size());
    p.num_tiles = s.chunk.tiles;
    p.d_matches = s.d_matches;
    p.d_keys = reinterpret_cast<unsigned long long *>(s.d_matches);
    p.d_hash = s.d_hash;
    p.hash_mask = static_cast<uint32_t>(s.hash_slots - 1);
    p.capacity = static_cast<uint32_t>(s.capacity);
    p.d_count = s.d_count;
    p.d_counters = s.d_counters;
    p.shared_counters = shared_counters_ ? 1 : 0;
    if (kind != EmitKind::Count) WM_CUDA_CHECK(cudaMemsetAsync(s.d_count, 0, 2 * sizeof(uint32_t), s.stream));
    if (kind == EmitKind::SetKeys) // all kEmptyKey (~0)
        WM_CUDA_CHECK(cudaMemsetAsync(s.d_hash, 0xff, s.hash_slots * sizeof(unsigned long long), s.stream));
    ac_dispatch_scan(kind, p, dev_, s.stream);
    if (kind != EmitKind::Count)
        WM_CUDA_CHECK(cudaMemcpyAsync(s.h_count, s.d_count, 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                      s.stream));
}

void CudaMatcher::finish(Slot &s, OutputMode mode, std::vector<Match> &out) {
    const EmitKind kind = mode == OutputMode::Set ? EmitKind::SetKeys : EmitKind::Positions;
    WM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    uint32_t n = s.h_count[0];
    while (n > s.capacity || s.h_count[1] != 0) { // overflow: grow, rescan the chunk still on the device
        const size_t want = std::max<size_t>(n, s.capacity + 1);
        free_outputs(s);
        alloc_outputs(s, want + want / 4 + 1024);
        run_kernel(s, kind);
        WM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
        n = s.h_count[0];
    }
    if (n > 0) {
        const void *src = s.d_matches;
        size_t rec = sizeof(Match);
        if (mode == OutputMode::Set) { // distinct keys (ac_set_hash.cuh): sort them, the table is spent
            rec = sizeof(unsigned long long);
            uint32_t max_payload = 0; // segments run in payload order; max() to be safe
            for (const Segment &g : s.chunk.segs) max_payload = std::max(max_payload, g.payload);
            src = ac_sort_keys(reinterpret_cast<unsigned long long *>(s.d_matches), s.d_hash, n,
                               set_sort_end_bit(max_payload), s.d_sort_tmp, s.sort_tmp_bytes, s.stream);
        }
        WM_CUDA_CHECK(cudaMemcpyAsync(s.h_out, src, size_t{n} * rec, cudaMemcpyDeviceToHost, s.stream));
        WM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    }
    if (mode == OutputMode::Positions)
        out.insert(out.end(), s.h_out, s.h_out + n);
    else // distinct, sorted by (payload, pattern)
        append_set_keys(reinterpret_cast<const unsigned long long *>(s.h_out), n, out);
    s.busy = false;
}

void CudaMatcher::scan(const BatchView &batch, OutputMode mode, std::vector<Match> &out) {
    out.clear();
    if (batch.count == 0 || d_view_.num_groups == 0) return;
    WM_CUDA_CHECK(cudaSetDevice(opts_.device));
    const EmitKind kind = mode == OutputMode::Set ? EmitKind::SetKeys : EmitKind::Positions;
    ChunkPlanner plan(batch, chunk_bytes_, chunk_segs_, tuning::kTileBytes, d_view_.max_len);
    const bool pinned = is_pinned(batch.data, batch.offsets[batch.count]);
    bool split = false;
    try {
        uint32_t k = 0;
        for (;; ++k) {
            Slot &s = slots_[k % tuning::kStreams];
            if (s.busy) finish(s, mode, out);
            if (!plan.next(s.chunk)) break;
            split |= s.chunk.splits_payload;
            stage(s, batch, pinned);
            submit(s);
            run_kernel(s, kind);
            s.busy = true;
        }
        // Drain oldest first, so chunks (and their sorted Set keys) come out
        // in payload order: slot k % kStreams is free, (k + 1) holds the oldest.
        for (uint32_t j = 1; j <= tuning::kStreams; ++j) {
            Slot &s = slots_[(k + j) % tuning::kStreams];
            if (s.busy) finish(s, mode, out);
        }
    } catch (...) {
        for (Slot &s : slots_) {
            cudaStreamSynchronize(s.stream);
            s.busy = false;
        }
        throw;
    }
    // Chunks come back sorted, in payload order; a payload spanning chunks
    // may repeat a pair and break the order at the boundary.
    if (mode == OutputMode::Set) join_set_chunks(out, split);
}

void CudaMatcher::count(const BatchView &batch, std::vector<uint64_t> &per_pattern) {
    const uint32_t P = d_view_.num_patterns;
    per_pattern.assign(P, 0);
    if (batch.count == 0 || d_view_.num_groups == 0) return;
    WM_CUDA_CHECK(cudaSetDevice(opts_.device));
    for (Slot &s : slots_)
        WM_CUDA_CHECK(cudaMemsetAsync(s.d_counters, 0, size_t{P} * 8, s.stream));
    ChunkPlanner plan(batch, chunk_bytes_, chunk_segs_, tuning::kTileBytes, d_view_.max_len);
    const bool pinned = is_pinned(batch.data, batch.offsets[batch.count]);
    for (uint32_t k = 0;; ++k) {
        Slot &s = slots_[k % tuning::kStreams];
        WM_CUDA_CHECK(cudaStreamSynchronize(s.stream)); // its pinned input is free again
        if (!plan.next(s.chunk)) break;
        stage(s, batch, pinned);
        submit(s);
        run_kernel(s, EmitKind::Count);
    }
    std::vector<unsigned long long> tmp(P);
    for (Slot &s : slots_) {
        WM_CUDA_CHECK(cudaMemcpyAsync(tmp.data(), s.d_counters, size_t{P} * 8, cudaMemcpyDeviceToHost, s.stream));
        WM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
        for (uint32_t i = 0; i < P; ++i) per_pattern[i] += tmp[i];
    }
}

std::string CudaMatcher::describe() const {
    std::ostringstream o;
    o << blob_.describe() << "; device " << opts_.device << " (" << dev_name_ << ", " << dev_.sm_count
      << " SMs); tile " << tuning::kTileBytes << " B x " << tuning::kBlockThreads << " threads; "
      << tuning::kStreams << " streams; Set dedupe in shared (" << tuning::kSetHashSlots
      << " slots) + global hash, keys radix-sorted on the device; chunk " << chunk_bytes_ << " B; count counters in "
      << (shared_counters_ ? "shared" : "global") << " memory";
    return o.str();
}

} // namespace

bool gpu_usable(int device, std::string *reason) {
    auto fail = [&](const std::string &why) {
        if (reason) *reason = why;
        return false;
    };
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cudaGetLastError();
        // Without an NVIDIA driver the runtime reports an "insufficient"
        // driver; say plainly that there is none.
        const std::string detail = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
        if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice)
            return fail("no usable CUDA driver or GPU (" + detail + ")");
        return fail("cudaGetDeviceCount failed (" + detail + ")");
    }
    if (n == 0) return fail("no CUDA device");
    if (device < 0 || device >= n)
        return fail("device " + std::to_string(device) + " out of range (" + std::to_string(n) + " devices)");
    int prev = 0;
    cudaGetDevice(&prev);
    if ((e = cudaSetDevice(device)) != cudaSuccess) return fail(std::string("cudaSetDevice: ") + cudaGetErrorString(e));
    std::string why;
    const bool ok = ac_kernels_loadable(&why);
    cudaSetDevice(prev);
    return ok ? true : fail(why);
}

std::unique_ptr<GpuMatcher> GpuMatcher::create(const std::vector<Literal> &patterns, const GpuOptions &opts) {
    return std::make_unique<CudaMatcher>(patterns, opts);
}

void testing::set_initial_output_capacity(size_t records) { g_initial_output_capacity = records; }

} // namespace wm::gpu
