// gpu/cuda_matcher.h - the CUDA GpuMatcher's class, shared by its two
// sources (internal: compiled only with the CUDA toolkit):
// gpu_matcher_cuda.cpp (device set-up, chunk pipeline, scan(), count()) and
// gpu_matcher_pairs.cpp (scopes and the set-pair calls).
#pragma once

#include "gpu/ac_compile.h"
#include "gpu/ac_kernels.h"
#include "gpu/ac_scope.h"
#include "gpu/ac_tuning.h"
#include "gpu/chunk_slot.h"
#include "gpu/chunk_trace.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_matcher.h"
#include "gpu/output_sizer.h"
#include "gpu/pair_batch.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace wm::gpu::detail {

using testing::ChunkTrace;

// True when [p, p + bytes) starts and ends in page-locked host memory, so the
// DMA engine can read it directly at full PCIe speed.
bool is_pinned(const uint8_t *p, size_t bytes);

// Chunks scanned again because their outputs outgrew the slot (testing::output_rescans).
extern std::atomic<size_t> g_output_rescans;

// What a chunk's output records are, each with its own density (OutputSizer).
enum OutputUse : size_t { kPositionsOutput, kSetKeysOutput, kSetPairsOutput, kOutputUses };

// Device copy of FlatScopes (owned arrays; the counts are the host copy's).
struct DeviceScopes {
    uint32_t *entry_begin = nullptr, *entry = nullptr;
    uint8_t *proto = nullptr;
    uint32_t *port_begin = nullptr;
    PortRange *ports = nullptr;
    uint32_t *id = nullptr;
    ScopeView view() const { return {entry_begin, entry, proto, port_begin, ports, id}; }
    void free() {
        cudaFree(entry_begin);
        cudaFree(entry);
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
    void scan_positions(const BatchView &batch, const std::function<void(const PositionsChunk &)> &sink,
                        PositionsKept kept) override;
    void count(const BatchView &batch, std::vector<uint64_t> &per_pattern) override;
    void set_scopes(const std::vector<PatternScope> &scopes) override;
    void set_scopes(FlatScopes f) override;
    size_t scan_set_pairs(const BatchView &batch, const PayloadMeta *meta, const SetPair **pairs) override;
    void submit_set_pairs(const BatchView &batch, const PayloadMeta *meta) override;
    size_t collect_set_pairs(const SetPair **pairs) override;
    unsigned pending_set_batches() const override { return static_cast<unsigned>(submitted_ - collected_); }
    std::string describe() const override;
    uint8_t *pinned_buffer(size_t bytes, unsigned slot) override;

  private:
    void build_on_device();
    // Frees the device and pinned memory (the destructor, and a constructor that fails).
    void release() noexcept;
    void run_kernel(ChunkSlot &s, EmitKind kind);
    void launch(ChunkSlot &s, EmitKind kind);
    void launch_pairs(ChunkSlot &s, bool filter);
    template <typename Launch, typename Done>
    bool run_chunks(const BatchView &batch, Launch launch, Done done, const PayloadMeta *meta, bool drain);
    template <typename Launch> uint32_t collect(ChunkSlot &s, OutputUse use, Launch launch, bool expanded = false);
    // Grows the slot's outputs, before its chunk's launch, to what the densest
    // chunk of `use` so far predicts for it (OutputSizer::grow_to).
    void fit_outputs(ChunkSlot &s, OutputUse use) {
        s.fit_outputs(sizer_.grow_to(use, s.chunk.bytes, s.capacity, chunk_bytes_));
    }
    unsigned long long *sorted_keys(ChunkSlot &s, unsigned long long *keys, unsigned long long *alt, uint32_t n);
    void finish_set(ChunkSlot &s, std::vector<Match> &out);
    void finish_positions(ChunkSlot &s, const BatchView &batch, const std::function<void(const PositionsChunk &)> &sink,
                          PositionsKept kept);
    uint32_t keep_first_positions(ChunkSlot &s, const PositionsKeyCodec &codec, uint32_t n, const unsigned long long **src);
    void finish_pairs(ChunkSlot &s);
    void finish_pending_chunks(const PairBatch *only = nullptr);
    void sync_slots();
    void drop_after_failure();
    void use_device();
    ChunkSlot &slot_at(uint32_t j) { return *slots_[(next_seq_ + j) % tuning::kStreams]; } // j = 0: oldest chunk
    uint32_t traced(const ChunkSlot &s) const { return s.seq - trace_base_; }
    void upload_scopes(FlatScopes f);
    void join_split_pairs(PairBatch &b) const;
    // Whether a chunk's keys go through the expansion pass: with meta to
    // filter by, or when some pattern has other than exactly its own entry.
    bool expands(bool filter) const { return filter || !scopes_.one_per_pattern; }

    GpuOptions opts_;
    AcBlob blob_;
    uint8_t *d_blob_ = nullptr;
    AcView d_view_{};
    DeviceInfo dev_;
    std::string dev_name_;
    CountCounters count_counters_ = kCountGlobal;
    size_t chunk_target_ = 0; // a chunk's bytes (ChunkPlanner's max_bytes) ...
    size_t chunk_bytes_ = 0;  // ... and its capacity (a batch's last chunk may fill it)
    size_t chunk_segs_ = 0;
    std::unique_ptr<ChunkSlot> slots_[tuning::kStreams];
    ChunkTracer trace_; // off unless testing::set_chunk_trace(true)
    uint8_t *h_user_[kPinnedSlots] = {}; // pinned_buffer()
    size_t h_user_bytes_[kPinnedSlots] = {};
    // scan_set_pairs(): scopes (host copy and device arrays), payload meta, output.
    FlatScopes scopes_;
    std::vector<std::pair<uint32_t, uint32_t>> entry_by_id_; // (scopes_.id[e], e), sorted: split pairs map back
    DeviceScopes d_scopes_;
    PairBatch pair_batches_[kPendingBatches]; // submitted batch i fills pair_batches_[i % kPendingBatches]
    uint64_t submitted_ = 0, collected_ = 0;
    uint32_t next_seq_ = 0;   // chunks staged so far; the next goes to slot next_seq_ % kStreams
    uint32_t trace_base_ = 0; // seq of the traced timeline's first chunk
    OutputSizer<kOutputUses> sizer_;
};

template <typename T> inline T *upload(const std::vector<T> &v, const char *what) {
    T *d = dev_alloc<T>(std::max<size_t>(v.size(), 1), what);
    if (v.empty()) return d;
    if (const cudaError_t e = cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice); e != cudaSuccess) {
        cudaFree(d);
        throw_cuda(e, what, __FILE__, __LINE__);
    }
    return d;
}

