// gpu/gpu_matcher.h - public, host-only interface of the GPU Aho-Corasick matcher.
//
// Plain C++17: no CUDA headers, so code built by g++ alone can include it.
//
// Lifecycle: create() once per pattern set (compiles the automaton on the host,
// uploads it once, allocates every pinned and device buffer), then scan() /
// count() any number of times from one thread. A GpuMatcher is not thread safe:
// give each worker its own (they are cheap next to the automaton upload).
//
// Semantics equal Hyperscan literal matching: pattern p of length L matches
// payload bytes [start, end) with end - start == L; `nocase` folds ASCII A-Z/a-z
// only; offset/depth keep a match iff start >= offset && (depth == 0 ||
// end <= offset + depth). Matching restarts at every payload and never spans two.
// Every occurrence is reported, overlapping ones included; patterns with equal
// bytes keep separate ids.
#pragma once

#include "gpu/host_wait.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace wm::gpu {

// One literal; its pattern id is its index in the vector given to create().
// bytes must be non-empty (at most 65535 bytes).
struct Literal {
    std::string bytes;
    bool nocase = false;
    uint32_t offset = 0;
    uint32_t depth = 0;
};

// A batch of payloads stored back to back: payload i is
// data[offsets[i], offsets[i+1]); offsets has count + 1 entries (may be null
// when count == 0). Empty payloads are allowed. With sources, payload i is
// left in place at data + sources[i] instead (ascending, not overlapping; a
// replay window's file bytes), and the device packs the payloads at their
// offsets (ac_gather.h): the host copies none.
struct BatchView {
    const uint8_t *data;
    const uint32_t *offsets;
    uint32_t count;
    const uint32_t *sources = nullptr;
};

// Bytes of data the batch's payloads span.
inline uint64_t batch_data_bytes(const BatchView &b) {
    if (b.count == 0) return 0;
    return b.sources ? uint64_t{b.sources[b.count - 1]} + (b.offsets[b.count] - b.offsets[b.count - 1])
                     : b.offsets[b.count];
}

// One match: pattern id, payload index in the batch, exclusive end offset of
// the match inside the payload. In OutputMode::Set, end is 0.
struct Match {
    uint32_t pattern;
    uint32_t payload;
    uint32_t end;
};

enum class OutputMode {
    Positions, // every (pattern, payload, end), by (payload, end, pattern) (a chunk too wide to key: any order)
    // Distinct (pattern, payload) pairs, end = 0, sorted by (payload, pattern)
    // ascending (strictly: no repeats), also when a payload spans chunks.
    // The sort runs on the device, so callers need not order them again.
    Set,
};

// What scan_positions() returns of the Positions matches.
enum class PositionsKept {
    Every,
    // Within each chunk, each (payload, pattern)'s first match (smallest end)
    // only, dropped on the device before the copy back (ac_positions_order.h).
    // A payload split across chunks may repeat a pattern in its later chunk,
    // and a chunk too wide to key comes back whole: callers that want exactly
    // the firsts still filter.
    FirstPerPattern,
};

// Transport metadata of one payload (the layout of wm_payload_meta_t).
struct PayloadMeta {
    uint8_t proto; // IP protocol number: 6 TCP, 17 UDP
    uint16_t src_port;
    uint16_t dst_port;
};

struct PortRange {
    uint16_t lo, hi; // inclusive
};

// Where a pattern applies and the id scan_set_pairs() reports for it. proto 0
// = any; ports empty = any, else the source or the destination port must lie
// in one of the ranges (the rules' `protocol:` / `ports:`). Several entries
// may name one pattern (rules sharing a literal: the automaton holds it once
// and each entry that fits reports its own id); `pattern` kEntryIndex means
// the entry's own position in the list (one entry per pattern, in order).
struct PatternScope {
    static constexpr uint32_t kEntryIndex = UINT32_MAX;
    uint32_t id = 0;
    uint8_t proto = 0;
    std::vector<PortRange> ports;
    uint32_t pattern = kEntryIndex;
};

// One distinct (pattern id, payload) pair of scan_set_pairs().
struct SetPair {
    uint32_t id;      // PatternScope::id of the entry (the pattern index when no scopes were set)
    uint32_t payload; // payload index in the batch
};
static_assert(sizeof(SetPair) == 8 && sizeof(PayloadMeta) == 6, "SetPair / PayloadMeta layout");


struct GpuOptions {
    int device = 0;                        // CUDA device ordinal
    HostWait wait = HostWait::Spin;
    size_t max_batch_bytes = 64u << 20;    // bytes per internal chunk (per stream), at most tuning::kMaxChunkBytes;
                                           // a batch's last chunk may hold 1/kChunkTailSlackDivisor more
    size_t max_batch_payloads = 1u << 20;  // payloads per internal chunk
};

// Every failure of the GPU path. The message names the failing CUDA call (or
// allocation and its size) and cudaGetErrorString of the error.
class GpuError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

// True when `device` can run the matcher. Otherwise false, and *reason (when
// non-null) says why: "built without CUDA support", no device, driver too old...
bool gpu_usable(int device, std::string *reason);

struct FlatScopes;     // ac_scope.h
struct PositionsChunk; // positions_chunk.h

