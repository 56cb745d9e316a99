// gpu/ac_plan.h - splits a batch into chunks of segments and tiles.
//
// A chunk is one contiguous byte range of the batch (payloads are back to
// back) holding at most max_bytes bytes and max_segments segments. A segment is
// one payload, or one piece of a payload larger than a chunk; a piece other than
// the first starts with `skip` bytes of context (up to longest - 1 bytes before
// it) that no tile owns. Tiles of kTileBytes cover each segment after its skip;
// a thread owns one tile. Empty payloads get no segment. The GPU matcher and
// the CPU walk use the same plan.
#pragma once

#include "gpu/gpu_matcher.h"

#include <cstdint>
#include <vector>

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
    uint32_t tiles = 0;
    bool splits_payload = false; // some payload continues in another chunk
    std::vector<Segment> segs;
};

class ChunkPlanner {
  public:
    // max_len: longest pattern (context of continuation pieces is max_len - 1).
    ChunkPlanner(const BatchView &batch, size_t max_bytes, size_t max_segments, uint32_t tile_bytes,
                 uint32_t max_len);
    // Fills `c` with the next chunk; false when the batch is exhausted.
    bool next(Chunk &c);

  private:
    uint64_t take_whole_payloads(Chunk &c);
    BatchView b_;
    uint64_t max_bytes_;
    size_t max_segs_;
    uint32_t tile_, ctx_;
    uint32_t i_ = 0;   // current payload
    uint64_t pos_ = 0; // position inside payload i_
};

} // namespace wm::gpu
