// gpu/ac_cpu_walk.cpp - see ac_cpu_walk.h.
#include "gpu/ac_cpu_walk.h"

#include "gpu/ac_gather.h"
#include "gpu/ac_tuning.h"
#include "gpu/ac_walk.cuh"

#include <cstring>
#include <vector>

namespace wm::gpu {
namespace {

// Tiles per unit: the kernels' block (ac_agent.cuh).
constexpr uint32_t kUnitTiles = tuning::kBlockThreads;

template <typename StateT>
void walk(const AcBlob &blob, const BatchView &batch, std::vector<Match> &out, const CpuWalkOptions &o) {
    const AcView v = blob.host_view();
    uint8_t maps[kMaxGroups][256] = {};
    for (uint32_t g = 0; g < v.num_groups; ++g) std::memcpy(maps[g], v.groups[g].class_map, 256);
    ChunkPlanner plan(batch, o.max_chunk_bytes, o.max_chunk_payloads, o.tile_bytes, v.max_len, o.whole_runs,
                      o.chunk_capacity_bytes);
    Chunk c;
    uint64_t steps = 0;
    std::vector<uint8_t> gathered; // a chunk of payloads left in place, packed as the device packs it
    while (plan.next(c)) {
        if (c.whole_run) c.tiles = whole_run_segments(batch, c, o.tile_bytes, c.segs);
        const uint8_t *data = batch.data + c.src_begin;
        if (batch.sources && c.bytes > 0) {
            gathered.assign(c.bytes, 0);
            gather_chunk_on_host(batch, c, gathered.data());
            data = gathered.data();
        }
        auto text = [data](uint32_t i) { return data[i]; };
        // Tiles found through the unit index, as the kernels find them.
        const uint32_t nsegs = static_cast<uint32_t>(c.segs.size()), units = (c.tiles + kUnitTiles - 1) / kUnitTiles;
        std::vector<uint32_t> index(units + 1);
        unit_index_of_segments(c.segs.data(), nsegs, c.tiles, kUnitTiles, index.data());
        for (uint32_t t = 0; t < c.tiles; ++t) {
            const Segment &sg = c.segs[find_segment_of_unit(c.segs.data(), nsegs, index.data(), t / kUnitTiles, t)];
            uint32_t tb, te;
            tile_bounds(sg, t, o.tile_bytes, &tb, &te);
            auto emit = [&](uint32_t p, uint32_t end) { out.push_back(Match{p, sg.payload, end}); };
            steps += o.set_semantics ? ac_walk_tile_all<StateT, true>(v, maps, text, sg, tb, te, emit)
                                     : ac_walk_tile_all<StateT>(v, maps, text, sg, tb, te, emit);
        }
    }
    if (o.steps) *o.steps += steps;
}

} // namespace

void cpu_walk_scan(const AcBlob &blob, const BatchView &batch, std::vector<Match> &out,
                   const CpuWalkOptions &opts) {
    if (blob.header().num_groups == 0 || batch.count == 0) return;
    if (blob.header().state_bytes == 2) walk<uint16_t>(blob, batch, out, opts);
    else walk<uint32_t>(blob, batch, out, opts);
}

} // namespace wm::gpu
