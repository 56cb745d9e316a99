// gpu/chunk_slot.cpp - see chunk_slot.h.
#include "gpu/chunk_slot.h"

#include "gpu/ac_kernels.h"
#include "gpu/ac_tuning.h"
#include "gpu/cuda_check.h"

#include <algorithm>
#include <cstring>

namespace wm::gpu {

namespace {

// Grows `a` to at least `count`, by half again at least (contents not
// kept); call while the stream is idle.
template <typename T> void ensure_pinned(PinnedHostArray<T> &a, size_t count, const char *what) {
    if (a.size() >= count) return;
    const size_t want = std::max(count, a.size() + a.size() / 2);
    a.reset();
    a = PinnedHostArray<T>(want, what);
}

} // namespace

ChunkSlot::ChunkSlot(size_t chunk_bytes, size_t segs, uint32_t num_patterns, size_t output_capacity,
                     HostWait wait)
    : chunk_segs(segs), chunk_bytes_(chunk_bytes), initial_capacity_(output_capacity), waiter_(wait) {
    try {
        WM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        d_text = dev_alloc<uint8_t>(chunk_bytes + 64, "d_text");
        d_segs = dev_alloc<Segment>(segs, "d_segs");
        d_offsets = dev_alloc<uint32_t>(segs + 1, "d_run_offsets");
        d_prefix = dev_alloc<uint32_t>(segs + 1, "d_run_tile_prefix");
        d_one_byte = dev_alloc<uint32_t>(segs, "d_one_byte");
        scan_tmp_bytes = ac_build_segments_temp_bytes(static_cast<uint32_t>(segs));
        d_scan_tmp = dev_alloc<uint8_t>(scan_tmp_bytes, "d_run_scan_tmp");
        d_count = dev_alloc<uint32_t>(5, "d_count");
        // A chunk's tiles: at most one partial tile per segment beyond its bytes' whole tiles.
        d_unit_index = dev_alloc<uint32_t>(ac_unit_index_words(chunk_bytes / tuning::kTileBytes + segs + 1),
                                           "d_unit_index");
        h_count = host_alloc<uint32_t>(3, "h_count");
        d_counters = dev_alloc<unsigned long long>(std::max<uint32_t>(1, num_patterns), "d_counters");
        alloc_outputs(output_capacity);
    } catch (...) {
        release();
        throw;
    }
}

ChunkSlot::~ChunkSlot() { release(); }

void ChunkSlot::wait() { waiter_.wait(stream); }

void ChunkSlot::release() {
    if (stream) cudaStreamSynchronize(stream);
    free_outputs();
    h_out.reset();
    h_text.reset();
    cudaFree(d_text);
    h_segs.reset();
    cudaFree(d_segs);
    cudaFree(d_offsets);
    cudaFree(d_prefix);
    cudaFree(d_one_byte);
    cudaFree(d_scan_tmp);
    h_meta.reset();
    cudaFree(d_meta);
    cudaFree(d_raw);
    h_gather.reset();
    cudaFree(d_gather);
    cudaFree(d_count);
    cudaFree(d_unit_index);
    cudaFreeHost(h_count);
    cudaFree(d_counters);
    if (stream) cudaStreamDestroy(stream);
    stream = nullptr;
}

std::atomic<size_t> g_fail_output_allocation{0};
std::atomic<size_t> g_fail_pair_buffer_allocation{0};

void ChunkSlot::alloc_outputs(size_t cap) {
    cap = std::min<size_t>(cap, UINT32_MAX);
    try {
        if (g_fail_output_allocation.load() && --g_fail_output_allocation == 0)
            throw GpuError("cudaMalloc(d_matches, " + std::to_string(cap * sizeof(Match)) +
                           " bytes) failed: out of memory (injected: testing::fail_output_allocation)");
        d_matches = dev_alloc<Match>(cap, "d_matches");
        hash_slots = ac_set_hash_slots(cap);
        d_hash = dev_alloc<unsigned long long>(hash_slots, "d_set_hash");
        sort_tmp_bytes = ac_sort_keys_temp_bytes(static_cast<uint32_t>(cap));
        d_sort_tmp = dev_alloc<uint8_t>(sort_tmp_bytes, "d_sort_tmp");
    } catch (...) { // no outputs at all, not a capacity without buffers behind it
        free_outputs();
        throw;
    }
    capacity = cap;
}

void ChunkSlot::fit_outputs(size_t records) {
    if (capacity == 0) records = std::max(records, initial_capacity_); // a failed growth left none
    records = std::min<size_t>(records, UINT32_MAX); // alloc_outputs' limit: no regrowth at every launch
    if (records <= capacity) return;
    free_outputs();
    alloc_outputs(records);
}

uint8_t *ChunkSlot::host_out(size_t bytes) {
    ensure_pinned(h_out, bytes, "h_out");
    return h_out.get();
}

void ChunkSlot::free_outputs() {
    cudaFree(d_matches);
    cudaFree(d_hash);
    cudaFree(d_sort_tmp);
    d_matches = nullptr;
    d_hash = nullptr;
    d_sort_tmp = nullptr;
    sort_tmp_bytes = 0;
    hash_slots = 0;
    capacity = 0;
}

void ChunkSlot::stage(const BatchView &batch, bool pinned, const PayloadMeta *meta) {
    meta_n = 0;
    if (meta) { // the chunk's payloads only, copied on its stream (no upload of the batch's meta up front)
        const size_t n = size_t{chunk.last_payload} - chunk.first_payload + 1;
        if (n > meta_cap) { // room for half as many again: a few growths, not one per chunk
            h_meta.reset();
            cudaFree(d_meta);
            d_meta = nullptr, meta_cap = 0;
            const size_t cap = std::min(std::max(n + n / 2, size_t{4096}), std::max(n, chunk_segs));
            h_meta = PinnedHostArray<PayloadMeta>(cap, "h_payload_meta");
            d_meta = dev_alloc<PayloadMeta>(cap, "d_payload_meta");
            meta_cap = cap;
        }
        std::memcpy(h_meta.get(), meta + chunk.first_payload, n * sizeof(PayloadMeta));
        meta_base = chunk.first_payload;
        meta_n = static_cast<uint32_t>(n);
    }
    gathered = batch.sources != nullptr && chunk.bytes > 0;
    if (gathered) {
        stage_gather(batch, pinned);
    } else if (pinned) {
        src = batch.data + chunk.src_begin;
    } else {
        ensure_pinned(h_text, chunk_bytes_ + 64, "h_text");
        std::memcpy(h_text.get(), batch.data + chunk.src_begin, chunk.bytes);
        src = h_text.get();
    }
    if (chunk.whole_run) { // 4 bytes per payload; the segments are built on the device
        const size_t bytes = size_t{run_payloads(chunk)} * 4 + 4;
        ensure_pinned(h_segs, (bytes + sizeof(Segment) - 1) / sizeof(Segment), "h_segs");
        std::memcpy(h_segs.get(), batch.offsets + chunk.first_payload, bytes);
    } else {
        ensure_pinned(h_segs, chunk.segs.size(), "h_segs");
        std::memcpy(h_segs.get(), chunk.segs.data(), chunk.segs.size() * sizeof(Segment));
    }
}

// The chunk's span of file bytes, its payloads' offsets and sources; the
// device buffers grow (by half again at least) while the stream is idle.
void ChunkSlot::stage_gather(const BatchView &batch, bool pinned) {
    gather = gather_span(batch, chunk);
    const size_t raw = gather.end - gather.begin, words = size_t{gather.n} * 2 + 1;
    if (raw > raw_cap) {
        const size_t want = std::max(raw, raw_cap + raw_cap / 2);
        cudaFree(d_raw);
        d_raw = nullptr, raw_cap = 0;
        d_raw = dev_alloc<uint8_t>(want, "d_raw");
        raw_cap = want;
    }
    if (words > gather_cap) {
        const size_t want = std::max(words, std::max(size_t{4096}, gather_cap + gather_cap / 2));
        cudaFree(d_gather);
        d_gather = nullptr, gather_cap = 0;
        d_gather = dev_alloc<uint32_t>(want, "d_gather");
        gather_cap = want;
    }
    ensure_pinned(h_gather, words, "h_gather");
    std::memcpy(h_gather.get(), batch.offsets + gather.first, (size_t{gather.n} + 1) * 4);
    std::memcpy(h_gather.get() + gather.n + 1, batch.sources + gather.first, size_t{gather.n} * 4);
    if (pinned) {
        src = batch.data + gather.begin;
    } else {
        ensure_pinned(h_text, raw, "h_text");
        std::memcpy(h_text.get(), batch.data + gather.begin, raw);
        src = h_text.get();
    }
}

void ChunkSlot::submit() {
    if (gathered) {
        const size_t words = size_t{gather.n} * 2 + 1;
        WM_CUDA_CHECK(cudaMemcpyAsync(d_raw, src, gather.end - gather.begin, cudaMemcpyHostToDevice, stream));
        WM_CUDA_CHECK(cudaMemcpyAsync(d_gather, h_gather.get(), words * 4, cudaMemcpyHostToDevice, stream));
        ac_gather_payloads(d_raw, gather.begin, d_gather, d_gather + gather.n + 1, gather.n, chunk.src_begin,
                           chunk.bytes, d_text, stream);
    } else {
        WM_CUDA_CHECK(cudaMemcpyAsync(d_text, src, chunk.bytes, cudaMemcpyHostToDevice, stream));
    }
    if (meta_n)
        WM_CUDA_CHECK(cudaMemcpyAsync(d_meta, h_meta.get(), size_t{meta_n} * sizeof(PayloadMeta), cudaMemcpyHostToDevice,
                                      stream));
    if (chunk.whole_run) {
        const uint32_t n = run_payloads(chunk);
        WM_CUDA_CHECK(cudaMemcpyAsync(d_offsets, h_segs.get(), size_t{n} * 4 + 4, cudaMemcpyHostToDevice, stream));
        ac_build_segments(d_offsets, n, chunk.first_payload, tuning::kTileBytes, d_prefix, d_segs, d_count + 3,
                          d_unit_index, d_scan_tmp, scan_tmp_bytes, stream);
        return;
    }
    WM_CUDA_CHECK(cudaMemcpyAsync(d_segs, h_segs.get(), chunk.segs.size() * sizeof(Segment), cudaMemcpyHostToDevice,
                                  stream));
}

} // namespace wm::gpu
