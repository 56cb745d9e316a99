// gpu/gpu_matcher_cuda.cpp - public entry of the GPU matcher: owns the device
// blob, the pinned and device buffers (sized once in create()) and
// tuning::kStreams CUDA streams; splits batches into chunks (ac_plan.h) and
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
    Segment *h_segs = nullptr, *d_segs = nullptr; // h_segs: a run's offsets instead, in a whole-payload run
    uint32_t *d_offsets = nullptr, *d_prefix = nullptr; // whole-payload run: offsets, tile scan
    PayloadMeta *h_meta = nullptr, *d_meta = nullptr;   // scan_set_pairs(): the chunk's payload meta,
    size_t meta_cap = 0;                                //   payloads [meta_base, meta_base + meta_n)
    uint32_t meta_base = 0, meta_n = 0;
    void *d_scan_tmp = nullptr;
    size_t scan_tmp_bytes = 0;
    Match *d_matches = nullptr;             // also the Set keys (8 <= 12 bytes per record)
    unsigned long long *d_hash = nullptr;   // Set: chunk-wide dedupe table; after the kernel, the
    size_t hash_slots = 0;                  //      sort's second key buffer (>= 2 x capacity keys)
    void *d_sort_tmp = nullptr;             // Set: CUB radix-sort scratch for up to capacity keys
    size_t sort_tmp_bytes = 0;
    Match *h_out = nullptr;                 // pinned results (Match or keys)
    uint32_t *d_count = nullptr, *h_count = nullptr; // [0] records, [1] Set table failures,
                                                     // [2] keys kept by the scope filter,
                                                     // [3] (device) tiles of a whole-payload run
    unsigned long long *d_counters = nullptr;
    size_t capacity = 0;
    Chunk chunk;
    const uint8_t *src = nullptr;           // where the chunk's bytes are copied from (pinned)
    bool busy = false;
};

// Payloads of a whole-payload run (ChunkPlanner with whole_runs).
uint32_t run_payloads(const Chunk &c) { return c.end_payload - c.first_payload; }

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
    void stage(Slot &s, const BatchView &batch, bool pinned, const PayloadMeta *meta);
    void alloc_outputs(Slot &s, size_t capacity);
    void free_outputs(Slot &s);
    void submit(Slot &s);
    void run_kernel(Slot &s, EmitKind kind);
    template <typename Done>
    bool run_chunks(const BatchView &batch, EmitKind kind, Done done, const PayloadMeta *meta = nullptr);
    uint32_t collect(Slot &s, EmitKind kind);
    unsigned long long *sorted_keys(Slot &s, unsigned long long *keys, unsigned long long *alt, uint32_t n);
    void finish(Slot &s, OutputMode mode, std::vector<Match> &out);
    void finish_pairs(Slot &s, bool filter, size_t &total);
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
    Slot slots_[tuning::kStreams];
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
    for (Slot &s : slots_) {
        WM_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
        s.h_text = host_alloc<uint8_t>(chunk_bytes_ + 64, "h_text");
        s.d_text = dev_alloc<uint8_t>(chunk_bytes_ + 64, "d_text");
        s.h_segs = host_alloc<Segment>(chunk_segs_, "h_segs");
        s.d_segs = dev_alloc<Segment>(chunk_segs_, "d_segs");
        s.d_offsets = dev_alloc<uint32_t>(chunk_segs_ + 1, "d_run_offsets");
        s.d_prefix = dev_alloc<uint32_t>(chunk_segs_ + 1, "d_run_tile_prefix");
        s.scan_tmp_bytes = ac_build_segments_temp_bytes(static_cast<uint32_t>(chunk_segs_));
        s.d_scan_tmp = dev_alloc<uint8_t>(s.scan_tmp_bytes, "d_run_scan_tmp");
        s.d_count = dev_alloc<uint32_t>(4, "d_count");
        s.h_count = host_alloc<uint32_t>(3, "h_count");
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
        cudaFree(s.d_offsets);
        cudaFree(s.d_prefix);
        cudaFree(s.d_scan_tmp);
        cudaFreeHost(s.h_meta);
        cudaFree(s.d_meta);
        cudaFree(s.d_count);
        cudaFreeHost(s.h_count);
        cudaFree(s.d_counters);
        if (s.stream) cudaStreamDestroy(s.stream);
    }
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

