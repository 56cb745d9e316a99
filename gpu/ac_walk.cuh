// gpu/ac_walk.cuh - per-thread Aho-Corasick scanning, shared by the CUDA
// kernels and the CPU walk (ac_cpu_walk.cpp, compiled by g++): every function
// is __host__ __device__ under nvcc and plain inline otherwise.
#pragma once

#include "gpu/ac_blob.h"
#include "gpu/ac_plan.h"

#include <cstdint>

#ifdef __CUDACC__
#define WM_HD __host__ __device__
#else
#define WM_HD
#endif

namespace wm::gpu {

// Read-only load through the texture path on the device.
template <typename T> WM_HD inline T wm_ld(const T *p) {
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    return *p;
#endif
}

// Segment owning chunk-local tile `tile` (largest s with tile_begin <= tile).
// segs: [in] the chunk's segments, nsegs >= 1.
WM_HD inline uint32_t find_segment(const Segment *segs, uint32_t nsegs, uint32_t tile) {
    uint32_t lo = 0, hi = nsegs; // invariant: segs[lo].tile_begin <= tile < segs[hi].tile_begin
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) >> 1;
        if (wm_ld(&segs[mid].tile_begin) <= tile) lo = mid;
        else hi = mid;
    }
    return lo;
}

// Bytes [*begin, *end) (chunk-local) owned by tile `tile` of segment `sg`.
WM_HD inline void tile_bounds(const Segment &sg, uint32_t tile, uint32_t tile_bytes, uint32_t *begin,
                              uint32_t *end) {
    const uint32_t b = sg.data_begin + sg.skip + (tile - sg.tile_begin) * tile_bytes;
    *begin = b;
    *end = (sg.data_end - b > tile_bytes) ? b + tile_bytes : sg.data_end;
}

// One DFA step: dense row for BFS-shallow states, else trie children then the
// failure link (fail[s] < s, so the loop ends at a dense state).
// StateT: uint16_t or uint32_t, the blob's state width.
template <typename StateT> WM_HD inline uint32_t ac_step(const AcGroupView &g, uint32_t s, uint32_t c) {
    while (s >= g.num_dense) {
        const uint32_t k = s - g.num_dense;
        const uint32_t e = wm_ld(&g.sp_child_off[k + 1]);
        for (uint32_t i = wm_ld(&g.sp_child_off[k]); i < e; ++i)
            if (wm_ld(&g.sp_cls[i]) == c) return wm_ld(&static_cast<const StateT *>(g.sp_tgt)[i]);
        s = wm_ld(&static_cast<const StateT *>(g.sp_fail)[k]);
    }
    return wm_ld(&static_cast<const StateT *>(g.dense)[static_cast<size_t>(s) * g.num_classes + c]);
}

WM_HD inline uint8_t fold_ascii(uint8_t c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

// Scans one tile of one group and emits every match ending inside the tile.
//   TextFn  text(i) -> uint8_t: chunk-local byte i (shared memory or global).
//   EmitFn  emit(pattern, end): end = exclusive payload offset.
//   v          [in] blob view (pattern tables)
//   g          [in] group view; class_map may point to a shared-memory copy
//   seg_begin  [in] first chunk-local byte of the segment (payload or context start)
//   tile_begin, tile_end [in] the tile; warm-up starts key_len - 1 bytes earlier
//   pos_delta  [in] payload offset of byte i is i + pos_delta (mod 2^32)
template <typename StateT, typename TextFn, typename EmitFn>
WM_HD inline void ac_walk_tile(const AcView &v, const AcGroupView &g, const uint8_t *class_map,
                               TextFn text, uint32_t seg_begin, uint32_t tile_begin, uint32_t tile_end,
                               uint32_t pos_delta, EmitFn emit) {
    const uint32_t warm = g.key_len - 1;
    uint32_t i = (tile_begin - seg_begin > warm) ? tile_begin - warm : seg_begin;
    uint32_t s = 0;
    for (; i < tile_begin; ++i) s = ac_step<StateT>(g, s, class_map[text(i)]);
    for (; i < tile_end; ++i) {
        s = ac_step<StateT>(g, s, class_map[text(i)]);
        const uint32_t ob = wm_ld(&g.out_off[s]), oe = wm_ld(&g.out_off[s + 1]);
        for (uint32_t k = ob; k < oe; ++k) {
            const uint32_t p = wm_ld(&g.out_ids[k]);
            const uint32_t end = i + 1 + pos_delta;
            if (end < wm_ld(&v.pat_lo[p]) || end > wm_ld(&v.pat_hi[p])) continue;
            const uint32_t len = wm_ld(&v.pat_len[p]);
            if (len > v.key_len) { // verify the bytes before the key
                if (i + 1 - seg_begin < len) continue;
                const uint8_t *pb = v.pat_bytes + wm_ld(&v.pat_boff[p]);
                const uint32_t start = i + 1 - len, n = len - v.key_len;
                bool ok = true;
                for (uint32_t j = 0; j < n && ok; ++j) {
                    uint8_t t = text(start + j), q = wm_ld(&pb[j]);
                    if (g.fold) { t = fold_ascii(t); q = fold_ascii(q); }
                    ok = t == q;
                }
                if (!ok) continue;
            }
            emit(p, end);
        }
    }
}

} // namespace wm::gpu
