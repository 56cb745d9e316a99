// gpu/ac_plan.h - splits a batch into chunks of segments and tiles.
//
// A chunk is one contiguous byte range of the batch (payloads are back to
// back) holding at most max_bytes bytes and max_segments segments, or up to
// capacity_bytes when that takes the rest of the batch (so a batch of twice
// max_bytes is two chunks, not two and a sliver: chunks end at payload
// boundaries, below max_bytes). A segment is
// one payload, or one piece of a payload larger than a chunk; a piece other than
// the first starts with `skip` bytes of context (up to longest - 1 bytes before
// it) that no tile owns. Tiles of kTileBytes cover each segment after its skip;
// a thread owns one tile. Empty payloads get no segment, but count towards
// max_segments: a chunk's payloads [first_payload, last_payload] are at most
// max_segments (the Set kernel keeps a word per payload of the chunk,
// ScanParams::d_one_byte). The GPU matcher and the CPU walk use the same plan.
#pragma once

#include "gpu/gpu_matcher.h"

#include <cstdint>
#include <vector>

#ifdef __CUDACC__
#define WM_HD __host__ __device__
#else
#define WM_HD
#endif

namespace wm::gpu {

struct Segment {
    uint32_t data_begin; // chunk-local byte range [data_begin, data_end), context included
    uint32_t data_end;
    uint32_t tile_begin; // index of the segment's first tile in the chunk
    uint32_t payload;    // payload index in the batch
    uint32_t pos_base;   // payload offset of data_begin
    uint32_t skip;       // context bytes at the front (no tile owns them)
    uint32_t pad[2];
};
static_assert(sizeof(Segment) == 32, "Segment layout");

struct Chunk {
    uint64_t src_begin = 0; // first batch byte (index into BatchView::data)
    uint32_t bytes = 0;
    uint32_t tiles = 0;          // 0 in a whole-payload run (counted where the segments are built)
    bool splits_payload = false; // some payload continues in another chunk
    std::vector<Segment> segs;   // empty in a whole-payload run
    // Whole-payload run (only with ChunkPlanner's whole_runs): payloads
    // [first_payload, end_payload), none split, empty ones included; the
    // segments are whole_payload_segment() of each (built on the device).
    bool whole_run = false;
    uint32_t first_payload = 0, end_payload = 0;
    uint32_t last_payload = 0; // highest payload index with a segment (both kinds; first_payload: lowest)
};

// Payloads of a whole-payload run (ChunkPlanner with whole_runs).
inline uint32_t run_payloads(const Chunk &c) { return c.end_payload - c.first_payload; }

// Words of the Set kernel's one-byte register per payload (ScanParams::
// one_byte_words, from first_payload): every payload of a whole-payload run,
// empty ones included, else the lowest to the highest with a segment.
inline uint32_t one_byte_words(const Chunk &c) {
    return c.whole_run ? run_payloads(c) : c.last_payload - c.first_payload + 1;
}

// Tiles of a payload of len bytes.
WM_HD inline uint32_t payload_tiles(uint32_t len, uint32_t tile_bytes) { return (len + tile_bytes - 1) / tile_bytes; }

// Segment i of a whole-payload run starting at payload `first` (chunk-local
// bytes count from offsets[first]); tile_begin = tiles of payloads
// [first, first + i). An empty payload gets a segment without tiles, which
// find_segment never picks (it takes the last segment starting at a tile).
WM_HD inline Segment whole_payload_segment(const uint32_t *offsets, uint32_t first, uint32_t i, uint32_t tile_begin) {
    Segment s{};
    s.data_begin = offsets[first + i] - offsets[first];
    s.data_end = offsets[first + i + 1] - offsets[first];
    s.tile_begin = tile_begin;
    s.payload = first + i;
    return s;
}

// Host reference of a whole-payload run's segments (the device builds the
// same with a scan over payload_tiles()); returns the tile count.
uint32_t whole_run_segments(const BatchView &batch, const Chunk &c, uint32_t tile_bytes, std::vector<Segment> &out);

class ChunkPlanner {
  public:
    // max_len: longest pattern (context of continuation pieces is max_len - 1).
    // whole_runs: a chunk of whole payloads comes as a whole-payload run (no
    // per-payload work on the host: its end is found by binary search);
    // chunks with a split payload still get their segments here.
    // capacity_bytes (>= max_bytes; 0: max_bytes): the most a last chunk may hold.
    ChunkPlanner(const BatchView &batch, size_t max_bytes, size_t max_segments, uint32_t tile_bytes,
                 uint32_t max_len, bool whole_runs = false, size_t capacity_bytes = 0);
    // Fills `c` with the next chunk; false when the batch is exhausted.
    bool next(Chunk &c);

  private:
    uint64_t take_whole_payloads(Chunk &c, uint64_t room);
    bool take_whole_run(Chunk &c, uint64_t room);
    BatchView b_;
    bool whole_runs_;
    uint64_t max_bytes_, capacity_;
    size_t max_segs_;
    uint32_t tile_, ctx_;
    uint32_t i_ = 0;   // current payload
    uint64_t pos_ = 0; // position inside payload i_
};

} // namespace wm::gpu