// Waits for what launch(s) enqueued; on overflow (of the kernel's records,
// or with `expanded` of the keys the scope expansion wrote) grows the outputs
// and launches again on the chunk still on the device. The records the chunk
// needed size later chunks of `use` (fit_outputs). Returns the kernel's
// record count.
template <typename Launch>
inline uint32_t CudaMatcher::collect(ChunkSlot &s, OutputUse use, Launch launch, bool expanded) {
    s.wait();
    auto needed = [&] { return expanded ? std::max(s.h_count[0], s.h_count[2]) : s.h_count[0]; };
    for (bool again = false; needed() > s.capacity || s.h_count[1] != 0; again = true) {
        if (!again) ++g_output_rescans; // a Set chunk's first failures undercount its keys: it may take rounds
        const size_t cap = grown_output_capacity(needed(), s.capacity);
        s.free_outputs();
        s.alloc_outputs(cap);
        launch(s);
        s.wait();
    }
    sizer_.observe(use, s.chunk.bytes, needed());
    return s.h_count[0];
}

// Runs the batch through the slots round-robin, kStreams chunks in flight:
// launch(slot) enqueues a staged chunk's device work, done(slot) consumes a
// chunk, oldest first (so results come in payload order). With drain, every
// chunk is consumed before returning; without, the batch's last chunks stay in
// flight (submit_set_pairs()). Returns whether some payload spanned chunks.
template <typename Launch, typename Done>
inline bool CudaMatcher::run_chunks(const BatchView &batch, Launch launch, Done done, const PayloadMeta *meta, bool drain) {
    ChunkPlanner plan(batch, chunk_target_, chunk_segs_, tuning::kTileBytes, d_view_.max_len, true, chunk_bytes_);
    const bool pinned = is_pinned(batch.data, batch_data_bytes(batch));
    bool split = false;
    const bool idle = std::none_of(std::begin(slots_), std::end(slots_), [](const auto &s) { return s->busy; });
    if (idle) { // a timeline starts from an idle pipeline
        // A call that drains its chunks starts at the first slot: calls of
        // one chunk each (a replay's windows in positions mode) reuse one
        // warm slot instead of warming every slot's pinned staging and
        // outputs in turn (run 179). Set-pair batches keep their rotation:
        // the last batch's copies back may still run on a slot's stream.
        if (drain) next_seq_ += (tuning::kStreams - next_seq_ % tuning::kStreams) % tuning::kStreams;
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

} // namespace wm::gpu::detail
