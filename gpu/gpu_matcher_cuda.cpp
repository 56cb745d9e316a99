// gpu/gpu_matcher_cuda.cpp - public entry of the GPU matcher: owns the device
// blob and tuning::kStreams chunk slots (chunk_slot.h: a stream and its pinned
// and device buffers, sized once in create()); splits batches into chunks (ac_plan.h) and
// keeps them in flight round-robin so one chunk's H2D copy, kernel and D2H copy
// overlap the others'. Input already in page-locked memory (pinned_buffer(), or
// any cudaHostAlloc/cudaHostRegister memory) is copied to the device straight
// from the caller's bytes: no host memcpy into the staging buffers. Set mode
// sorts each chunk's distinct keys on the device before the copy back
// (ac_sort_keys.cu), so the output comes back ordered (ac_set_order.h), and
// Positions mode its matches (ac_positions_order.h). The
// set-pair calls are in gpu_matcher_pairs.cpp, the class in cuda_matcher.h.
#include "gpu/ac_positions_order.h"
#include "gpu/ac_set_order.h"
#include "gpu/cuda_matcher.h"
#include "gpu/gpu_testing.h"
#include "gpu/positions_chunk.h"
#include "gpu/pinned_host.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>
#include <memory>
#include <sstream>

namespace wm::gpu {
namespace {

std::atomic<size_t> g_initial_output_capacity{0};
std::atomic<size_t> g_max_chunk_bytes{0};
std::atomic<size_t> g_dense_budget_bytes{0}; // testing::set_dense_budget_bytes
std::atomic<bool> g_case_columns{false};      // testing::set_case_columns
std::atomic<size_t> g_fail_positions_chunk{0}; // testing::fail_positions_chunk

} // namespace

namespace detail {

std::atomic<size_t> g_output_rescans{0};

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
    co.dense_budget_bytes = g_dense_budget_bytes.load() ? g_dense_budget_bytes.load()
                                                        : tuning::dense_budget_bytes(prop.totalGlobalMem);
    co.case_columns = g_case_columns.load();
    blob_ = compile_ac(patterns, co);
    try {
        build_on_device();
    } catch (...) { // no destructor runs for a constructor that throws: free what it took
        release();
        throw;
    }
}

// The device half of the constructor: the blob, the kernels' setup, the
// scopes and the chunk slots (device and pinned memory).
void CudaMatcher::build_on_device() {
    const GpuOptions &opts = opts_;
    d_blob_ = dev_alloc<uint8_t>(blob_.bytes.size(), "d_blob");
    WM_CUDA_CHECK(cudaMemcpy(d_blob_, blob_.bytes.data(), blob_.bytes.size(), cudaMemcpyHostToDevice));
    d_view_ = make_ac_view(blob_.bytes.data(), d_blob_);
    count_counters_ = ac_prepare_kernels(dev_, d_view_);

    const size_t max_chunk = g_max_chunk_bytes.load() ? g_max_chunk_bytes.load() : tuning::kMaxChunkBytes;
    // The kernels count a chunk's records in 32 bits: a chunk must not end
    // more than that can hold (slabs' holes at most double the records; a
    // quarter of 2^32 leaves room). ET Open: 9 a byte, no bound below 119 MB.
    const size_t record_bound = (size_t{UINT32_MAX} / 4) / max_records_per_byte(blob_.bytes.data());
    chunk_target_ = std::max<size_t>(std::min<size_t>({opts.max_batch_bytes, max_chunk, UINT32_MAX / 2, record_bound}),
                                     size_t{blob_.header().max_len} + tuning::kTileBytes);
    chunk_bytes_ = chunk_target_ + chunk_target_ / tuning::kChunkTailSlackDivisor;
    chunk_segs_ = std::max<size_t>(1, opts.max_batch_payloads);
    upload_scopes(identity_scopes(d_view_.num_patterns));
    size_t cap = g_initial_output_capacity.load();
    if (cap == 0) cap = std::max(tuning::kMinOutputRecords, chunk_bytes_ / tuning::kBytesPerOutput);
    for (auto &slot : slots_)
        slot = std::make_unique<ChunkSlot>(chunk_bytes_, chunk_segs_, d_view_.num_patterns, cap, opts.wait);
    if (opts.wait == HostWait::Block)
        for (auto &b : pair_batches_) b.use_blocking_waits();
}

CudaMatcher::~CudaMatcher() { release(); }

void CudaMatcher::release() noexcept {
    for (auto &slot : slots_) slot.reset(); // waits for its stream before the blob goes
    cudaFree(d_blob_);
    d_blob_ = nullptr;
    for (unsigned k = 0; k < kPinnedSlots; ++k) {
        pinned_host_free(h_user_[k], h_user_bytes_[k]);
        h_user_[k] = nullptr;
        h_user_bytes_[k] = 0;
    }
    d_scopes_.free();
}

uint8_t *CudaMatcher::pinned_buffer(size_t bytes, unsigned slot) {
    if (slot >= kPinnedSlots) throw GpuError("pinned_buffer: slot " + std::to_string(slot) + " out of range");
    if (bytes > h_user_bytes_[slot]) {
        if (pending_set_batches())
            throw std::logic_error("pinned_buffer: cannot grow a buffer while " + std::to_string(pending_set_batches()) +
                                   " submitted batches are not collected (they may lie in it)");
        WM_CUDA_CHECK(cudaSetDevice(opts_.device));
        pinned_host_free(h_user_[slot], h_user_bytes_[slot]);
        h_user_[slot] = nullptr;
        h_user_bytes_[slot] = 0;
        h_user_[slot] = pinned_host_alloc(bytes, "pinned_buffer");
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
    p.count_counters = count_counters_;
    p.d_next_unit = s.d_count + 4;
    p.d_unit_index = s.chunk.whole_run ? s.d_unit_index : nullptr; // built with the run's segments
    p.d_one_byte = s.d_one_byte; // chunk_segs words: a chunk has at most that many payloads (ac_plan.h)
    p.one_byte_first = s.chunk.first_payload;
    p.one_byte_words = one_byte_words(s.chunk);
    WM_CUDA_CHECK(cudaMemsetAsync(p.d_next_unit, 0, sizeof(uint32_t), s.stream));
    if (kind != EmitKind::Count)
        WM_CUDA_CHECK(cudaMemsetAsync(s.d_count, 0, scan_count_words(kind) * sizeof(uint32_t), s.stream));
    if (kind == EmitKind::SetKeys) // all kEmptyKey (~0)
        WM_CUDA_CHECK(cudaMemsetAsync(s.d_hash, 0xff, s.hash_slots * sizeof(unsigned long long), s.stream));
    ac_dispatch_scan(kind, p, dev_, s.stream);
}

// scan(): the kernel, then its counts to the host.
void CudaMatcher::launch(ChunkSlot &s, EmitKind kind) {
    run_kernel(s, kind);
    trace_.gpu(traced(s), ChunkTrace::kScanned, s.stream);
    WM_CUDA_CHECK(cudaMemcpyAsync(s.h_count, s.d_count, scan_count_words(kind) * sizeof(uint32_t),
                                  cudaMemcpyDeviceToHost, s.stream));
}

void CudaMatcher::sync_slots() {
    for (auto &slot : slots_) slot->wait();
}

// Enqueues the sort of a chunk's n distinct keys (alt: n keys of scratch);
// returns the buffer holding them sorted.
unsigned long long *CudaMatcher::sorted_keys(ChunkSlot &s, unsigned long long *keys, unsigned long long *alt, uint32_t n) {
    const uint32_t max_payload = s.chunk.last_payload; // the planner emits payloads in order
    return ac_sort_keys(keys, alt, n, set_sort_end_bit(max_payload), s.d_sort_tmp, s.sort_tmp_bytes, s.stream);
}

void CudaMatcher::finish_set(ChunkSlot &s, std::vector<Match> &out) {
    const uint32_t n = collect(s, kSetKeysOutput, [&](ChunkSlot &c) { launch(c, EmitKind::SetKeys); }); // distinct keys
    if (n > 0) { // sort them (ac_set_hash.cuh), the table is spent
        const unsigned long long *src = sorted_keys(s, reinterpret_cast<unsigned long long *>(s.d_matches), s.d_hash, n);
        const size_t bytes = size_t{n} * sizeof(unsigned long long);
        WM_CUDA_CHECK(cudaMemcpyAsync(s.host_out(bytes), src, bytes, cudaMemcpyDeviceToHost, s.stream));
        s.wait();
        // distinct, sorted by (payload, pattern)
        append_set_keys(reinterpret_cast<const unsigned long long *>(s.h_out.get()), n, out);
    }
    s.busy = false;
}

// FirstPerPattern: the chunk's n records (holes too) packed by (payload,
// pattern, end) and sorted, each run's first key selected and re-packed with
// `codec` (ac_positions_order.h), then those sorted: *src is where they lie,
// sorted; returns their count. One more wait than Every, for that count.
uint32_t CudaMatcher::keep_first_positions(ChunkSlot &s, const PositionsKeyCodec &codec, uint32_t n,
                                           const unsigned long long **src) {
    const FirstsKeyCodec firsts(codec);
    // d_hash has room for 2 x capacity keys: the keys and the sort's other
    // buffer; d_matches (12 bytes per record) for the marked keys once packed.
    ac_pack_first_positions(s.d_matches, n, firsts, s.d_hash, s.stream);
    unsigned long long *sorted = ac_sort_keys(s.d_hash, s.d_hash + s.capacity, n,
                                              static_cast<int>(firsts.sort_bits()), s.d_sort_tmp, s.sort_tmp_bytes,
                                              s.stream);
    unsigned long long *other = sorted == s.d_hash ? s.d_hash + s.capacity : s.d_hash;
    ac_select_first_positions(sorted, n, firsts, reinterpret_cast<unsigned long long *>(s.d_matches), other,
                              s.d_count + 1, s.d_sort_tmp, s.sort_tmp_bytes, s.stream);
    WM_CUDA_CHECK(cudaMemcpyAsync(s.h_count + 1, s.d_count + 1, sizeof(uint32_t), cudaMemcpyDeviceToHost, s.stream));
    s.wait();
    const uint32_t m = s.h_count[1];
    *src = ac_sort_keys(other, sorted, m, static_cast<int>(codec.sort_bits()), s.d_sort_tmp, s.sort_tmp_bytes,
                        s.stream);
    return m;
}

void CudaMatcher::finish_positions(ChunkSlot &s, const BatchView &batch,
                                   const std::function<void(const PositionsChunk &)> &sink, PositionsKept kept) {
    trace_.host(traced(s), ChunkTrace::kWaitBegin);
    const uint32_t n = collect(s, kPositionsOutput, [&](ChunkSlot &c) { launch(c, EmitKind::Positions); }); // output slots the kernel took
    trace_.host(traced(s), ChunkTrace::kWaitEnd);
    const uint32_t found = n - s.h_count[2]; // of them, unused: holes (kHolePattern)
    PositionsChunk c;
    if (found > 0) {
        const void *src = s.d_matches;
        size_t rec = sizeof(Match);
        c.count = n;
        if (n > 1 && positions_key_codec(d_view_.num_patterns, s.chunk.first_payload, s.chunk.last_payload,
                                         chunk_max_end(s.chunk, batch.offsets), &c.codec)) {
            // d_hash has room for 2 x capacity keys: the keys, then the sort's other buffer;
            // the holes' keys sort last and are not copied back
            rec = sizeof(unsigned long long);
            c.count = found;
            if (kept == PositionsKept::FirstPerPattern) {
                const unsigned long long *firsts = nullptr;
                c.count = keep_first_positions(s, c.codec, n, &firsts);
                src = firsts;
            } else {
                ac_pack_positions(s.d_matches, n, c.codec, s.d_hash, s.stream);
                src = ac_sort_keys(s.d_hash, s.d_hash + s.capacity, n, static_cast<int>(c.codec.sort_bits()),
                                   s.d_sort_tmp, s.sort_tmp_bytes, s.stream);
            }
        }
        trace_.gpu(traced(s), ChunkTrace::kPassed, s.stream);
        WM_CUDA_CHECK(cudaMemcpyAsync(s.host_out(size_t{c.count} * rec), src, size_t{c.count} * rec,
                                      cudaMemcpyDeviceToHost, s.stream));
        trace_.gpu(traced(s), ChunkTrace::kCopiedBack, s.stream);
        s.wait();
        if (g_fail_positions_chunk.load() && --g_fail_positions_chunk == 0)
            throw GpuError("injected failure of a Positions chunk (testing::fail_positions_chunk)");
        if (rec == sizeof(Match)) c.records = reinterpret_cast<const Match *>(s.h_out.get());
        else c.keys = reinterpret_cast<const unsigned long long *>(s.h_out.get());
        sink(c);
    }
    s.busy = false;
}

// The matcher's device for this thread's calls. A failure drops the pending
// batches, as any failure after them does: the caller (Scanner) drops its own
// then, and the two queues must stay in step.
void CudaMatcher::use_device() {
    try {
        WM_CUDA_CHECK(cudaSetDevice(opts_.device));
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

void CudaMatcher::scan(const BatchView &batch, OutputMode mode, std::vector<Match> &out) {
    out.clear();
    if (mode == OutputMode::Positions) {
        scan_positions(batch, [&](const PositionsChunk &c) { c.append_to(out); }, PositionsKept::Every);
        return;
    }
    if (batch.count == 0 || d_view_.num_groups == 0) return;
    use_device();
    finish_pending_chunks(); // the slots are this call's now
    const bool split = run_chunks(
        batch,
        [&](ChunkSlot &s) {
            fit_outputs(s, kSetKeysOutput);
            launch(s, EmitKind::SetKeys);
        },
        [&](ChunkSlot &s) { finish_set(s, out); }, nullptr, true);
    // Chunks come back sorted, in payload order; a payload spanning chunks
    // may repeat a pair and break the order at the boundary.
    join_set_chunks(out, split);
}

void CudaMatcher::scan_positions(const BatchView &batch, const std::function<void(const PositionsChunk &)> &sink,
                                 PositionsKept kept) {
    if (batch.count == 0 || d_view_.num_groups == 0) return;
    use_device();
    finish_pending_chunks(); // the slots are this call's now
    run_chunks(
        batch,
        [&](ChunkSlot &s) {
            fit_outputs(s, kPositionsOutput);
            launch(s, EmitKind::Positions);
        },
        [&](ChunkSlot &s) { finish_positions(s, batch, sink, kept); }, nullptr, true);
}

void CudaMatcher::count(const BatchView &batch, std::vector<uint64_t> &per_pattern) {
    const uint32_t P = d_view_.num_patterns;
    per_pattern.assign(P, 0);
    if (batch.count == 0 || d_view_.num_groups == 0) return;
    use_device();
    finish_pending_chunks(); // the slots are this call's now
    for (auto &slot : slots_)
        WM_CUDA_CHECK(cudaMemsetAsync(slot->d_counters, 0, size_t{P} * 8, slot->stream));
    ChunkPlanner plan(batch, chunk_target_, chunk_segs_, tuning::kTileBytes, d_view_.max_len, true, chunk_bytes_);
    const bool pinned = is_pinned(batch.data, batch_data_bytes(batch));
    for (uint32_t k = 0;; ++k) {
        ChunkSlot &s = *slots_[k % tuning::kStreams];
        s.wait(); // its pinned input is free again
        if (!plan.next(s.chunk)) break;
        s.stage(batch, pinned, nullptr);
        s.submit();
        run_kernel(s, EmitKind::Count);
    }
    std::vector<unsigned long long> tmp(P);
    for (auto &slot : slots_) {
        ChunkSlot &s = *slot;
        WM_CUDA_CHECK(cudaMemcpyAsync(tmp.data(), s.d_counters, size_t{P} * 8, cudaMemcpyDeviceToHost, s.stream));
        s.wait();
        for (uint32_t i = 0; i < P; ++i) per_pattern[i] += tmp[i];
    }
}

std::string CudaMatcher::describe() const {
    std::ostringstream o;
    o << blob_.describe() << "; device " << opts_.device << " (" << dev_name_ << ", " << dev_.sm_count
      << " SMs); tile " << tuning::kTileBytes << " B x " << tuning::kBlockThreads << " threads; "
      << tuning::kStreams << " streams; Set dedupe in shared (" << tuning::kSetHashSlots
      << " slots) + global hash, keys radix-sorted on the device; chunk " << chunk_target_
      << " B (a batch's last up to " << chunk_bytes_ << " B); count counters in "
      << (count_counters_ == kCountDirect   ? "shared memory, per pattern"
          : count_counters_ == kCountHashed ? "a shared (pattern, count) table"
                                            : "global memory")
      << "; host waits " << (opts_.wait == HostWait::Block ? "block" : "spin");
    return o.str();
}

} // namespace detail

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
    return std::make_unique<detail::CudaMatcher>(patterns, opts);
}

void testing::set_initial_output_capacity(size_t records) { g_initial_output_capacity = records; }
void testing::set_max_chunk_bytes(size_t bytes) { g_max_chunk_bytes = bytes; }
void testing::set_dense_budget_bytes(size_t bytes) { g_dense_budget_bytes = bytes; }
void testing::set_case_columns(bool on) { g_case_columns = on; }
size_t testing::output_rescans() { return detail::g_output_rescans.load(); }
void testing::fail_output_allocation(size_t nth) { g_fail_output_allocation = nth; }
void testing::fail_pair_buffer_allocation(size_t nth) { g_fail_pair_buffer_allocation = nth; }
size_t testing::device_free_bytes() {
    size_t free_bytes = 0, total = 0;
    if (cudaSetDevice(0) != cudaSuccess || cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return 0;
    return free_bytes;
}
void testing::fail_positions_chunk(size_t nth) { g_fail_positions_chunk = nth; }
bool testing::is_page_locked(const void *p, size_t bytes) {
    return detail::is_pinned(static_cast<const uint8_t *>(p), bytes);
}

} // namespace wm::gpu
