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
// buffer of its batch (pair_batch.h); submit_set_pairs() leaves the chunks in
// flight when it returns, so successive batches overlap.
#include "gpu/ac_compile.h"
#include "gpu/ac_kernels.h"
#include "gpu/ac_set_order.h"
#include "gpu/ac_tuning.h"
#include "gpu/chunk_slot.h"
#include "gpu/chunk_trace.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_testing.h"
#include "gpu/pair_batch.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <sstream>

namespace wm::gpu {
namespace {

using testing::ChunkTrace;

std::atomic<size_t> g_initial_output_capacity{0};
std::atomic<size_t> g_max_chunk_bytes{0};

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
    void submit_set_pairs(const BatchView &batch, const PayloadMeta *meta) override;
    size_t collect_set_pairs(const SetPair **pairs) override;
    unsigned pending_set_batches() const override { return static_cast<unsigned>(submitted_ - collected_); }
    std::string describe() const override;
    uint8_t *pinned_buffer(size_t bytes, unsigned slot) override;

  private:
    void run_kernel(ChunkSlot &s, EmitKind kind);
    void launch(ChunkSlot &s, EmitKind kind);
    void launch_pairs(ChunkSlot &s, bool filter);
    template <typename Launch, typename Done>
    bool run_chunks(const BatchView &batch, Launch launch, Done done, const PayloadMeta *meta, bool drain);
    template <typename Launch> uint32_t collect(ChunkSlot &s, Launch launch);
    unsigned long long *sorted_keys(ChunkSlot &s, unsigned long long *keys, unsigned long long *alt, uint32_t n);
    void finish(ChunkSlot &s, OutputMode mode, std::vector<Match> &out);
    void finish_pairs(ChunkSlot &s);
    void finish_pending_chunks(const PairBatch *only = nullptr);
    void sync_slots();
    void drop_after_failure();
    ChunkSlot &slot_at(uint32_t j) { return *slots_[(next_seq_ + j) % tuning::kStreams]; } // j = 0: oldest chunk
    uint32_t traced(const ChunkSlot &s) const { return s.seq - trace_base_; }
    void upload_scopes(FlatScopes f);
    void join_split_pairs(PairBatch &b) const;

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
    PairBatch pair_batches_[kPendingBatches]; // submitted batch i fills pair_batches_[i % kPendingBatches]
    uint64_t submitted_ = 0, collected_ = 0;
    uint32_t next_seq_ = 0;   // chunks staged so far; the next goes to slot next_seq_ % kStreams
    uint32_t trace_base_ = 0; // seq of the traced timeline's first chunk
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