// Grows the pinned pair buffer to n words at least, keeping its contents. Only
// between chunks: finish_pairs() waits for each copy into it.
void CudaMatcher::reserve_pairs(size_t n) {
    if (n <= pairs_cap_) return;
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
void CudaMatcher::stage(Slot &s, const BatchView &batch, bool pinned, const PayloadMeta *meta) {
    s.meta_n = 0;
    if (meta) { // the chunk's payloads only, copied on its stream (no upload of the batch's meta up front)
        const size_t n = size_t{s.chunk.last_payload} - s.chunk.first_payload + 1;
        if (n > s.meta_cap) { // the slot is idle here: done() waited for it
            cudaFreeHost(s.h_meta);
            cudaFree(s.d_meta);
            s.h_meta = nullptr, s.d_meta = nullptr, s.meta_cap = 0;
            const size_t cap = std::max(n, chunk_segs_);
            s.h_meta = host_alloc<PayloadMeta>(cap, "h_payload_meta");
            s.d_meta = dev_alloc<PayloadMeta>(cap, "d_payload_meta");
            s.meta_cap = cap;
        }
        std::memcpy(s.h_meta, meta + s.chunk.first_payload, n * sizeof(PayloadMeta));
        s.meta_base = s.chunk.first_payload;
        s.meta_n = static_cast<uint32_t>(n);
    }
    if (pinned) {
        s.src = batch.data + s.chunk.src_begin;
    } else {
        std::memcpy(s.h_text, batch.data + s.chunk.src_begin, s.chunk.bytes);
        s.src = s.h_text;
    }
    if (s.chunk.whole_run) // 4 bytes per payload; the segments are built on the device
        std::memcpy(s.h_segs, batch.offsets + s.chunk.first_payload, run_payloads(s.chunk) * 4 + 4);
    else
        std::memcpy(s.h_segs, s.chunk.segs.data(), s.chunk.segs.size() * sizeof(Segment));
}

// Copies the slot's chunk (pinned) to the device.
void CudaMatcher::submit(Slot &s) {
    WM_CUDA_CHECK(cudaMemcpyAsync(s.d_text, s.src, s.chunk.bytes, cudaMemcpyHostToDevice, s.stream));
    if (s.meta_n)
        WM_CUDA_CHECK(cudaMemcpyAsync(s.d_meta, s.h_meta, size_t{s.meta_n} * sizeof(PayloadMeta),
                                      cudaMemcpyHostToDevice, s.stream));
    if (s.chunk.whole_run) {
        const uint32_t n = run_payloads(s.chunk);
        WM_CUDA_CHECK(cudaMemcpyAsync(s.d_offsets, s.h_segs, size_t{n} * 4 + 4, cudaMemcpyHostToDevice, s.stream));
        ac_build_segments(s.d_offsets, n, s.chunk.first_payload, tuning::kTileBytes, s.d_prefix, s.d_segs,
                          s.d_count + 3, s.d_scan_tmp, s.scan_tmp_bytes, s.stream);
        return;
    }
    WM_CUDA_CHECK(cudaMemcpyAsync(s.d_segs, s.h_segs, s.chunk.segs.size() * sizeof(Segment),
                                  cudaMemcpyHostToDevice, s.stream));
}

void CudaMatcher::run_kernel(Slot &s, EmitKind kind) {
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
    if (kind != EmitKind::Count)
        WM_CUDA_CHECK(cudaMemcpyAsync(s.h_count, s.d_count, 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                      s.stream));
}

// Waits for the slot's kernel; on overflow grows the outputs and rescans the
// chunk still on the device. Returns the record count.
uint32_t CudaMatcher::collect(Slot &s, EmitKind kind) {
    WM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    uint32_t n = s.h_count[0];
    while (n > s.capacity || s.h_count[1] != 0) {
        const size_t want = std::max<size_t>(n, s.capacity + 1);
        free_outputs(s);
        alloc_outputs(s, want + want / 4 + 1024);
        run_kernel(s, kind);
        WM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
        n = s.h_count[0];
    }
    return n;
}

// Enqueues the sort of a chunk's n distinct keys (alt: n keys of scratch);
// returns the buffer holding them sorted.
unsigned long long *CudaMatcher::sorted_keys(Slot &s, unsigned long long *keys, unsigned long long *alt, uint32_t n) {
    const uint32_t max_payload = s.chunk.last_payload; // the planner emits payloads in order
    return ac_sort_keys(keys, alt, n, set_sort_end_bit(max_payload), s.d_sort_tmp, s.sort_tmp_bytes, s.stream);
}

void CudaMatcher::finish(Slot &s, OutputMode mode, std::vector<Match> &out) {
    const uint32_t n = collect(s, mode == OutputMode::Set ? EmitKind::SetKeys : EmitKind::Positions);
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

// scan_set_pairs(): filter by scope (fewer keys to sort), sort, map to pairs
// and copy them to h_pairs_[total, ...), all on the slot's stream.
void CudaMatcher::finish_pairs(Slot &s, bool filter, size_t &total) {
    uint32_t n = collect(s, EmitKind::SetKeys);
    auto *keys = reinterpret_cast<unsigned long long *>(s.d_matches);
    unsigned long long *alt = s.d_hash; // the dedupe table is spent: scratch of >= 2 x capacity keys
    if (n > 0 && filter) {
        ac_filter_keys(keys, n, alt, s.d_count + 2, d_scopes_.view(scopes_), s.d_meta, s.meta_base, s.stream);
        WM_CUDA_CHECK(cudaMemcpyAsync(s.h_count + 2, s.d_count + 2, sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                      s.stream));
        WM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
        n = s.h_count[2];
        std::swap(keys, alt); // d_matches (capacity x 12 bytes) is the sort's scratch now
    }
    if (n > 0) {
        unsigned long long *sorted = sorted_keys(s, keys, alt, n);
        ac_keys_to_pairs(sorted, n, d_scopes_.id, s.stream);
        reserve_pairs(total + n);
        WM_CUDA_CHECK(cudaMemcpyAsync(h_pairs_ + total, sorted, size_t{n} * sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, s.stream));
        WM_CUDA_CHECK(cudaStreamSynchronize(s.stream));
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

// Runs the batch through the slots round-robin, kStreams chunks in flight;
// done(slot) consumes each chunk, oldest first (so results come in payload
// order). Returns whether some payload spanned chunks.
template <typename Done>
bool CudaMatcher::run_chunks(const BatchView &batch, EmitKind kind, Done done, const PayloadMeta *meta) {
    ChunkPlanner plan(batch, chunk_bytes_, chunk_segs_, tuning::kTileBytes, d_view_.max_len, true);
    const bool pinned = is_pinned(batch.data, batch.offsets[batch.count]);
    bool split = false;
    try {
        uint32_t k = 0;
        for (;; ++k) {
            Slot &s = slots_[k % tuning::kStreams];
            if (s.busy) done(s);
            if (!plan.next(s.chunk)) break;
            split |= s.chunk.splits_payload;
            stage(s, batch, pinned, meta);
            submit(s);
            run_kernel(s, kind);
            s.busy = true;
        }
        // Slot k % kStreams is free, (k + 1) holds the oldest.
        for (uint32_t j = 1; j <= tuning::kStreams; ++j) {
            Slot &s = slots_[(k + j) % tuning::kStreams];
            if (s.busy) done(s);
        }
    } catch (...) {
        for (Slot &s : slots_) {
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
    const bool split = run_chunks(batch, kind, [&](Slot &s) { finish(s, mode, out); });
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
    const bool split = run_chunks(batch, EmitKind::SetKeys, [&](Slot &s) { finish_pairs(s, filter, total); },
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
    for (Slot &s : slots_)
        WM_CUDA_CHECK(cudaMemsetAsync(s.d_counters, 0, size_t{P} * 8, s.stream));
    ChunkPlanner plan(batch, chunk_bytes_, chunk_segs_, tuning::kTileBytes, d_view_.max_len, true);
    const bool pinned = is_pinned(batch.data, batch.offsets[batch.count]);
    for (uint32_t k = 0;; ++k) {
        Slot &s = slots_[k % tuning::kStreams];
        WM_CUDA_CHECK(cudaStreamSynchronize(s.stream)); // its pinned input is free again
        if (!plan.next(s.chunk)) break;
        stage(s, batch, pinned, nullptr);
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
