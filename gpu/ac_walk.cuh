// gpu/ac_walk.cuh - per-thread Aho-Corasick scanning, shared by the CUDA
// kernels and the CPU walk (ac_cpu_walk.cpp, compiled by g++): every function
// is __host__ __device__ under nvcc and plain inline otherwise.
#pragma once

#include "gpu/ac_blob.h"
#include "gpu/ac_plan.h"

#include <cstdint>

// Unrolls the per-group loops (register arrays indexed by constants only).
#ifdef __CUDACC__
#define WM_UNROLL _Pragma("unroll")
#else
#define WM_UNROLL
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

// Segment owning chunk-local tile `tile` (largest s with tile_begin <= tile)
// among segs[lo, hi), given segs[lo].tile_begin <= tile and, unless hi is
// the segment count, tile < segs[hi].tile_begin.
WM_HD inline uint32_t find_segment_in(const Segment *segs, uint32_t lo, uint32_t hi, uint32_t tile) {
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) >> 1;
        if (wm_ld(&segs[mid].tile_begin) <= tile) lo = mid;
        else hi = mid;
    }
    return lo;
}

// Segment owning chunk-local tile `tile`. segs: [in] the chunk's segments, nsegs >= 1.
WM_HD inline uint32_t find_segment(const Segment *segs, uint32_t nsegs, uint32_t tile) {
    return find_segment_in(segs, 0, nsegs, tile);
}

// The unit index of a chunk: entry u (0 <= u <= units, units = ceil(tiles /
// unit_tiles)) is the segment of unit u's first tile, or of the last tile for
// u = units, so a unit's tiles lie in segments [index[u], index[u + 1]].
// Each thread of a unit had searched all of a 1 GB chunk's ~5 M segments:
// ~22 dependent loads that held the whole block at every unit's start.
// Written segment by segment where the segments are made (no search):
// segment `seg` owns tiles [tile_begin, tile_end) of the chunk's `tiles`.
WM_HD inline void unit_index_from_segment(uint32_t seg, uint32_t tile_begin, uint32_t tile_end, uint32_t tiles,
                                          uint32_t unit_tiles, uint32_t *index) {
    if (tile_begin >= tile_end) return; // no tiles: never a search's answer
    for (uint32_t u = (tile_begin + unit_tiles - 1) / unit_tiles; uint64_t{u} * unit_tiles < tile_end; ++u)
        index[u] = seg;
    if (tile_end == tiles) index[(tiles + unit_tiles - 1) / unit_tiles] = seg;
}

// The unit index of segs[nsegs] (index: [out] units + 1 words), each
// segment's tiles running to the next segment's first tile.
WM_HD inline void unit_index_of_segments(const Segment *segs, uint32_t nsegs, uint32_t tiles, uint32_t unit_tiles,
                                         uint32_t *index) {
    for (uint32_t k = 0; k < nsegs; ++k)
        unit_index_from_segment(k, segs[k].tile_begin, k + 1 < nsegs ? segs[k + 1].tile_begin : tiles, tiles,
                                unit_tiles, index);
}

// Segment owning tile `tile` of unit `u`, searched within the unit's segments (index: the unit index).
WM_HD inline uint32_t find_segment_of_unit(const Segment *segs, uint32_t nsegs, const uint32_t *index, uint32_t u,
                                           uint32_t tile) {
    const uint32_t lo = wm_ld(&index[u]), last = wm_ld(&index[u + 1]);
    return find_segment_in(segs, lo, last + 1 < nsegs ? last + 1 : nsegs, tile);
}

// Bytes [*begin, *end) (chunk-local) owned by tile `tile` of segment `sg`.
WM_HD inline void tile_bounds(const Segment &sg, uint32_t tile, uint32_t tile_bytes, uint32_t *begin,
                              uint32_t *end) {
    const uint32_t b = sg.data_begin + sg.skip + (tile - sg.tile_begin) * tile_bytes;
    *begin = b;
    *end = (sg.data_end - b > tile_bytes) ? b + tile_bytes : sg.data_end;
}