    const size_t max_chunk = g_max_chunk_bytes.load() ? g_max_chunk_bytes.load() : tuning::kMaxChunkBytes;
    chunk_bytes_ = std::max<size_t>(std::min<size_t>({opts.max_batch_bytes, max_chunk, UINT32_MAX - 4096}),
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

uint8_t *CudaMatcher::pinned_buffer(size_t bytes, unsigned slot) {
    if (slot >= kPinnedSlots) throw GpuError("pinned_buffer: slot " + std::to_string(slot) + " out of range");
    if (bytes > h_user_bytes_[slot]) {
        if (pending_set_batches())
            throw std::logic_error("pinned_buffer: cannot grow a buffer while " + std::to_string(pending_set_batches()) +
                                   " submitted batches are not collected (they may lie in it)");
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
    p.d_next_unit = s.d_count + 4;
    WM_CUDA_CHECK(cudaMemsetAsync(p.d_next_unit, 0, sizeof(uint32_t), s.stream));
    if (kind != EmitKind::Count) WM_CUDA_CHECK(cudaMemsetAsync(s.d_count, 0, 2 * sizeof(uint32_t), s.stream));
    if (kind == EmitKind::SetKeys) // all kEmptyKey (~0)
        WM_CUDA_CHECK(cudaMemsetAsync(s.d_hash, 0xff, s.hash_slots * sizeof(unsigned long long), s.stream));
    ac_dispatch_scan(kind, p, dev_, s.stream);
}

// scan(): the kernel, then its counts to the host.
void CudaMatcher::launch(ChunkSlot &s, EmitKind kind) {
    run_kernel(s, kind);
    trace_.gpu(traced(s), ChunkTrace::kScanned, s.stream);
    WM_CUDA_CHECK(cudaMemcpyAsync(s.h_count, s.d_count, 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost, s.stream));
}

// scan_set_pairs(): the kernel and every pass after it (scope filter, sort,
// pair mapping), enqueued at once: the passes read the key count on the
// device, so the host waits once per chunk. Without the round trips, each pass
// queued behind the next chunk's persistent kernel (run 49: 3.4 of 9 ms). The
// sort covers sort_n keys, padded past the real ones.
void CudaMatcher::launch_pairs(ChunkSlot &s, bool filter) {
    run_kernel(s, EmitKind::SetKeys);
    trace_.gpu(traced(s), ChunkTrace::kScanned, s.stream);
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
    trace_.gpu(traced(s), ChunkTrace::kPassed, s.stream);
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

// Set pairs: waits for the chunk's passes and enqueues the copy of its pairs
// into its batch's buffer without waiting for it (collect_set_pairs() waits).
void CudaMatcher::finish_pairs(ChunkSlot &s) {
    PairBatch &b = *s.pair_batch;
    trace_.host(traced(s), ChunkTrace::kWaitBegin);
    const uint32_t found = collect(s, [&](ChunkSlot &c) { launch_pairs(c, b.filter); });
    trace_.host(traced(s), ChunkTrace::kWaitEnd);
    const uint32_t n = b.filter ? s.h_count[2] : found;
    if (n > 0) {
        b.append(s.d_pairs, n, s.seq % tuning::kStreams, s.stream);
        trace_.gpu(traced(s), ChunkTrace::kCopiedBack, s.stream);
    }
    s.busy = false;
    s.pair_batch = nullptr;
}

// Finishes the set-pair chunks in flight (of batch `only`, or all), oldest first.
void CudaMatcher::finish_pending_chunks(const PairBatch *only) {
    try {
        for (uint32_t j = 0; j < tuning::kStreams; ++j) {
            ChunkSlot &s = slot_at(j);
            if (s.busy && s.pair_batch && (!only || s.pair_batch == only)) finish_pairs(s);
        }
    } catch (...) {
        drop_after_failure();
        throw;
    }
}

// After a failure: waits for every stream, frees the slots and drops the
// pending batches (their chunks are half done).
void CudaMatcher::drop_after_failure() {
    for (auto &slot : slots_) {
        cudaStreamSynchronize(slot->stream);
        slot->busy = false;
        slot->pair_batch = nullptr;
    }
    for (auto &b : pair_batches_) b.abandon();
    collected_ = submitted_;
}

// A payload that spanned chunks may repeat pairs across the boundary: order by
// (payload, pattern index) again and drop repeats (ids map back to patterns).
void CudaMatcher::join_split_pairs(PairBatch &b) const {
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
    unsigned long long *p = b.pairs();
    if (!std::is_sorted(p, p + b.total, less)) std::sort(p, p + b.total, less);
    b.total = static_cast<size_t>(std::unique(p, p + b.total) - p);
}

// Runs the batch through the slots round-robin, kStreams chunks in flight:
// launch(slot) enqueues a staged chunk's device work, done(slot) consumes a
// chunk, oldest first (so results come in payload order). With drain, every
// chunk is consumed before returning; without, the batch's last chunks stay in
// flight (submit_set_pairs()). Returns whether some payload spanned chunks.
template <typename Launch, typename Done>
bool CudaMatcher::run_chunks(const BatchView &batch, Launch launch, Done done, const PayloadMeta *meta, bool drain) {
    ChunkPlanner plan(batch, chunk_bytes_, chunk_segs_, tuning::kTileBytes, d_view_.max_len, true);
    const bool pinned = is_pinned(batch.data, batch.offsets[batch.count]);
    bool split = false;
    const bool idle = std::none_of(std::begin(slots_), std::end(slots_), [](const auto &s) { return s->busy; });
    if (idle) { // a timeline starts from an idle pipeline
        trace_.begin(slot_at(0).stream);
        trace_base_ = next_seq_;
    }
    try {
        for (;;) {
            ChunkSlot &s = slot_at(0);
            if (s.busy) done(s);
            if (!plan.next(s.chunk)) break;
            split |= s.chunk.splits_payload;
            s.seq = next_seq_++;
            s.stage(batch, pinned, meta);
            trace_.host(traced(s), ChunkTrace::kStaged, s.seq % tuning::kStreams, s.chunk.bytes);
            trace_.gpu(traced(s), ChunkTrace::kCopyStart, s.stream);
            s.submit();
            trace_.gpu(traced(s), ChunkTrace::kCopied, s.stream);
            launch(s);
            s.busy = true;
        }
        if (!drain) return split;
        for (uint32_t j = 0; j < tuning::kStreams; ++j)
            if (slot_at(j).busy) done(slot_at(j));
        sync_slots(); // copies done() left in flight
        trace_.end();
    } catch (...) {
        drop_after_failure();
        throw;
    }
    return split;
}

void CudaMatcher::scan(const BatchView &batch, OutputMode mode, std::vector<Match> &out) {
    out.clear();
    if (batch.count == 0 || d_view_.num_groups == 0) return;
    WM_CUDA_CHECK(cudaSetDevice(opts_.device));
    finish_pending_chunks(); // the slots are this call's now
    const EmitKind kind = mode == OutputMode::Set ? EmitKind::SetKeys : EmitKind::Positions;
    const bool split = run_chunks(
        batch, [&](ChunkSlot &s) { launch(s, kind); }, [&](ChunkSlot &s) { finish(s, mode, out); }, nullptr, true);
    // Chunks come back sorted, in payload order; a payload spanning chunks
    // may repeat a pair and break the order at the boundary.
    if (mode == OutputMode::Set) join_set_chunks(out, split);
}

size_t CudaMatcher::scan_set_pairs(const BatchView &batch, const PayloadMeta *meta, const SetPair **pairs) {
    if (pending_set_batches())
        throw std::logic_error("scan_set_pairs: " + std::to_string(pending_set_batches()) +
                               " submitted batches are not collected; collect them first");
    submit_set_pairs(batch, meta);
    return collect_set_pairs(pairs);
}

void CudaMatcher::submit_set_pairs(const BatchView &batch, const PayloadMeta *meta) {
    if (pending_set_batches() >= kPendingBatches)
        throw std::logic_error("submit_set_pairs: " + std::to_string(kPendingBatches) +
                               " batches already submitted and not collected; collect one first");
    PairBatch &b = pair_batches_[submitted_ % kPendingBatches];
    b.start(meta && scopes_.any_constraint);
    ++submitted_;
    if (batch.count == 0 || d_view_.num_groups == 0) return;
    WM_CUDA_CHECK(cudaSetDevice(opts_.device));
    b.split = run_chunks(
        batch,
        [&](ChunkSlot &s) {
            s.pair_batch = &b;
            launch_pairs(s, b.filter);
        },
        [&](ChunkSlot &s) { finish_pairs(s); }, b.filter ? meta : nullptr, false);
}

size_t CudaMatcher::collect_set_pairs(const SetPair **pairs) {
    if (!pending_set_batches()) throw std::logic_error("collect_set_pairs: no batch submitted");
    PairBatch &b = pair_batches_[collected_ % kPendingBatches];
    WM_CUDA_CHECK(cudaSetDevice(opts_.device));
    finish_pending_chunks(&b);
    try {
        b.wait();
    } catch (...) {
        drop_after_failure();
        throw;
    }
    ++collected_;
    if (b.split) join_split_pairs(b);
    if (trace_.on() && !pending_set_batches()) {
        sync_slots();
        trace_.end();
    }
    *pairs = reinterpret_cast<const SetPair *>(b.pairs());
    return b.total;
}

void CudaMatcher::count(const BatchView &batch, std::vector<uint64_t> &per_pattern) {
    const uint32_t P = d_view_.num_patterns;
    per_pattern.assign(P, 0);
    if (batch.count == 0 || d_view_.num_groups == 0) return;
    WM_CUDA_CHECK(cudaSetDevice(opts_.device));
    finish_pending_chunks(); // the slots are this call's now
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
void testing::set_max_chunk_bytes(size_t bytes) { g_max_chunk_bytes = bytes; }

} // namespace wm::gpu
