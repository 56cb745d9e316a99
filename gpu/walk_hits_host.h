// gpu/walk_hits_host.h - the host side of the Set study (walk_hits_model.h):
// the tiled text, the study's 16-bit rows and the CPU model that
// bench_walk_hits checks its kernels against (tests/gpu tests it against the
// naive matcher).
#pragma once

#include "gpu/ac_blob.h"
#include "gpu/ac_compile.h"
#include "gpu/ac_tuning.h"
#include "gpu/walk_hits_model.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace wm::gpu::study {

// The tiled corpus: raw bytes (whole tiles, zero-padded), payload starts
// per tile (bit j: a payload begins at byte j), the payload of each tile's
// byte 0, and how far each tile's walk may run past it in its payload.
struct HitText {
    std::vector<uint8_t> raw;
    std::vector<uint64_t> starts;
    std::vector<uint32_t> first_payload;
    std::vector<uint8_t> runout;
    size_t tiles = 0;
};

// payloads: offsets[0..count] over `bytes` (offsets[count] bytes), every
// payload non-empty (a start bit per payload); copies of them back to back
// until at least `want` bytes.
inline HitText hit_text(const uint8_t *bytes, const std::vector<uint32_t> &offsets, size_t want) {
    HitText t;
    const uint32_t count = static_cast<uint32_t>(offsets.size() - 1);
    for (uint32_t p = 0; p < count; ++p)
        if (offsets[p + 1] <= offsets[p]) throw std::invalid_argument("hit_text: payload " + std::to_string(p) + " is empty");
    const size_t one = offsets.back(), copies = std::max<size_t>(1, (want + one - 1) / one);
    if (one == 0) throw std::invalid_argument("hit_text: no payload bytes");
    const uint64_t text_end = copies * one;
    t.tiles = (text_end + kHitTile - 1) / kHitTile;
    t.raw.assign(t.tiles * kHitTile + kHitTile, 0); // a tile of slack for the last run-out's reads
    t.starts.assign(t.tiles, 0);
    t.first_payload.assign(t.tiles, 0);
    t.runout.assign(t.tiles, 0);
    for (size_t k = 0; k < copies; ++k) std::memcpy(t.raw.data() + k * one, bytes, one);
    // Payloads back to back: payload id = k * count + p covers [k * one + offsets[p], k * one + offsets[p + 1]).
    auto begin_of = [&](uint64_t id) { return (id / count) * one + offsets[id % count]; };
    const uint64_t payloads = copies * count;
    uint64_t first = 0, last = 0; // payloads of the tile's byte 0 and of its last byte
    for (size_t x = 0; x < t.tiles; ++x) {
        const uint64_t b0 = x * kHitTile, bl = b0 + kHitTile - 1;
        while (first + 1 < payloads && begin_of(first + 1) <= b0) ++first;
        while (last + 1 < payloads && begin_of(last + 1) <= bl) ++last;
        t.first_payload[x] = static_cast<uint32_t>(first);
        for (uint64_t id = first; id <= last; ++id)
            if (begin_of(id) >= b0) t.starts[x] |= uint64_t{1} << (begin_of(id) - b0);
        const uint64_t end = last + 1 < payloads ? begin_of(last + 1) : text_end;
        if (bl < end && end > b0 + kHitTile)
            t.runout[x] = static_cast<uint8_t>(std::min<uint64_t>(end - b0 - kHitTile, kHitSlots - kHitTile - 1));
    }
    return t;
}

// The CPU model of one tile (kernel 1's logic): calls emit(j, s) per hit.
template <HitRows R, typename Emit>
inline void hit_tile_host(const HitRowsView &r, const uint8_t *cmap, const uint8_t *raw, uint64_t starts, uint32_t runout,
                   const uint32_t *depth_end, uint32_t key_len, Emit emit) {
    uint32_t s = 0, lp = 0;
    for (uint32_t j = 0; j < kHitTile; ++j)
        if (hit_byte<R>(r, (starts >> j) & 1u, cmap[raw[j]], s, lp)) emit(j, s);
    for (uint32_t past = 0; past < runout && !hit_walk_done(depth_end, key_len, s, past); ++past)
        if (hit_byte<R>(r, false, cmap[raw[kHitTile + past]], s, lp)) emit(kHitTile + past, s);
}

// The study's rows for one automaton (every state dense, one group).
struct HostRows {
    std::vector<uint16_t> narrow16f, narrow16b;
    std::vector<uint32_t> flags2;
};

// The study's automaton: the matcher's, without covered steps (whose flags
// belong to a step, not to its target, as flags2 assumes) or case columns.
inline AcCompileOptions study_compile_options() {
    AcCompileOptions co;
    co.key_bytes = tuning::kKeyBytes;
    co.dense_budget_bytes = tuning::kDenseBudgetMaxBytes;
    co.covered_steps = false;
    co.case_columns = false;
    return co;
}

inline HostRows host_rows(const AcGroupView &hg) {
    HostRows h;
    const auto *rows = static_cast<const uint32_t *>(hg.dense);
    const size_t n = size_t{hg.num_states} * hg.num_classes;
    h.narrow16f.resize(n);
    h.narrow16b.resize(n);
    h.flags2.assign((hg.num_states + 15) / 16, 0);
    for (size_t i = 0; i < n; ++i) {
        const uint32_t t = study_target(rows[i]), id = t & ~state_flags<uint32_t>(), fl = t >> 30;
        h.narrow16f[i] = static_cast<uint16_t>(id < kEscape16F ? id | (fl << 14) : kEscape16F);
        h.narrow16b[i] = static_cast<uint16_t>(id < kEscape16B ? id : kEscape16B);
        h.flags2[id >> 4] |= fl << ((id & 15) * 2); // a property of the target state: the same from every row
    }
    return h;
}

// Whether state s is plain (HostRows::flags2: out << 1 | plain).
inline bool plain_state(const HostRows &h, uint32_t s) { return (h.flags2[s >> 4] >> ((s & 15) * 2)) & 1u; }

// The CPU model over the first `tiles` tiles: each tile's records, and the keys.
struct ModelOut {
    std::vector<std::vector<uint32_t>> records;
    std::set<unsigned long long> keys;
    uint64_t hits = 0, items = 0;
};

template <HitRows R>
inline ModelOut run_model(const HitRowsView &r, const AcGroupView &hg, const HitText &text, size_t tiles) {
    ModelOut m;
    m.records.resize(tiles);
    for (size_t x = 0; x < tiles; ++x) {
        hit_tile_host<R>(r, hg.class_map, text.raw.data() + x * kHitTile, text.starts[x], text.runout[x], hg.depth_end,
                         hg.key_len, [&](uint32_t j, uint32_t s) {
                             m.records[x].push_back((s << kHitPosBits) | j);
                             const uint32_t payload = hit_payload(text.first_payload[x], text.starts[x], j);
                             for (uint32_t q = hg.out_off[s]; q < hg.out_off[s + 1]; ++q, ++m.items)
                                 m.keys.insert(hit_key(payload, hg.out_ids[q] & kOutIdMask));
                         });
        m.hits += m.records[x].size();
    }
    return m;
}

} // namespace wm::gpu::study