class GpuMatcher {
  public:
    virtual ~GpuMatcher() = default;

    // Builds the automaton on the host, uploads it once, allocates pinned and
    // device buffers once. Throws GpuError (no GPU, out of memory: the message
    // names the allocation and its byte count) and std::invalid_argument for an
    // empty pattern or one longer than 65535 bytes.
    static std::unique_ptr<GpuMatcher> create(const std::vector<Literal> &patterns,
                                              const GpuOptions &opts);

    // Synchronous scan of a batch of any size (split internally into chunks of
    // the configured capacity, two chunks in flight on separate streams).
    // Appends to `out` (out is cleared first).
    virtual void scan(const BatchView &batch, OutputMode mode, std::vector<Match> &out) = 0;

    // Positions mode chunk by chunk: sink(chunk) once per internal chunk that
    // has matches, in payload order (a payload split across chunks has its
    // earlier ends in the earlier chunk), on the calling thread while later
    // chunks are on the device. The chunk's keys or records live in the
    // matcher's pinned memory and are valid only during the call. What
    // scan(Positions) returns is the chunks' matches concatenated. An
    // exception from sink drops the batch's remaining chunks and propagates.
    virtual void scan_positions(const BatchView &batch, const std::function<void(const PositionsChunk &)> &sink,
                                PositionsKept kept = PositionsKept::Every) = 0;

    // Per-pattern occurrence counts (same occurrences scan(Positions) reports).
    // per_pattern is resized to the pattern count and overwritten.
    virtual void count(const BatchView &batch, std::vector<uint64_t> &per_pattern) = 0;

    // Sets the scope entries used by scan_set_pairs() (ids distinct; one or
    // more per pattern, or none: the pattern then reports nothing); uploaded
    // once. Throws std::invalid_argument on a repeated id, a pattern out of
    // range, or (entries without `pattern`) a count other than the patterns',
    // GpuError on a CUDA failure.
    virtual void set_scopes(const std::vector<PatternScope> &scopes) = 0;
    // The same with the entries flattened already (flatten_scopes(scopes,
    // patterns), ac_scope.h): a host that needs their grouping by pattern too
    // flattens them once. Throws std::invalid_argument when f is not for this
    // matcher's pattern count.
    virtual void set_scopes(FlatScopes f) = 0;

    // Set mode delivered in place: for each distinct (pattern, payload) pair,
    // the pattern's scope entries that fit the payload's meta (all of them when
    // meta is null; without set_scopes, one entry per pattern, id = index),
    // as (entry id, payload) sorted by (payload, entry index). Scope
    // filtering, id mapping and ordering run on the device; the pairs land by
    // DMA in page-locked memory owned by the matcher, *pairs points there
    // (valid until the next call on this matcher). meta: batch.count entries
    // or null. Returns the pair count.
    virtual size_t scan_set_pairs(const BatchView &batch, const PayloadMeta *meta, const SetPair **pairs) = 0;

    // scan_set_pairs() pipelined across batches. submit_set_pairs() enqueues
    // every chunk of the batch (copy in, scan, passes, copy back) and returns;
    // it waits only for slots still held by earlier chunks, so batch N + 1's
    // copies run while batch N's last chunks are scanned and no call drains
    // the pipeline. collect_set_pairs() waits for the oldest submitted batch
    // and returns what scan_set_pairs() returns for it (*pairs valid until the
    // next call on this matcher). At most kPendingBatches submitted and not
    // collected; a submitted batch's bytes, offsets and meta must stay valid and
    // unchanged until it is collected. scan() and count() may run while
    // batches are pending (they finish those batches' chunks first);
    // scan_set_pairs() and growing a pinned_buffer() may not. Misuse throws
    // std::logic_error; a CUDA failure throws GpuError and drops every pending
    // batch (pending_set_batches() is 0 afterwards). 4: with two, a 64 MB
    // batch (two chunks) let the copy engine run at most one batch ahead of
    // the scan; deeper, the chunk slots alone bound what is in flight, as
    // within one large batch.
    static constexpr unsigned kPendingBatches = 4;
    virtual void submit_set_pairs(const BatchView &batch, const PayloadMeta *meta) = 0;
    virtual size_t collect_set_pairs(const SetPair **pairs) = 0;
    virtual unsigned pending_set_batches() const = 0;

    // One line: states, classes, table bytes, layout chosen, device.
    virtual std::string describe() const = 0;

    // Page-locked host memory of at least `bytes`, owned by the matcher (valid
    // until the next call with a larger size, or the matcher's end). A batch
    // whose bytes lie in it (or in any cudaHostAlloc / cudaHostRegister memory)
    // is copied to the device straight from there: no host memcpy, full PCIe
    // speed. Fill it, point BatchView::data at it, call scan()/count().
    // slot < kPinnedSlots picks one of several such buffers, so a caller can
    // fill some while the matcher scans another and one more is being used
    // (replay's pipeline). Throws GpuError when the allocation fails.
    static constexpr unsigned kPinnedSlots = 4;
    virtual uint8_t *pinned_buffer(size_t bytes, unsigned slot = 0) = 0;
};

} // namespace wm::gpu
