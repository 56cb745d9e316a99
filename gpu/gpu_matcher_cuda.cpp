// gpu/gpu_matcher_cuda.cpp - public entry of the GPU matcher: owns the device
// blob and tuning::kStreams chunk slots (chunk_slot.h: a stream and its pinned
// and device buffers, sized once in create()); splits batches into chunks (ac_plan.h) and
// keeps them in flight round-robin so one chunk's H2D copy, kernel and D2H copy
// overlap the others'. Input already in page-locked memory (pinned_buffer(), or
// any cudaHostAlloc/cudaHostRegister memory) is copied to the device straight
// from the caller's bytes: no host memcpy into the staging buffers. Set mode
// sorts each chunk's distinct keys on the device before the copy back
// (ac_sort_keys.cu), so the output comes back ordered (ac_set_order.h);
// scan_set_pairs() also filters the keys by scope and maps them to pairs there
// (ac_set_pairs.cu) and copies them straight into the caller-visible pinned
// buffer.
#include "gpu/ac_compile.h"
#include "gpu/ac_kernels.h"
#include "gpu/ac_set_order.h"
#include "gpu/ac_tuning.h"
#include "gpu/chunk_slot.h"
#include "gpu/chunk_trace.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_testing.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <sstream>

namespace wm::gpu {
namespace {

using testing::ChunkTrace;

std::atomic<size_t> g_initial_output_capacity{0};

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

// Device copy of FlatScopes (owned arrays; the count is the host copy's).
struct DeviceScopes {
    uint8_t *proto = nullptr;
    uint32_t *port_begin = nullptr;
    PortRange *ports = nullptr;
    uint32_t *id = nullptr;
    ScopeView view(const FlatScopes &host) const {
        return {proto, port_begin, ports, id, static_cast<uint32_t>(host.id.size())};
    }
    void free() {
        cudaFree(proto);
        cudaFree(port_begin);
        cudaFree(ports);
        cudaFree(id);
        *this = DeviceScopes{};
    }
};

class CudaMatcher final : public GpuMatcher {
  public:
    CudaMatcher(const std::vector<Literal> &patterns, const GpuOptions &opts);
    ~CudaMatcher() override;
    void scan(const BatchView &batch, OutputMode mode, std::vector<Match> &out) override;
    void count(const BatchView &batch, std::vector<uint64_t> &per_pattern) override;
    void set_scopes(const std::vector<PatternScope> &scopes) override;
    size_t scan_set_pairs(const BatchView &batch, const PayloadMeta *meta, const SetPair **pairs) override;
    std::string describe() const override;
    uint8_t *pinned_buffer(size_t bytes, unsigned slot) override;

  private:
    void run_kernel(ChunkSlot &s, EmitKind kind);
    void launch(ChunkSlot &s, EmitKind kind);
    void launch_pairs(ChunkSlot &s, bool filter);
    template <typename Launch, typename Done>
    bool run_chunks(const BatchView &batch, Launch launch, Done done, const PayloadMeta *meta = nullptr);
    template <typename Launch> uint32_t collect(ChunkSlot &s, Launch launch);
    unsigned long long *sorted_keys(ChunkSlot &s, unsigned long long *keys, unsigned long long *alt, uint32_t n);
    void finish(ChunkSlot &s, OutputMode mode, std::vector<Match> &out);
    void finish_pairs(ChunkSlot &s, bool filter, size_t &total);
    void sync_slots();
    void upload_scopes(FlatScopes f);
    void reserve_pairs(size_t n);
    void join_split_pairs(size_t &total) const;

