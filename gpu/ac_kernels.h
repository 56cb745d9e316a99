// gpu/ac_kernels.h - host-side launch and dispatch entry points of the
// Aho-Corasick kernels (internal; needs the CUDA runtime headers).
//
// Layering (as in CUB): gpu_matcher_cuda.cpp (public entry, buffers, streams)
// -> ac_dispatch.cu (grid sizing, tuning, launch-error checks)
//    + ac_sort_keys.cu (Set keys, Positions keys sorted with cub::DeviceRadixSort)
//    + ac_set_pairs.cu (Set keys filtered by scope, mapped to pairs)
//    + ac_build_segments.cu (segments of whole-payload runs, from the offsets)
//    + ac_gather.cu (a chunk's text packed from payloads left in place)
// -> ac_kernels.cu (thin __global__ kernels) -> ac_agent.cuh (block algorithm)
// -> ac_walk.cuh (per-thread walk, shared with the CPU walk).
#pragma once

#include "gpu/ac_blob.h"
#include "gpu/ac_plan.h"
#include "gpu/ac_scope.h"

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>
#include <string>

namespace wm::gpu {

enum class EmitKind { Positions, SetKeys, Count };

// Words of ScanParams::d_count a kind's launch reads back: [0] records,
// [1] Set overflow, and for Positions [2] holes.
constexpr uint32_t scan_count_words(EmitKind kind) { return kind == EmitKind::Positions ? 3 : 2; }

// Where a Count block accumulates before adding to the global totals
// (ac_prepare_kernels picks): per-pattern counters in shared memory while they
// take no more room than the Set table (occupancy stays Set's); past that a
// shared table of (pattern, count) slots flushed per unit (ET Open: 18k
// patterns' counters took 72 KB, two blocks per SM); global atomics when
// neither fits.
enum CountCounters : uint32_t { kCountGlobal = 0, kCountDirect = 1, kCountHashed = 2 };

// Everything one launch needs; device pointers prefixed d_.
struct ScanParams {
    AcView view;                    // [in] views into the device blob
    const uint8_t *d_text;          // [in] chunk bytes (16-aligned, +64 readable slack)
    const Segment *d_segs;          // [in] chunk segments
    uint32_t num_segs, num_tiles;   // [in] num_tiles: the count, or a bound when d_num_tiles is set
    const uint32_t *d_num_tiles;    // [in] null, or the tile count computed on the device
    Match *d_matches;               // [out] Positions records
    unsigned long long *d_keys;     // [out] SetKeys: distinct payload << 32 | pattern
    unsigned long long *d_hash;     // [in,out] SetKeys: chunk-wide dedupe table, all kEmptyKey before
    uint32_t hash_mask;             // [in] SetKeys: table slots - 1 (power of two >= 2 x capacity)
    uint32_t capacity;              // [in] records d_matches / d_keys can hold
    uint32_t *d_count;              // [in,out] [0] records appended (may exceed capacity: overflow),
                                    //          [1] SetKeys keys that found no table slot (overflow),
                                    //          [2] Positions: slots of [0] left holes (kHolePattern records)
    unsigned long long *d_counters; // [in,out] Count: per-pattern totals
    uint32_t count_counters;        // [in] Count: a CountCounters value
    uint32_t *d_next_unit;          // [in,out] null: block b scans units b, b + grid, ...; else 0 before
                                    //          the launch: block b scans unit b, then takes grid + the next
                                    //          count from it (atomicAdd): unequal units balance out
    uint32_t positions_slab;        // [in] Positions: output slots a warp reserves at once (ac_dispatch_scan
                                    //          sets it from capacity; >= kPositionsStage)
    const uint32_t *d_unit_index;   // [in] null, or the chunk's unit index (unit_index_from_segment of
                                    //          ac_walk.cuh, units of kBlockThreads tiles): a thread then searches
                                    //          only its unit's segments
    uint32_t *d_one_byte;           // [scratch] SetKeys when the view has one-byte classes (ac_blob.h): a word
                                    //          per payload of the chunk, its one-byte classes (cleared and made
                                    //          into keys by ac_dispatch_scan); else may be null
    uint32_t one_byte_first;        // [in] the payload of d_one_byte[0]: the chunk's first
    uint32_t one_byte_words;        // [in] words of d_one_byte: the chunk's payloads, first to last
    uint4 *d_unit_trace;            // [out] null, or a timeline for studies (bench_ac_kernel --unit-trace):
                                    //          [unit] = {block, SM, start ns, SM cycles}, then per block
                                    //          [units + block] = {block, SM, start ns, end ns} (globaltimer)
};

struct DeviceInfo {
    int sm_count = 0;
    size_t smem_optin = 0; // max dynamic + static shared memory per block
    // Persistent grid per EmitKind (one wave of resident blocks), set by
    // ac_prepare_kernels for the automaton it was given.
    uint32_t grid[3] = {1, 1, 1};
};

// Prepares the kernels for automaton `view`: refuses groups whose state ids
// do not fit a match-queue entry, sets the dynamic shared memory (Set table,
// Count counters) and dev.grid. Returns where Count accumulates. Throws GpuError.
CountCounters ac_prepare_kernels(DeviceInfo &dev, const AcView &view);

// True when the kernels have an image for the current device; else sets *why.
bool ac_kernels_loadable(std::string *why);

// Launches the scan kernel for `kind` on `stream` and checks the launch.
// SetKeys with one-byte classes: clears p.d_one_byte before the kernel and
// appends its literals' keys after it (ac_one_byte_keys); throws GpuError
// when p.d_one_byte is null.
void ac_dispatch_scan(EmitKind kind, const ScanParams &p, const DeviceInfo &dev, cudaStream_t stream);

// Whether the Set scan of `view` needs ScanParams::d_one_byte.
inline bool ac_needs_one_byte_words(const AcView &view) {
    return view.num_groups == 1 && view.groups[0].byte_classes > 0;
}
// Enqueues, behind the Set kernel, the keys (payload << 32 | pattern) of the
// one-byte literals each payload's word holds, appended to p.d_keys on the
// kernel's counter p.d_count[0] (past p.capacity counted, not written: the
// host rescans). The keys are distinct, and the kernel never emits them
// (kOutOneByte).
void ac_one_byte_keys(const ScanParams &p, cudaStream_t stream);

// Slots of the Set-mode global dedupe table for `capacity` output records.
size_t ac_set_hash_slots(size_t capacity);

// Words of a unit index for up to `num_tiles` tiles (ScanParams::d_unit_index).
size_t ac_unit_index_words(size_t num_tiles);
// Whole-payload runs (ac_build_segments.cu): bytes of CUB scratch covering
// every run of up to max_payloads payloads.
size_t ac_build_segments_temp_bytes(uint32_t max_payloads);
// Enqueues the segments of a run of n payloads (d_off: its n + 1 offsets,
// first at the run's first byte or not: they are made relative) into
// d_segs[n], their tile total into *d_num_tiles, and unless null their unit
// index into d_unit_index (ac_unit_index_words of the tile total, at least);
// d_prefix: n + 1 words.
void ac_build_segments(const uint32_t *d_off, uint32_t n, uint32_t first_payload, uint32_t tile_bytes,
                       uint32_t *d_prefix, Segment *d_segs, uint32_t *d_num_tiles, uint32_t *d_unit_index,
                       void *d_temp, size_t temp_bytes, cudaStream_t stream);

// Enqueues the packing of a chunk's text d_text (text_bytes, from packed
// byte text_begin) out of payloads left in place (ac_gather.h): d_raw holds
// the file bytes from raw_begin; d_offsets (n + 1) and d_sources (n) are
// the chunk's payloads'.
void ac_gather_payloads(const uint8_t *d_raw, uint64_t raw_begin, const uint32_t *d_offsets,
                        const uint32_t *d_sources, uint32_t n, uint64_t text_begin, uint32_t text_bytes,
                        uint8_t *d_text, cudaStream_t stream);

// Set mode, sorting the distinct keys before the copy back (ac_sort_keys.cu):
// bytes of CUB temporary storage that cover every ac_sort_keys() and
// ac_select_first_positions() call with n <= capacity (queried with a null
// buffer; no device work).
size_t ac_sort_keys_temp_bytes(uint32_t capacity);
// Enqueues on `stream` an ascending radix sort of d_keys[0, n) over bits
// [0, end_bit) (every key must be < 2^end_bit; see set_sort_end_bit()), using
// d_alt (n keys at least) as the other half of a double buffer and d_temp
// (temp_bytes from ac_sort_keys_temp_bytes(>= n)) as scratch. Allocates
// nothing. Returns the buffer that holds the sorted keys (d_keys or d_alt;
// d_keys when n < 2). Throws GpuError on a CUDA error.
unsigned long long *ac_sort_keys(unsigned long long *d_keys, unsigned long long *d_alt, uint32_t n, int end_bit,
                                 void *d_temp, size_t temp_bytes, cudaStream_t stream);

// Positions mode (ac_sort_keys.cu): enqueues d_keys[i] = codec.encode(d_matches[i])
// for i < n (ac_positions_order.h), to be sorted by ac_sort_keys(codec.bits).
struct PositionsKeyCodec;
void ac_pack_positions(const Match *d_matches, uint32_t n, const PositionsKeyCodec &codec, unsigned long long *d_keys,
                       cudaStream_t stream);
// PositionsKept::FirstPerPattern (ac_sort_keys.cu, ac_positions_order.h):
// the same packing in (payload, pattern, end) order, to be sorted by
// ac_sort_keys(codec.sort_bits()) ...
struct FirstsKeyCodec;
void ac_pack_first_positions(const Match *d_matches, uint32_t n, const FirstsKeyCodec &codec,
                             unsigned long long *d_keys, cudaStream_t stream);
// ... then d_marked[i] = codec.first_of_run(d_sorted, i) for i < n, and the
// marked keys other than kNotFirst copied in order to d_out (the firsts, in
// the Positions codec, for another sort), their count to *d_num (device
// memory). d_marked, d_out: n keys each, neither d_sorted; d_temp as for
// ac_sort_keys. Enqueued on `stream`; throws GpuError on a CUDA error.
void ac_select_first_positions(const unsigned long long *d_sorted, uint32_t n, const FirstsKeyCodec &codec,
                               unsigned long long *d_marked, unsigned long long *d_out, uint32_t *d_num,
                               void *d_temp, size_t temp_bytes, cudaStream_t stream);

// Set pairs (ac_set_pairs.cu), enqueued on `stream` behind the scan kernel;
// the key count n = min(*d_n, sort_n) is read on the device. Either encodes
// d_keys[0, n) in place for the sort (SortKeyCodec) ...
void ac_encode_keys(unsigned long long *d_keys, const uint32_t *d_n, uint32_t sort_n, const SortKeyCodec &codec,
                    cudaStream_t stream);
// ... or writes to d_out, encoded, each key of d_in[0, n) expanded to its
// pattern's scope entries that fit d_meta[payload - meta_base] (the chunk's
// payloads; all entries when d_meta is null), in no particular order, and
// their count to *d_kept (zeroed by this call; over sort_n when they did not
// fit, and then only the first sort_n were written). Both fill the buffer up
// to sort_n with kSortPadKey, so ac_sort_keys(sort_n) puts the keys first.
// Then the sorted keys become pair words in place (n from d_n: the
// expansion's d_kept, or the kernel's count; ids per entry).
void ac_expand_encode_keys(const unsigned long long *d_in, const uint32_t *d_n, uint32_t sort_n,
                           unsigned long long *d_out, uint32_t *d_kept, const ScopeView &scopes,
                           const PayloadMeta *d_meta, uint32_t meta_base, const SortKeyCodec &codec,
                           cudaStream_t stream);
void ac_sorted_keys_to_pairs(unsigned long long *d_keys, const uint32_t *d_n, uint32_t sort_n,
                             const SortKeyCodec &codec, const uint32_t *d_id, cudaStream_t stream);

} // namespace wm::gpu

namespace wm::gpu::detail {
// Thin launchers defined in ac_kernels.cu (used by ac_dispatch.cu only). A
// kernel is picked by the view's state width and group count (1 or 2).
void launch_scan_kernel(EmitKind kind, const AcView &view, uint32_t grid, size_t dyn_smem, cudaStream_t stream,
                        const ScanParams &p);
// Static shared bytes of a kernel, and raising its dynamic limit.
size_t kernel_static_smem(EmitKind kind, const AcView &view);
void set_kernel_dyn_smem(EmitKind kind, const AcView &view, size_t bytes);
// Blocks of kBlockThreads that fit on one SM with `dyn_smem` dynamic shared bytes.
int resident_blocks_per_sm(EmitKind kind, const AcView &view, size_t dyn_smem);
// Preferred shared-memory carveout (percent of the maximum; the rest is L1)
// for every scan kernel of the view's shape; -1: the driver's choice. Set
// before ac_prepare_kernels(), whose grid follows the resulting occupancy.
void set_kernel_carveout(const AcView &view, int percent);
cudaError_t probe_kernel_image();
} // namespace wm::gpu::detail
