// gpu/chunk_slot.h - one chunk in flight in the GPU matcher: its CUDA stream
// and its pinned and device buffers, sized once (internal; needs the CUDA
// runtime). A slot stages a planned chunk (text, segments or a whole-payload
// run's offsets, payload meta) and enqueues its copies to the device; the
// matcher (gpu_matcher_cuda.cpp) runs the kernel on its stream and collects.
#pragma once

#include "gpu/ac_gather.h"
#include "gpu/ac_plan.h"
#include "gpu/gpu_matcher.h"
#include "gpu/pinned_host.h"
#include "gpu/stream_waiter.h"

#include <atomic>
#include <cuda_runtime_api.h>
#include <string>

namespace wm::gpu {

// Page-locked host allocation; throws GpuError naming `what` and the size.
template <typename T> T *host_alloc(size_t count, const char *what) {
    void *p = nullptr;
    const size_t bytes = (count * sizeof(T) > 16) ? count * sizeof(T) : 16;
    const cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
    if (e != cudaSuccess)
        throw GpuError(std::string("cudaHostAlloc(") + what + ", " + std::to_string(bytes) +
                       " bytes) failed: " + cudaGetErrorString(e));
    return static_cast<T *>(p);
}

// testing::fail_output_allocation: output allocations left before the one that fails (0: none).
extern std::atomic<size_t> g_fail_output_allocation;
extern std::atomic<size_t> g_fail_pair_buffer_allocation; // testing::fail_pair_buffer_allocation

struct ChunkSlot {
    // Buffers for chunks of up to chunk_bytes and chunk_segs segments, per-
    // pattern counters, and output_capacity records; `wait` says how wait()
    // waits. Throws GpuError; what was allocated before the failure is freed.
    ChunkSlot(size_t chunk_bytes, size_t chunk_segs, uint32_t num_patterns, size_t output_capacity,
              HostWait wait = HostWait::Spin);
    ~ChunkSlot();
    ChunkSlot(const ChunkSlot &) = delete;
    ChunkSlot &operator=(const ChunkSlot &) = delete;

    // Output records (Positions matches or Set keys) and the Set buffers that
    // scale with them; only while no work of the stream uses them. When an
    // allocation fails (GpuError) the slot has none and capacity 0.
    void alloc_outputs(size_t capacity);
    void free_outputs();
    // Before a launch (records: OutputSizer::grow_to, or 0): grows the outputs
    // to `records` when they have less room, and to at least the slot's
    // initial size when a failed growth left none; only while no work of the
    // stream uses them.
    void fit_outputs(size_t records);
    // Pinned room for `bytes` of results copied back (scan()); grows by half
    // again at least, apart from the outputs: a Positions chunk whose firsts
    // alone come back needs far less than its output records (a buffer sized
    // to them took ~3 ms to pin after each growth, run 177). The set-pair
    // path never needs it, so it comes on first use.
    uint8_t *host_out(size_t bytes);
    // Points the slot at `chunk`'s bytes (the caller's pinned memory as is,
    // else a copy in h_text) and stages its segments, or a run's offsets, and
    // the payload meta of its payloads (meta may be null). The stream is idle.
    void stage(const BatchView &batch, bool pinned, const PayloadMeta *meta);
    // Enqueues the copies to the device, and the segment build of a run.
    void submit();
    // Waits for everything enqueued on the stream so far (HostWait). Throws
    // GpuError.
    void wait();

    cudaStream_t stream = nullptr;
    size_t chunk_segs = 0;
    // Host staging is pinned_host memory sized on first use (h_text only for
    // pageable batches): with cudaHostAlloc, which faults pages in on one
    // thread, a new scanner's first replay took ~20 ms longer (run 75).
    PinnedHostArray<uint8_t> h_text;   // a pageable batch's chunk, copied here first
    uint8_t *d_text = nullptr;
    PinnedHostArray<Segment> h_segs;   // the chunk's segments, or a whole-payload run's offsets
    Segment *d_segs = nullptr;
    uint32_t *d_offsets = nullptr, *d_prefix = nullptr; // whole-payload run: offsets, tile scan
    uint32_t *d_one_byte = nullptr;    // Set: a word per payload of the chunk (ScanParams::d_one_byte)
    PinnedHostArray<PayloadMeta> h_meta; // scan_set_pairs(): the chunk's payload meta,
    PayloadMeta *d_meta = nullptr;       //   payloads [meta_base, meta_base + meta_n)
    size_t meta_cap = 0;
    uint32_t meta_base = 0, meta_n = 0;
    void *d_scan_tmp = nullptr;
    size_t scan_tmp_bytes = 0;
    Match *d_matches = nullptr;             // also the Set keys (8 <= 12 bytes per record)
    unsigned long long *d_hash = nullptr;   // Set: chunk-wide dedupe table; after the kernel, the
    size_t hash_slots = 0;                  //      sort's second key buffer (>= 2 x capacity keys)
    void *d_sort_tmp = nullptr;             // Set: CUB radix-sort scratch for up to capacity keys
    size_t sort_tmp_bytes = 0;
    unsigned long long *d_pairs = nullptr;  // scan_set_pairs(): the chunk's sorted pairs (d_matches or d_hash)
    uint32_t sort_n = 0;                    //   and the sort's length (keys, then kSortPadKey)
    PinnedHostArray<uint8_t> h_out;         // pinned results (Match or keys), host_out()
    uint32_t *d_count = nullptr, *h_count = nullptr; // [0] records, [1] Set table failures,
                                                     // [2] keys kept by the scope filter (Set pairs) or Positions holes,
                                                     // [3] (device) tiles of a whole-payload run,
                                                     // [4] (device) the kernel's next unit
    uint32_t *d_unit_index = nullptr;       // a whole-payload run's unit index (ScanParams::d_unit_index)
    unsigned long long *d_counters = nullptr;
    size_t capacity = 0;
    Chunk chunk;
    uint32_t seq = 0;                       // chunks the matcher staged before this one (slot seq % kStreams)
    class PairBatch *pair_batch = nullptr;  // submit_set_pairs(): the batch whose pairs the chunk adds to
    const uint8_t *src = nullptr;           // where the chunk's bytes are copied from (pinned)
    // A chunk of payloads left in place (BatchView::sources): src is its span
    // of file bytes, copied to d_raw and packed into d_text on the device;
    // h_gather / d_gather hold the span's n + 1 offsets, then its n sources.
    bool gathered = false;
    GatherSpan gather{};
    uint8_t *d_raw = nullptr;
    size_t raw_cap = 0;
    PinnedHostArray<uint32_t> h_gather;
    uint32_t *d_gather = nullptr;
    size_t gather_cap = 0;
    bool busy = false;

  private:
    void release();
    void stage_gather(const BatchView &batch, bool pinned);
    size_t chunk_bytes_ = 0;
    size_t initial_capacity_ = 0; // output records the slot was made with
    StreamWaiter waiter_;          // how wait() waits
};

} // namespace wm::gpu