    GpuOptions opts_;
    AcBlob blob_;
    uint8_t *d_blob_ = nullptr;
    AcView d_view_{};
    DeviceInfo dev_;
    std::string dev_name_;
    bool shared_counters_ = false;
    size_t chunk_bytes_ = 0, chunk_segs_ = 0;
    std::unique_ptr<ChunkSlot> slots_[tuning::kStreams];
    ChunkTracer trace_; // off unless testing::set_chunk_trace(true)
    uint8_t *h_user_[kPinnedSlots] = {}; // pinned_buffer()
    size_t h_user_bytes_[kPinnedSlots] = {};
    // scan_set_pairs(): scopes (host copy and device arrays), payload meta, output.
    FlatScopes scopes_;
    DeviceScopes d_scopes_;
    unsigned long long *h_pairs_ = nullptr; // pinned pair words
    size_t pairs_cap_ = 0;
};

template <typename T> T *upload(const std::vector<T> &v, const char *what) {
    T *d = dev_alloc<T>(std::max<size_t>(v.size(), 1), what);
    if (!v.empty()) WM_CUDA_CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

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

    chunk_bytes_ = std::max<size_t>(std::min<size_t>({opts.max_batch_bytes, tuning::kMaxChunkBytes, UINT32_MAX - 4096}),
                                    size_t{blob_.header().max_len} + tuning::kTileBytes);
    chunk_segs_ = std::max<size_t>(1, opts.max_batch_payloads);
    upload_scopes(identity_scopes(d_view_.num_patterns));
    size_t cap = g_initial_output_capacity.load();
    if (cap == 0) cap = std::max(tuning::kMinOutputRecords, chunk_bytes_ / tuning::kBytesPerOutput);
    for (auto &slot : slots_) slot = std::make_unique<ChunkSlot>(chunk_bytes_, chunk_segs_, d_view_.num_patterns, cap);
}

CudaMatcher::~CudaMatcher() {
    for (auto &slot : slots_) slot.reset(); // waits for its stream before the blob goes
    cudaFree(d_blob_);
    for (uint8_t *p : h_user_) cudaFreeHost(p);
    d_scopes_.free();
    cudaFreeHost(h_pairs_);
}

void CudaMatcher::upload_scopes(FlatScopes f) {
    WM_CUDA_CHECK(cudaSetDevice(opts_.device));
    d_scopes_.free();
    d_scopes_.proto = upload(f.proto, "scope protocols");
    d_scopes_.port_begin = upload(f.port_begin, "scope port index");
    d_scopes_.ports = upload(f.ports, "scope ports");
    d_scopes_.id = upload(f.id, "scope ids");
    scopes_ = std::move(f);
}

void CudaMatcher::set_scopes(const std::vector<PatternScope> &scopes) {
    upload_scopes(flatten_scopes(scopes, d_view_.num_patterns));
}

// Grows the pinned pair buffer to n words at least, keeping its contents:
// waits for the copies into it still in flight first.
void CudaMatcher::reserve_pairs(size_t n) {
    if (n <= pairs_cap_) return;
    sync_slots();
    const size_t cap = std::max(n + n / 2, size_t{1} << 16);
    unsigned long long *bigger = host_alloc<unsigned long long>(cap, "set pairs");
    if (h_pairs_) std::memcpy(bigger, h_pairs_, pairs_cap_ * sizeof(unsigned long long));
    cudaFreeHost(h_pairs_);
    h_pairs_ = bigger;
    pairs_cap_ = cap;
}

uint8_t *CudaMatcher::pinned_buffer(size_t bytes, unsigned slot) {
    if (slot >= kPinnedSlots) throw GpuError("pinned_buffer: slot " + std::to_string(slot) + " out of range");
    if (bytes > h_user_bytes_[slot]) {
        WM_CUDA_CHECK(cudaSetDevice(opts_.device));
        cudaFreeHost(h_user_[slot]);
        h_user_[slot] = nullptr;
        h_user_bytes_[slot] = 0;
        h_user_[slot] = host_alloc<uint8_t>(bytes, "pinned_buffer");
        h_user_bytes_[slot] = bytes;
    }
    return h_user_[slot];
}

void CudaMatcher::run_kernel(ChunkSlot &s, EmitKind kind) {
    ScanParams p{};
    p.view = d_view_;
    p.d_text = s.d_text;
    p.d_segs = s.d_segs;
    if (s.chunk.whole_run) { // tile count on the device; launch for the most it can be
        p.num_segs = run_payloads(s.chunk);
        p.num_tiles = s.chunk.bytes / tuning::kTileBytes + p.num_segs;
        p.d_num_tiles = s.d_count + 3;
    } else {
        p.num_segs = static_cast<uint32_t>(s.chunk.segs.size());
        p.num_tiles = s.chunk.tiles;
    }
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
}

// scan(): the kernel, then its counts to the host.
void CudaMatcher::launch(ChunkSlot &s, EmitKind kind) {
    run_kernel(s, kind);
    trace_.gpu(s.seq, ChunkTrace::kScanned, s.stream);
    WM_CUDA_CHECK(cudaMemcpyAsync(s.h_count, s.d_count, 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost, s.stream));
}

// scan_set_pairs(): the kernel and every pass after it (scope filter, sort,
// pair mapping), enqueued at once: the passes read the key count on the
// device, so the host waits once per chunk. Without the round trips, each pass
// queued behind the next chunk's persistent kernel (run 49: 3.4 of 9 ms). The
// sort covers sort_n keys, padded past the real ones.
void CudaMatcher::launch_pairs(ChunkSlot &s, bool filter) {
    run_kernel(s, EmitKind::SetKeys);
    trace_.gpu(s.seq, ChunkTrace::kScanned, s.stream);
    const SortKeyCodec codec = sort_key_codec(d_view_.num_patterns, s.chunk.first_payload);
    const uint64_t most_pairs = (uint64_t{s.chunk.last_payload} - s.chunk.first_payload + 1) * d_view_.num_patterns;
    s.sort_n = static_cast<uint32_t>(std::min<uint64_t>(s.capacity, most_pairs));
    auto *keys = reinterpret_cast<unsigned long long *>(s.d_matches);
    unsigned long long *alt = s.d_hash; // the dedupe table is spent: scratch of >= 2 x capacity keys
    const uint32_t *d_n = s.d_count;
    if (filter) {
        ac_filter_encode_keys(keys, s.d_count, s.sort_n, alt, s.d_count + 2, d_scopes_.view(scopes_), s.d_meta,
                              s.meta_base, codec, s.stream);
        std::swap(keys, alt); // d_matches (capacity x 12 bytes) is the sort's scratch now
        d_n = s.d_count + 2;
    } else {
        ac_encode_keys(keys, s.d_count, s.sort_n, codec, s.stream);
    }
    s.d_pairs = ac_sort_keys(keys, alt, s.sort_n, sort_end_bit(codec, s.chunk.last_payload), s.d_sort_tmp,
                             s.sort_tmp_bytes, s.stream);
    ac_sorted_keys_to_pairs(s.d_pairs, d_n, s.sort_n, codec, d_scopes_.id, s.stream);
    WM_CUDA_CHECK(cudaMemcpyAsync(s.h_count, s.d_count, 3 * sizeof(uint32_t), cudaMemcpyDeviceToHost, s.stream));
    trace_.gpu(s.seq, ChunkTrace::kPassed, s.stream);
}

// Waits for what launch(s) enqueued; on overflow grows the outputs and
// launches again on the chunk still on the device. Returns the record count.
template <typename Launch> uint32_t CudaMatcher::collect(ChunkSlot &s, Launch launch) {
    WM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    uint32_t n = s.h_count[0];
    while (n > s.capacity || s.h_count[1] != 0) {
        const size_t want = std::max<size_t>(n, s.capacity + 1);
        s.free_outputs();
        s.alloc_outputs(want + want / 4 + 1024);
        launch(s);
        WM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
        n = s.h_count[0];
    }
    return n;
}

void CudaMatcher::sync_slots() {
    for (auto &slot : slots_) WM_CUDA_CHECK(cudaStreamSynchronize(slot->stream));
}

// Enqueues the sort of a chunk's n distinct keys (alt: n keys of scratch);
// returns the buffer holding them sorted.
unsigned long long *CudaMatcher::sorted_keys(ChunkSlot &s, unsigned long long *keys, unsigned long long *alt, uint32_t n) {
    const uint32_t max_payload = s.chunk.last_payload; // the planner emits payloads in order
    return ac_sort_keys(keys, alt, n, set_sort_end_bit(max_payload), s.d_sort_tmp, s.sort_tmp_bytes, s.stream);
}

void CudaMatcher::finish(ChunkSlot &s, OutputMode mode, std::vector<Match> &out) {
    const EmitKind kind = mode == OutputMode::Set ? EmitKind::SetKeys : EmitKind::Positions;
    const uint32_t n = collect(s, [&](ChunkSlot &c) { launch(c, kind); });
    if (n > 0) {
        const void *src = s.d_matches;
        size_t rec = sizeof(Match);
        if (mode == OutputMode::Set) { // distinct keys (ac_set_hash.cuh): sort them, the table is spent
            rec = sizeof(unsigned long long);
            src = sorted_keys(s, reinterpret_cast<unsigned long long *>(s.d_matches), s.d_hash, n);
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

// scan_set_pairs(): waits for the chunk's passes and enqueues the copy of its
// pairs to h_pairs_[total, ...) without waiting for it (run_chunks() waits
// for all copies at the end).
void CudaMatcher::finish_pairs(ChunkSlot &s, bool filter, size_t &total) {
    trace_.host(s.seq, ChunkTrace::kWaitBegin);
    const uint32_t found = collect(s, [&](ChunkSlot &c) { launch_pairs(c, filter); });
    trace_.host(s.seq, ChunkTrace::kWaitEnd);
    const uint32_t n = filter ? s.h_count[2] : found;
    if (n > 0) {
        reserve_pairs(total + n);
        WM_CUDA_CHECK(cudaMemcpyAsync(h_pairs_ + total, s.d_pairs, size_t{n} * sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, s.stream));
        trace_.gpu(s.seq, ChunkTrace::kCopiedBack, s.stream);
        total += n;
    }
    s.busy = false;
}

// A payload that spanned chunks may repeat pairs across the boundary: order by
// (payload, pattern index) again and drop repeats (ids map back to patterns).
void CudaMatcher::join_split_pairs(size_t &total) const {
    std::vector<std::pair<uint32_t, uint32_t>> by_id(scopes_.id.size()); // (id, pattern)
    for (uint32_t p = 0; p < by_id.size(); ++p) by_id[p] = {scopes_.id[p], p};
    std::sort(by_id.begin(), by_id.end());
    auto pattern_of = [&](unsigned long long w) {
        const auto it = std::lower_bound(by_id.begin(), by_id.end(), std::make_pair(static_cast<uint32_t>(w), 0u));
        return it->second;
    };
    auto less = [&](unsigned long long a, unsigned long long b) {
        return (a >> 32) != (b >> 32) ? (a >> 32) < (b >> 32) : pattern_of(a) < pattern_of(b);
    };
    if (!std::is_sorted(h_pairs_, h_pairs_ + total, less)) std::sort(h_pairs_, h_pairs_ + total, less);
    total = static_cast<size_t>(std::unique(h_pairs_, h_pairs_ + total) - h_pairs_);
}

// Runs the batch through the slots round-robin, kStreams chunks in flight:
// launch(slot) enqueues a staged chunk's device work, done(slot) consumes it,
// oldest first (so results come in payload order). Returns whether some
// payload spanned chunks.
template <typename Launch, typename Done>
bool CudaMatcher::run_chunks(const BatchView &batch, Launch launch, Done done, const PayloadMeta *meta) {
    ChunkPlanner plan(batch, chunk_bytes_, chunk_segs_, tuning::kTileBytes, d_view_.max_len, true);
    const bool pinned = is_pinned(batch.data, batch.offsets[batch.count]);
    bool split = false;
    trace_.begin(slots_[0]->stream);
    try {
        uint32_t k = 0;
        for (;; ++k) {
            ChunkSlot &s = *slots_[k % tuning::kStreams];
            if (s.busy) done(s);
            if (!plan.next(s.chunk)) break;
            split |= s.chunk.splits_payload;
            s.seq = k;
            s.stage(batch, pinned, meta);
            trace_.host(k, ChunkTrace::kStaged, k % tuning::kStreams, s.chunk.bytes);
            trace_.gpu(k, ChunkTrace::kCopyStart, s.stream);
            s.submit();
            trace_.gpu(k, ChunkTrace::kCopied, s.stream);
            launch(s);
            s.busy = true;
        }
        // Slot k % kStreams is free, (k + 1) holds the oldest.
        for (uint32_t j = 1; j <= tuning::kStreams; ++j) {
            ChunkSlot &s = *slots_[(k + j) % tuning::kStreams];
            if (s.busy) done(s);
        }
        sync_slots(); // copies done() left in flight
        trace_.end();
    } catch (...) {
        for (auto &slot : slots_) {
            ChunkSlot &s = *slot;
            cudaStreamSynchronize(s.stream);
            s.busy = false;
        }
        throw;
    }
    return split;
}

void CudaMatcher::scan(const BatchView &batch, OutputMode mode, std::vector<Match> &out) {
    out.clear();
    if (batch.count == 0 || d_view_.num_groups == 0) return;
    WM_CUDA_CHECK(cudaSetDevice(opts_.device));
    const EmitKind kind = mode == OutputMode::Set ? EmitKind::SetKeys : EmitKind::Positions;
    const bool split =
        run_chunks(batch, [&](ChunkSlot &s) { launch(s, kind); }, [&](ChunkSlot &s) { finish(s, mode, out); });
    // Chunks come back sorted, in payload order; a payload spanning chunks
    // may repeat a pair and break the order at the boundary.
    if (mode == OutputMode::Set) join_set_chunks(out, split);
}

size_t CudaMatcher::scan_set_pairs(const BatchView &batch, const PayloadMeta *meta, const SetPair **pairs) {
    *pairs = reinterpret_cast<const SetPair *>(h_pairs_);
    if (batch.count == 0 || d_view_.num_groups == 0) return 0;
    WM_CUDA_CHECK(cudaSetDevice(opts_.device));
    const bool filter = meta && scopes_.any_constraint;
    size_t total = 0;
    const bool split = run_chunks(
        batch, [&](ChunkSlot &s) { launch_pairs(s, filter); }, [&](ChunkSlot &s) { finish_pairs(s, filter, total); },
        filter ? meta : nullptr);
    if (split) join_split_pairs(total);
    *pairs = reinterpret_cast<const SetPair *>(h_pairs_);
    return total;
}

void CudaMatcher::count(const BatchView &batch, std::vector<uint64_t> &per_pattern) {
    const uint32_t P = d_view_.num_patterns;
    per_pattern.assign(P, 0);
    if (batch.count == 0 || d_view_.num_groups == 0) return;
    WM_CUDA_CHECK(cudaSetDevice(opts_.device));
    for (auto &slot : slots_)
        WM_CUDA_CHECK(cudaMemsetAsync(slot->d_counters, 0, size_t{P} * 8, slot->stream));
    ChunkPlanner plan(batch, chunk_bytes_, chunk_segs_, tuning::kTileBytes, d_view_.max_len, true);
    const bool pinned = is_pinned(batch.data, batch.offsets[batch.count]);
    for (uint32_t k = 0;; ++k) {
        ChunkSlot &s = *slots_[k % tuning::kStreams];
        WM_CUDA_CHECK(cudaStreamSynchronize(s.stream)); // its pinned input is free again
        if (!plan.next(s.chunk)) break;
        s.stage(batch, pinned, nullptr);
        s.submit();
        run_kernel(s, EmitKind::Count);
    }
    std::vector<unsigned long long> tmp(P);
    for (auto &slot : slots_) {
        ChunkSlot &s = *slot;
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