// Output flag carried in transition targets of StateT (see ac_blob.h).
template <typename StateT> WM_HD constexpr uint32_t out_flag() {
    return sizeof(StateT) == 2 ? kOutFlag16 : kOutFlag32;
}
// Plain flag (outputs, none checked), set only with out_flag.
template <typename StateT> WM_HD constexpr uint32_t plain_flag() {
    return sizeof(StateT) == 2 ? kOutPlain16 : kOutPlain32;
}
// "Outputs all one-byte literals" (32-bit dense targets only; see ac_blob.h).
template <typename StateT> WM_HD constexpr uint32_t one_byte_only_flag() {
    return sizeof(StateT) == 2 ? 0u : kOneByteOnly32;
}
// "A covered step" (32-bit dense entries only; see ac_blob.h).
template <typename StateT> WM_HD constexpr uint32_t covered_flag() {
    return sizeof(StateT) == 2 ? 0u : kCovered32;
}
// "A run target" (32-bit dense entries only; see ac_blob.h).
template <typename StateT> WM_HD constexpr uint32_t run_flag() {
    return sizeof(StateT) == 2 ? 0u : kRunStep32;
}
// Every flag: a target & ~state_flags is the bare state id.
template <typename StateT> WM_HD constexpr uint32_t state_flags() {
    return out_flag<StateT>() | plain_flag<StateT>() | one_byte_only_flag<StateT>() | covered_flag<StateT>() |
           run_flag<StateT>();
}

// Reads one sparse record (kSpRecordWords words, aligned to its size): on the
// device one 16-byte load per four words.
WM_HD inline void ac_load_record(const uint32_t *rec, uint32_t (&w)[kSpRecordWords]) {
#ifdef __CUDA_ARCH__
    WM_UNROLL for (uint32_t k = 0; k < kSpRecordWords / 4; ++k) {
        const uint4 a = __ldg(reinterpret_cast<const uint4 *>(rec) + k);
        w[4 * k] = a.x, w[4 * k + 1] = a.y, w[4 * k + 2] = a.z, w[4 * k + 3] = a.w;
    }
#else
    for (uint32_t k = 0; k < kSpRecordWords; ++k) w[k] = rec[k];
#endif
}

// Target (with StateT's output flag) held in a sparse entry.
template <typename StateT> WM_HD inline uint32_t ac_sparse_target(uint32_t e) {
    return (e & kSpIdMask) | ((e & kSpFlag) ? out_flag<StateT>() : 0u) | ((e & kSpPlain) ? plain_flag<StateT>() : 0u);
}

// ac_step's row indices are 32-bit (one multiply-add and one wide address add
// per step): at most kSpDenseMask + 1 dense rows of at most 256 classes.
static_assert(uint64_t{kSpDenseMask + 1} * 256 <= uint64_t{1} << 32, "dense table indices fit 32 bits");

// One DFA step from bare state id `s` on class `c`; returns the target with its
// output flag. Dense row for BFS-shallow states; a sparse state's record
// lists the classes where it differs from its dense fallback's row, so the
// step is one record load plus at most one dense load.
// StateT: uint16_t or uint32_t, the blob's state width.
// SPARSE: false when every state of the group has a dense row
// (ac_all_dense): the step is the dense load alone, with no test.
template <typename StateT, bool SPARSE = true> WM_HD inline uint32_t ac_step(const AcGroupView &g, uint32_t s, uint32_t c) {
    const StateT *dense = static_cast<const StateT *>(g.dense);
    if (!SPARSE || s < g.num_dense) return wm_ld(&dense[s * g.num_classes + c]);
    uint32_t w[kSpRecordWords];
    ac_load_record(g.sp_rec + (s - g.num_dense) * kSpRecordWords, w);
    if ((w[0] >> 24) != kSpOverflow) {
        uint32_t hit = 0;
        bool found = false;
        WM_UNROLL for (uint32_t k = 1; k < kSpRecordWords; ++k) if ((w[k] >> 24) == c) hit = w[k], found = true;
        if (found) return ac_sparse_target<StateT>(hit);
    } else { // entries sorted by class
        uint32_t lo = w[1], hi = w[1] + w[2];
        while (lo < hi) {
            const uint32_t mid = (lo + hi) >> 1, e = wm_ld(&g.sp_over[mid]);
            if ((e >> 24) == c) return ac_sparse_target<StateT>(e);
            if ((e >> 24) < c) lo = mid + 1;
            else hi = mid;
        }
    }
    return wm_ld(&dense[(w[0] & kSpDenseMask) * g.num_classes + c]);
}

