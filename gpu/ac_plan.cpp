// gpu/ac_plan.cpp - see ac_plan.h.
#include "gpu/ac_plan.h"

#include <algorithm>

namespace wm::gpu {

ChunkPlanner::ChunkPlanner(const BatchView &batch, size_t max_bytes, size_t max_segments,
                           uint32_t tile_bytes, uint32_t max_len, bool whole_runs, size_t capacity_bytes)
    : b_(batch), whole_runs_(whole_runs), max_segs_(std::max<size_t>(1, max_segments)), tile_(tile_bytes),
      ctx_(max_len ? max_len - 1 : 0) {
    // A piece must make progress after its context.
    max_bytes_ = std::max<uint64_t>(max_bytes, uint64_t{ctx_} + tile_);
    capacity_ = std::max<uint64_t>(capacity_bytes, max_bytes_);
}

// Whole payloads from i_ while they fit `room` bytes (no context: pos_ == 0).
// Returns the bytes taken; leaves what does not fit to next()'s general loop.
uint64_t ChunkPlanner::take_whole_payloads(Chunk &c, uint64_t room) {
    const uint32_t *off = b_.offsets;
    const uint32_t tile = tile_, src = off[i_];
    const uint64_t limit = src + room; // chunk-relative bytes stay within room
    const size_t max_segs = max_segs_;
    uint32_t i = i_, tiles = c.tiles;
    const uint64_t end_payload = std::min<uint64_t>(b_.count, uint64_t{i} + max_segs); // empty ones count too
    c.segs.reserve(std::min<size_t>(max_segs, b_.count - i));
    while (i < end_payload) {
        const uint32_t begin = off[i], end = off[i + 1];
        if (end == begin) { ++i; continue; }
        if (end > limit) break;
        Segment s{};
        s.data_begin = begin - src;
        s.data_end = end - src;
        s.tile_begin = tiles;
        s.payload = i;
        c.segs.push_back(s);
        tiles += (end - begin + tile - 1) / tile; // 32-bit: payloads are < 4 GiB
        ++i;
    }
    const uint64_t used = c.segs.empty() ? 0 : c.segs.back().data_end;
    i_ = i;
    c.tiles = tiles;
    return used;
}

// Whole payloads from i_ (pos_ == 0) as one run: the most that fit `room`
// bytes and max_segs_, found by binary search over the offsets. False when
// payload i_ alone does not fit (the general loop splits it).
bool ChunkPlanner::take_whole_run(Chunk &c, uint64_t room) {
    const uint32_t *off = b_.offsets;
    const uint64_t limit = off[i_] + room;
    const uint32_t hi = static_cast<uint32_t>(std::min<uint64_t>(b_.count, uint64_t{i_} + max_segs_));
    // end: one past the last payload whose end offset is within the limit
    const uint32_t *e = std::upper_bound(off + i_ + 1, off + hi + 1, limit,
                                         [](uint64_t v, uint32_t o) { return v < o; });
    const uint32_t end = static_cast<uint32_t>(e - off) - 1;
    if (end == i_) return false;
    c.whole_run = true;
    c.first_payload = i_;
    c.end_payload = end;
    c.bytes = off[end] - off[i_];
    uint32_t last = end - 1;
    while (off[last + 1] == off[last]) --last; // a run starts at a non-empty payload
    c.last_payload = last;
    i_ = end;
    return true;
}

uint32_t whole_run_segments(const BatchView &batch, const Chunk &c, uint32_t tile_bytes, std::vector<Segment> &out) {
    out.clear();
    uint32_t tiles = 0;
    for (uint32_t i = 0; i < c.end_payload - c.first_payload; ++i) {
        out.push_back(whole_payload_segment(batch.offsets, c.first_payload, i, tiles));
        tiles += payload_tiles(out.back().data_end - out.back().data_begin, tile_bytes);
    }
    return tiles;
}

bool ChunkPlanner::next(Chunk &c) {
    c.segs.clear();
    c.bytes = 0;
    c.tiles = 0;
    c.splits_payload = false;
    c.whole_run = false;
    const uint32_t *off = b_.offsets;
    while (i_ < b_.count && off[i_ + 1] == off[i_]) ++i_; // empty payloads: nothing to match
    if (i_ >= b_.count) return false;
    const uint64_t ctx0 = std::min<uint64_t>(ctx_, pos_);
    // The rest of the batch (with this chunk's context) in one chunk when it
    // fits the capacity; otherwise chunks stop at max_bytes_.
    const uint64_t room = off[b_.count] - (off[i_] + pos_ - ctx0) <= capacity_ ? capacity_ : max_bytes_;
    if (whole_runs_ && pos_ == 0) {
        c.src_begin = off[i_];
        if (take_whole_run(c, room)) return true;
    }
    c.src_begin = off[i_] + pos_ - ctx0;
    uint64_t used = 0;
    const uint64_t end_payload = std::min<uint64_t>(b_.count, uint64_t{i_} + max_segs_); // empty ones count too
    if (pos_ == 0) used = take_whole_payloads(c, room); // the common case, kept tight (one payload: a few ns)
    while (i_ < end_payload) {
        const uint64_t len = off[i_ + 1] - off[i_];
        if (len == 0) { ++i_; continue; }
        const uint64_t ctx = std::min<uint64_t>(ctx_, pos_);
        const uint64_t rest = len - pos_;
        uint64_t take = rest;
        if (ctx + rest > room - used) {
            if (!c.segs.empty()) break; // start the big payload in a fresh chunk
            take = room - ctx;
            c.splits_payload = true;
        }
        if (pos_ > 0) c.splits_payload = true;
        Segment s{};
        s.data_begin = static_cast<uint32_t>(off[i_] + pos_ - ctx - c.src_begin);
        s.data_end = static_cast<uint32_t>(s.data_begin + ctx + take);
        s.tile_begin = c.tiles;
        s.payload = i_;
        s.pos_base = static_cast<uint32_t>(pos_ - ctx);
        s.skip = static_cast<uint32_t>(ctx);
        c.segs.push_back(s);
        c.tiles += static_cast<uint32_t>((take + tile_ - 1) / tile_);
        used += ctx + take;
        pos_ += take;
        if (pos_ == len) { ++i_; pos_ = 0; }
        else break; // the payload continues in the next chunk
    }
    c.bytes = static_cast<uint32_t>(used);
    c.first_payload = c.segs.front().payload;
    c.last_payload = c.segs.back().payload;
    return true;
}

} // namespace wm::gpu