WM_HD inline uint8_t fold_ascii(uint8_t c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

// Emits output entry `e` (an out_ids word) of a state reached after
// chunk-local byte i, if it passes its checks (bounds, then the leading bytes
// of a pattern longer than the key, or every byte of a case-sensitive pattern
// in a case-folded group); entries without kOutCheck need none.
// Past the tile (i >= tile_end, the walk's run-out) only keys that start
// inside the tile are its own: the next tile's walk reports the others.
// case_hist: bit 5 of the walk's last bytes, bit k for byte i - k
// (ac_case_history), for kOutCase entries.
template <typename TextFn, typename EmitFn>
WM_HD inline void ac_emit_entry(const AcView &v, const AcGroupView &g, uint32_t e, uint32_t i, TextFn text,
                                uint32_t seg_begin, uint32_t pos_delta, uint32_t tile_end, uint32_t case_hist,
                                EmitFn emit) {
    const uint32_t p = e & kOutIdMask, end = i + 1 + pos_delta;
    if (i >= tile_end) {
        const uint32_t len = wm_ld(&v.pat_len[p]), key = len < v.key_len ? len : v.key_len;
        if (i + 1 - tile_end >= key) return; // the key starts at or past tile_end
    }
    if (e & kOutCase) { // the key's letters in the pattern's case
        const uint32_t mask = wm_ld(&v.pat_case[2 * p]), want = wm_ld(&v.pat_case[2 * p + 1]);
        if ((case_hist ^ want) & mask) return;
    }
    if (e & kOutCheck) {
        if (end < wm_ld(&v.pat_lo[p]) || end > wm_ld(&v.pat_hi[p])) return;
        const uint32_t len = wm_ld(&v.pat_len[p]), boff = wm_ld(&v.pat_boff[p]);
        // Exact case without the history's help: every byte, exactly.
        const bool exact = (boff & kPatExact) != 0, all = exact && !(e & kOutCase);
        if (len > v.key_len || all) { // verify the bytes before the key, or all of them
            if (i + 1 - seg_begin < len) return;
            const uint8_t *pb = v.pat_bytes + (boff & ~kPatExact);
            const uint32_t start = i + 1 - len, n = all ? len : len - v.key_len;
            const bool fold = g.fold && !exact;
            for (uint32_t j = 0; j < n; ++j) {
                uint8_t t = text(start + j), q = wm_ld(&pb[j]);
                if (fold) { t = fold_ascii(t); q = fold_ascii(q); }
                if (t != q) return;
            }
        }
    }
    emit(p, end);
}

// Whether state s (bare id), reached after chunk-local byte i, has an output
// the tile may own: inside the tile any; in its run-out one whose key started
// before tile_end (ac_emit_entry's test, over the state's longest key). On
// real traffic a third of the run-out's hits have none (ET Open, zeek).
WM_HD inline bool ac_may_own_outputs(const AcGroupView &g, uint32_t s, uint32_t i, uint32_t tile_end) {
    if (i < tile_end) return true;
    const uint32_t mk = wm_ld(&g.max_key[s]);
    return mk >= kMaxKeySaturated || i + 1 - tile_end < mk;
}

// Emits the outputs of state `s` (bare id) reached after chunk-local byte i.
// Entries with a flag of `skip` (kOutOneByte in the Set walk) are left out.
template <typename TextFn, typename EmitFn>
WM_HD inline void ac_emit_state(const AcView &v, const AcGroupView &g, uint32_t s, uint32_t i, TextFn text,
                                uint32_t seg_begin, uint32_t pos_delta, uint32_t tile_end, uint32_t case_hist,
                                EmitFn emit, uint32_t skip = 0) {
    if (!ac_may_own_outputs(g, s, i, tile_end)) return;
    const uint32_t ob = wm_ld(&g.out_off[s]), oe = wm_ld(&g.out_off[s + 1]);
    for (uint32_t k = ob; k < oe; ++k) {
        const uint32_t e = wm_ld(&g.out_ids[k]);
        if (!(e & skip)) ac_emit_entry(v, g, e, i, text, seg_begin, pos_delta, tile_end, case_hist, emit);
    }
}

// The case history after byte b: a match's key lies inside the walk (a key
// of length L is output only at depth >= L), so its last 32 bytes are here.
// On the device a funnel shift takes bit 5 of b (moved to the top) into the
// history: two instructions for the three of the shift, mask and merge.
WM_HD inline uint32_t ac_case_history(uint32_t hist, uint8_t b) {
#ifdef __CUDA_ARCH__
    return __funnelshift_l(uint32_t{b} << 26, hist, 1);
#else
    return (hist << 1) | ((b >> 5) & 1u);
#endif
}

// Set semantics: whether a step that landed on target t (flags included),
// inside the tile, must report its outputs. A plain state (outputs, none
// checked) gives the same keys wherever it is reached in the payload, so it is
// reported once until another plain state comes; last_plain: 0 at the tile's
// start, then the last plain target reported.
// Written without branches: the Set kernel runs it per lane, group and step,
// and a divergent branch there cost more than the test (run 66).
// A target whose outputs are all one-byte literals is no hit: the walk's
// one-byte register reports them (ac_class_bit, ac_one_byte_mask). Nor is a
// covered step (ac_blob.h): the state before it reported the same outputs.
// Both flags cost nothing here: one mask of the same test.
template <typename StateT> WM_HD inline bool set_reports_hit(uint32_t t, uint32_t &last_plain) {
    constexpr uint32_t no_hit = one_byte_only_flag<StateT>() | covered_flag<StateT>();
    const bool out = (t & (out_flag<StateT>() | no_hit)) == out_flag<StateT>();
    const bool plain = (t & plain_flag<StateT>()) != 0; // plain implies out
    // last_plain is 0 or a plain target, so a target that is not plain differs from it.
    const bool report = out && t != last_plain;
    last_plain = plain ? t : last_plain;
    return report;
}

// Set semantics at a hit on a run target (kRunStep32, ac_blob.h): whether
// the step can be skipped, because the bytes [i - run_window, i] of the
// segment are all text(i) and the match end has passed run_min_end. Then
// every key the step would report matches at i - 1 in the same bytes (its
// pattern is at most run_window - 1 long) and within its bounds, so the tile
// owning it there reports it (or skips it for the same reason, down to the
// first byte where the window does not hold). The lane's RunTrack says how
// far back the run of its last run-target hit reached: a hit one byte later
// on the same byte extends it, any other looks back afresh (at most
// run_window bytes, once per run and lane).
struct RunTrack {
    uint32_t from = 0;            // the run's first byte (or run_window before `last`)
    uint32_t last = ~uint32_t{1}; // the byte of the last run-target hit; never i - 1 at first
};
template <typename TextFn>
WM_HD inline bool ac_run_quiet(const AcView &v, TextFn text, uint32_t seg_begin, uint32_t pos_delta, uint32_t i,
                               RunTrack &r) {
    const uint8_t b = text(i);
    if (i != r.last && (i != r.last + 1 || text(r.last) != b)) {
        const uint32_t floor = i - seg_begin > v.run_window ? i - v.run_window : seg_begin;
        uint32_t j = i;
        while (j > floor && text(j - 1) == b) --j;
        r.from = j;
    }
    r.last = i;
    return i - r.from >= v.run_window && i + pos_delta >= v.run_min_end;
}

// The one-byte register (ac_blob.h): a walk ORs in the bit of each byte's
// class c, 1 << c (0 for c >= 32; on the device one bmsk.clamp, which gives
// 0 there), and keeps the bits of the group's one-byte classes, which
// are numbered first, once at the tile's end: one instruction less per step
// than a masked bit.
WM_HD inline uint32_t ac_one_byte_mask(uint32_t classes) { return classes >= 32 ? ~0u : (1u << classes) - 1; }
WM_HD inline uint32_t ac_class_bit(uint32_t c) {
#ifdef __CUDA_ARCH__
    // One instruction with no register for the 1 (a shift of a constant
    // 1 made ptxas rematerialize the 1 in the step loop at 40 registers).
    uint32_t bit;
    asm("bmsk.clamp.b32 %0, %1, 1;" : "=r"(bit) : "r"(c));
    return bit;
#else
    return c < 32 ? 1u << c : 0u;
#endif
}

// The lowest class in the non-empty register `bits`.
WM_HD inline uint32_t ac_lowest_class(uint32_t bits) {
#ifdef __CUDA_ARCH__
    return __ffs(bits) - 1;
#else
    return static_cast<uint32_t>(__builtin_ctz(bits));
#endif
}

// Class c's one-byte literals (the blob's list: g.one_byte_lits) to emit(pattern).
template <typename EmitFn> WM_HD inline void ac_one_byte_literals(const AcGroupView &g, uint32_t c, EmitFn emit) {
    const uint32_t *ids = g.one_byte_lits + kMaxOneByteClasses + 1;
    for (uint32_t k = wm_ld(&g.one_byte_lits[c]); k < wm_ld(&g.one_byte_lits[c + 1]); ++k) emit(wm_ld(&ids[k]));
}

// Ownership: a tile reports the matches whose key (the last key_len bytes
// of the pattern, what the trie holds) starts inside it. Its walk starts
// from the root at tile_begin and runs past tile_end until no such key can
// still end (ac_walk_done), or to the segment's end: on real traffic a lane
// runs out ~1-2 bytes past its tile where a fixed warm-up of (key_len - 1)
// bytes before it cost 15 (a quarter of a 60-byte tile). The exception is
// the first tile of a continuation piece (a payload split across chunks): the
// piece before it ends its walks at its own end, so that tile warms up over
// its context and owns every key that ends at or after its start and starts
// before its end (the run-out test and the emit filter say "before
// tile_end", so keys begun in the context are held open like its own).

// First byte of a tile's walk for groups [g0, g0 + NG): tile_begin, or for
// a continuation piece's first tile (longest key - 1) bytes before it, never
// before the segment.
template <uint32_t NG>
WM_HD inline uint32_t ac_walk_begin(const AcView &v, uint32_t g0, const Segment &sg, uint32_t tile_begin) {
    if (sg.skip == 0 || tile_begin != sg.data_begin + sg.skip) return tile_begin;
    uint32_t warm = 0;
    WM_UNROLL for (uint32_t k = 0; k < NG; ++k) warm = warm > v.groups[g0 + k].key_len ? warm : v.groups[g0 + k].key_len;
    warm = warm ? warm - 1 : 0;
    return (tile_begin - sg.data_begin > warm) ? tile_begin - warm : sg.data_begin;
}

// Whether a walk that has consumed `past` bytes beyond its tile (byte
// tile_end + past - 1 last) can stop: every group's state is at most `past`
// bytes deep, so every key still open started at or after tile_end and
// belongs to the next tile. s[k]: group g0 + k's target, flags included.
template <typename StateT, uint32_t NG>
WM_HD inline bool ac_walk_done(const AcView &v, uint32_t g0, const uint32_t (&s)[NG], uint32_t past) {
    constexpr uint32_t FP = state_flags<StateT>();
    bool done = true;
    WM_UNROLL for (uint32_t k = 0; k < NG; ++k) {
        const AcGroupView &g = v.groups[g0 + k];
        done = done && (past >= g.key_len || (s[k] & ~FP) < wm_ld(&g.depth_end[past]));
    }
    return done;
}

// One byte for NG groups side by side (independent table loads: ILP). s[k]
// holds group g0 + k's last target, output flag included; class_maps[k] is
// that group's byte -> class map. SPARSE: see ac_step.
template <typename StateT, uint32_t NG, bool SPARSE = true>
WM_HD inline void ac_step_groups(const AcView &v, uint32_t g0, const uint8_t (*class_maps)[256], uint32_t (&s)[NG],
                                 uint8_t b) {
    constexpr uint32_t FP = state_flags<StateT>();
    WM_UNROLL for (uint32_t k = 0; k < NG; ++k) s[k] = ac_step<StateT, SPARSE>(v.groups[g0 + k], s[k] & ~FP, class_maps[k][b]);
}

// Scans one tile with NG groups walked side by side (their table loads are
// independent, so they overlap: ILP) and emits every match it owns (see
// "Ownership" above). Returns the bytes stepped.
//   NG         groups walked together: groups [g0, g0 + NG) of v
//   TextFn     text(i) -> uint8_t: chunk-local byte i (shared memory or global)
//   EmitFn     emit(pattern, end): end = exclusive payload offset
//   v          [in] blob view (pattern tables, groups)
//   class_maps [in] class_maps[k][b]: class of byte b in group g0 + k (shared memory on the device)
//   sg         [in] the tile's segment (payload or piece of one)
//   tile_begin, tile_end [in] the tile (tile_bounds())
//   SET        Set semantics: skip repeated plain states (set_reports_hit) and quiet run targets
//              (ac_run_quiet), as the Set kernel does
template <typename StateT, uint32_t NG, bool SET = false, typename TextFn, typename EmitFn>
WM_HD inline uint32_t ac_walk_tile_groups(const AcView &v, uint32_t g0, const uint8_t (*class_maps)[256],
                                          TextFn text, const Segment &sg, uint32_t tile_begin, uint32_t tile_end,
                                          EmitFn emit) {
    constexpr uint32_t F = out_flag<StateT>();
    const uint32_t i0 = ac_walk_begin<NG>(v, g0, sg, tile_begin), pos_delta = sg.pos_base - sg.data_begin;
    // Set, one group with one-byte classes: the register, as the kernel keeps
    // it (every byte stepped after the warm-up, run-out included: the same
    // payload's bytes), and the literals it reports left out of the hits.
    const uint32_t one_byte_classes = SET && NG == 1 ? v.groups[g0].byte_classes : 0;
    const uint32_t skip = one_byte_classes ? kOutOneByte : 0u;
    uint32_t i = i0, hist = 0, one_bytes = 0;
    RunTrack run; // Set: runs of one byte (ac_run_quiet)
    uint32_t s[NG], last_plain[NG];
    WM_UNROLL for (uint32_t k = 0; k < NG; ++k) s[k] = 0, last_plain[k] = 0;
    for (; i < tile_begin; ++i) {
        const uint8_t b = text(i);
        ac_step_groups<StateT, NG>(v, g0, class_maps, s, b);
        hist = ac_case_history(hist, b);
    }
    for (; i < sg.data_end; ++i) {
        const uint8_t b = text(i);
        if (one_byte_classes) one_bytes |= ac_class_bit(class_maps[0][b]);
        ac_step_groups<StateT, NG>(v, g0, class_maps, s, b);
        hist = ac_case_history(hist, b);
        WM_UNROLL for (uint32_t k = 0; k < NG; ++k)
            if (SET ? set_reports_hit<StateT>(s[k], last_plain[k]) &&
                          !((s[k] & run_flag<StateT>()) && ac_run_quiet(v, text, sg.data_begin, pos_delta, i, run))
                    : (s[k] & F) != 0)
                ac_emit_state(v, v.groups[g0 + k], s[k] & ~state_flags<StateT>(), i, text, sg.data_begin, pos_delta,
                              tile_end, hist, emit, skip);
        if (i + 1 >= tile_end && ac_walk_done<StateT, NG>(v, g0, s, i + 1 - tile_end)) {
            ++i;
            break;
        }
    }
    // The register's literals (the kernel: one word per payload, made into
    // keys after it; ac_one_byte_keys.cu). Reported at the tile's end: Set
    // keys carry no offset.
    for (one_bytes &= ac_one_byte_mask(one_byte_classes); one_bytes; one_bytes &= one_bytes - 1)
        ac_one_byte_literals(v.groups[g0], ac_lowest_class(one_bytes), [&](uint32_t p) { emit(p, tile_end + pos_delta); });
    return i - i0;
}

// Scans one tile for every group of v: pairs of groups side by side (the
// CPU walk; the kernels walk warp-synchronously with the same steps,
// ac_agent.cuh). Returns the bytes stepped (over all group pairs).
template <typename StateT, bool SET = false, typename TextFn, typename EmitFn>
WM_HD inline uint32_t ac_walk_tile_all(const AcView &v, const uint8_t (*class_maps)[256], TextFn text,
                                       const Segment &sg, uint32_t tile_begin, uint32_t tile_end, EmitFn emit) {
    uint32_t g = 0, steps = 0;
    for (; g + 2 <= v.num_groups; g += 2)
        steps += ac_walk_tile_groups<StateT, 2, SET>(v, g, class_maps + g, text, sg, tile_begin, tile_end, emit);
    if (g < v.num_groups)
        steps += ac_walk_tile_groups<StateT, 1, SET>(v, g, class_maps + g, text, sg, tile_begin, tile_end, emit);
    return steps;
}

} // namespace wm::gpu
