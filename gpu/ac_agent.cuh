// gpu/ac_agent.cuh - block-level algorithm of the Aho-Corasick scan kernels.
//
// A block takes BLOCK tiles (one per thread; a warp's 32 spread over the
// unit, tuning::kLaneTileStride) per work unit and loops over units
// grid-stride (persistent grid, so Count flushes its shared counters once per
// block). Per unit: stage the unit's bytes, plus up to
// kStageBefore bytes of look-back, into shared memory with coalesced 16-byte
// loads; each thread then walks its tile and its run-out for a pair of groups
// side by side (ac_step of ac_walk.cuh), reading bytes outside the staged
// window from global memory.
// Match output is deferred: a step that lands on a state with outputs
// appends (position, state, lane), and with one group the case history, to
// a per-warp queue in shared memory (one ballot per group and step), and the
// warp drains the queue together, its output items spread one per lane
// (drain()). Emitting in place made the whole warp wait
// on one lane's chain of dependent loads (output list, pattern bounds,
// leading-byte check) on almost every step: with ET Open on real traffic
// ~0.2 steps per lane land on an output state, so some lane of 32 almost
// always does. The walk is warp-synchronous for this: the warp steps until
// its last lane is done, each lane idle past its own end.
// SetKeys dedupes in a shared table per unit; at the end of the unit the keys
// of payloads that other units share go through a chunk-wide global table, the
// rest straight to the output (ac_set_hash.cuh); Count with many patterns
// sums in a shared (pattern, count) table per unit likewise. Positions stages
// a warp's records in shared memory and writes them into a slab of output
// slots the warp reserved (flush_positions()).
#pragma once

#include "gpu/ac_kernels.h"
#include "gpu/ac_positions_order.h"
#include "gpu/ac_set_hash.cuh"
#include "gpu/ac_tuning.h"
#include "gpu/ac_walk.cuh"

namespace wm::gpu {

// KIND:   what a match produces (records, set keys, counters).
// StateT: the blob's state id type (uint16_t / uint32_t).
// NG:     groups walked side by side: 1 (one case-folded automaton, whose
//         exact-case outputs need the case history) or 2 (case and nocase
//         apart, no kOutCase outputs: no history kept).
// SPARSE: false when every state has a dense row (ac_all_dense): no sparse step.
// BLOCK:  threads per block; TILE: bytes per thread.
template <EmitKind KIND, typename StateT, uint32_t NG, bool SPARSE, uint32_t BLOCK, uint32_t TILE> struct AcAgent {
    static_assert(NG == 1 || NG == 2, "one group or a pair");
    static constexpr bool kCaseHistory = NG == 1;
    // SetKeys with one group of 32-bit states: the one-byte literals come from
    // a lane register, not from hits (ac_blob.h; the blob may have none).
    static constexpr bool kOneByte = KIND == EmitKind::SetKeys && NG == 1 && sizeof(StateT) == 4;
    static constexpr uint32_t kCaseQueue = kCaseHistory ? tuning::kWarpQueue : 1;
    static constexpr uint32_t kOutStage = KIND == EmitKind::Positions ? tuning::kPositionsStage : 1;
    static_assert(KIND != EmitKind::Positions || kOutStage > 32, "a flush must reserve more than one round");
    static constexpr uint32_t kStage = BLOCK * TILE + tuning::kStageBefore + 32;
    static_assert(kStage % 16 == 0, "staging buffer holds whole 16-byte vectors");
    // Every byte a walk steps on is staged, so the walk reads shared memory
    // without a range check: a unit's tiles are contiguous (at most BLOCK *
    // TILE bytes), the window starts kStageBefore bytes before them (rounded
    // down to 16) and ends a key after them (ac_prepare_kernels refuses keys
    // longer than kKeyBytes), and a continuation's warm-up reaches key - 1
    // bytes back.
    static_assert(kStage >= ((tuning::kStageBefore + 15 + BLOCK * TILE + tuning::kKeyBytes + 15) & ~15u),
                  "a unit's tiles and run-outs fit the staging buffer");
    static_assert(tuning::kStageBefore >= tuning::kKeyBytes - 1, "a continuation's warm-up is staged");
    static constexpr uint32_t kQueueStateMask = (1u << tuning::kQueueStateBits) - 1;
    static constexpr uint32_t kNoPayload = ~0u; // payload 2^32-1 never occurs (kEmptyKey)
    static_assert(tuning::kQueueStateBits == 26, "queue entry: state 26 bits, group bit 26, lane bits 27-31");

    struct TempStorage {
        alignas(16) uint8_t text[kStage];
        uint8_t class_map[NG][256];
        uint2 queue[BLOCK / 32][tuning::kWarpQueue]; // (chunk-local byte, state | group << 26 | lane << 27)
        uint32_t queue_case[BLOCK / 32][kCaseQueue]; // the entry's case history (ac_case_history)
        Match out[BLOCK / 32][kOutStage];            // Positions: the warp's records not yet written
        uint32_t lo, hi;
        uint32_t unit; // the block's next unit (p.d_next_unit)
        // SetKeys: the payloads of the unit's first and last tile when they
        // have tiles in other units too (else kNoPayload): flush_set()
        uint32_t shared_payload[2];
        uint32_t set_first; // SetKeys: the payload of the unit's first tile (level-1 keys count from it)
    };
    static_assert(sizeof(TempStorage) <= 48 * 1024, "static shared memory over 48 KB");
    // Dynamic shared memory at most (ac_dispatch.cu sizes it): the Set table,
    // Count's table or per-pattern counters (no bigger than the table).
    static constexpr size_t kDynBytes = KIND == EmitKind::SetKeys ? tuning::kSetHashBytes
                                        : KIND == EmitKind::Count ? tuning::kCountHashBytes
                                                                  : 0;
    static_assert((sizeof(TempStorage) + kDynBytes + tuning::kSmemReservedPerBlock) * tuning::kMinBlocksPerSm <=
                      tuning::kSmemPerSmBytes,
                  "kMinBlocksPerSm blocks must fit the shared-memory carveout that leaves L1 its share");

    TempStorage &tmp;
    const ScanParams &p;
    uint32_t *s_counters;        // Count, kCountDirect: num_patterns entries; kCountHashed: kCountHashSlots
                                 // pattern ids (kEmptyPattern: free), then as many counts
    uint32_t *s_hash;            // SetKeys: kSetHashSlots level-1 keys (ac_set_keys.h)
    uint32_t out_staged = 0;     // Positions: records in this warp's tmp.out (warp-uniform)
    uint32_t slab_next = 0, slab_left = 0; // Positions: the warp's reserved, unwritten output slots (warp-uniform)

    // dyn: [in] dynamic shared memory (Count counters or the SetKeys table).
    __device__ AcAgent(TempStorage &t, const ScanParams &params, uint32_t *dyn)
        : tmp(t), p(params), s_counters(dyn), s_hash(dyn) {}

    // SetKeys: appends the unit's distinct keys to the output and empties the
    // shared table. Only a key of a payload with tiles in other units too (at
    // most the unit's first and last payload, tmp.shared_payload) is claimed
    // in the chunk-wide table first; every other key is final as it is (see
    // ac_set_hash.cuh). Claiming every key had cost the full ET set 19% of
    // the Set kernel's time (82.7 -> 102.2 GB/s on an H100, run 116: a 1 GB
    // chunk's table is far bigger than L2, and the block waits at the unit's
    // end on each CAS). A warp reserves its keys' output slots with one atomic.
    __device__ void flush_set() {
        // Four slots per lane and round (one 16-byte load and store): a
        // sparse table of 1024 slots is one round, not four.
        constexpr uint32_t kPerLane = 4;
        static_assert(tuning::kSetHashSlots % (BLOCK * kPerLane) == 0, "every lane of a warp takes part in each round");
        const uint32_t shared_lo = tmp.shared_payload[0], shared_hi = tmp.shared_payload[1];
        const uint32_t first = tmp.set_first, bits = set_pattern_bits(p.view.num_patterns);
        const uint32_t lane = threadIdx.x & 31;
        for (uint32_t j = threadIdx.x * kPerLane; j < tuning::kSetHashSlots; j += BLOCK * kPerLane) {
            uint4 *slots = reinterpret_cast<uint4 *>(&s_hash[j]);
            const uint4 v = *slots;
            const uint32_t k[kPerLane] = {v.x, v.y, v.z, v.w};
            unsigned long long key[kPerLane];
            bool append[kPerLane];
            uint32_t n = 0;
            WM_UNROLL for (uint32_t q = 0; q < kPerLane; ++q) {
                key[q] = set_full_key(k[q], first, bits);
                const uint32_t payload = static_cast<uint32_t>(key[q] >> 32);
                append[q] = k[q] != kEmptySetSlot &&
                            ((payload != shared_lo && payload != shared_hi) ||
                             set_global_claim<tuning::kSetGlobalProbes>(key[q], p.d_hash, p.hash_mask, p.d_count));
                n += append[q];
            }
            if ((v.x & v.y & v.z & v.w) != kEmptySetSlot) *slots = make_uint4(~0u, ~0u, ~0u, ~0u);
            uint32_t incl = n; // inclusive scan of the lanes' key counts
            WM_UNROLL for (uint32_t d = 1; d < 32; d <<= 1) {
                const uint32_t t = __shfl_up_sync(~0u, incl, d);
                if (lane >= d) incl += t;
            }
            uint32_t idx = reserve_warp_slots(__shfl_sync(~0u, incl, 31)) + incl - n;
            WM_UNROLL for (uint32_t q = 0; q < kPerLane; ++q)
                if (append[q]) {
                    if (idx < p.capacity) p.d_keys[idx] = key[q];
                    ++idx;
                }
        }
    }

    // Count, kCountHashed: adds the unit's counts to the totals, empties the table.
    __device__ void flush_counts() {
        uint32_t *counts = s_counters + tuning::kCountHashSlots;
        for (uint32_t j = threadIdx.x; j < tuning::kCountHashSlots; j += BLOCK) {
            const uint32_t pattern = s_counters[j];
            if (pattern == kEmptyPattern) continue;
            atomicAdd(&p.d_counters[pattern], static_cast<unsigned long long>(counts[j]));
            s_counters[j] = kEmptyPattern;
            counts[j] = 0;
        }
    }

    // The first of n output slots reserved for the warp on the chunk's
    // counter p.d_count[0], with one atomic (none when n is 0). n is
    // warp-uniform; warp-collective.
    __device__ uint32_t reserve_warp_slots(uint32_t n) const {
        uint32_t base = 0;
        if ((threadIdx.x & 31) == 0 && n) base = atomicAdd(p.d_count, n);
        return __shfl_sync(~0u, base, 0);
    }

    // Positions: writes this warp's n staged records to the output, into
    // the warp's slab of output slots; when they do not fit its rest, that
    // rest becomes a hole and a new slab of p.positions_slab is reserved
    // with one atomic (records past p.capacity are counted, not written: the
    // host rescans with a bigger buffer). An atomic per flush (every ~32
    // records), whose result the warp waited on, and the registers of that
    // path (ptxas spilled in the walk loop) had held the full ET set's
    // Positions kernel at 82 GB/s; with slabs it runs 117 (H200, runs 131-134;
    // 115 when records filled a slab's rest). Warp-collective.
    __device__ void flush_positions(uint32_t n) {
        __syncwarp();
        const uint32_t lane = threadIdx.x & 31;
        if (n > slab_left) { // the slab's rest (< kOutStage slots) becomes a hole, a new slab takes the n records
            // Two predicated stores, not fill_hole()'s loop: with the loop here ptxas spilled.
            static_assert(kOutStage <= 64, "two rounds of the warp fill a slab's rest");
            const Match hole{kHolePattern, 0, 0};
            if (lane < slab_left && slab_next + lane < p.capacity) p.d_matches[slab_next + lane] = hole;
            if (lane + 32 < slab_left && slab_next + lane + 32 < p.capacity) p.d_matches[slab_next + lane + 32] = hole;
            if (lane == 0 && slab_left) atomicAdd(p.d_count + 2, slab_left);
            slab_next = reserve_warp_slots(p.positions_slab);
            slab_left = p.positions_slab;
        }
        const uint32_t base = slab_next;
        slab_next += n, slab_left -= n;
        const uint32_t fit = base < p.capacity ? min(n, p.capacity - base) : 0;
        const uint32_t *src = reinterpret_cast<const uint32_t *>(tmp.out[threadIdx.x >> 5]);
        uint32_t *dst = reinterpret_cast<uint32_t *>(p.d_matches + base);
        constexpr uint32_t kWords = sizeof(Match) / 4;
        // Not unrolled: an unrolled copy's registers made ptxas spill in the
        // drain it is inlined into (run 126).
#pragma unroll 1
        for (uint32_t w = lane; w < kWords * fit; w += 32) dst[w] = src[w]; // coalesced words
        __syncwarp();
    }

    // Positions: n reserved slots from `at` that no record will take become
    // holes (pattern kHolePattern), counted in p.d_count[2], which the host
    // leaves out (ac_positions_order.h). Warp-collective.
    __device__ void fill_hole(uint32_t at, uint32_t n) {
        const uint32_t lane = threadIdx.x & 31;
        for (uint32_t r = lane; r < n; r += 32)
            if (at + r < p.capacity) p.d_matches[at + r] = Match{kHolePattern, 0, 0};
        if (lane == 0 && n) atomicAdd(p.d_count + 2, n);
    }

    // Positions: appends the lanes' records that are `ok` to the warp's
    // stage, flushing it once another round could overflow it. With one
    // atomic per round of records, all on one counter, Positions ran ~30%
    // behind Count on the full ET set (0.34 matches per byte); the stage
    // gained 8% at equal L1 (run 108). Warp-collective.
    __device__ void stage_position(bool ok, const Match &m) {
        const uint32_t mask = __ballot_sync(~0u, ok);
        if (ok) tmp.out[threadIdx.x >> 5][out_staged + __popc(mask & lanemask_lt())] = m;
        out_staged += __popc(mask);
        if (out_staged > kOutStage - 32) {
            flush_positions(out_staged);
            out_staged = 0;
        }
    }

    __device__ void emit(uint32_t pattern, uint32_t payload, uint32_t end, unsigned long long &last_key) {
        if constexpr (KIND == EmitKind::SetKeys) {
            const unsigned long long key = (static_cast<unsigned long long>(payload) << 32) | pattern;
            if (key == last_key) return; // a thread's repeats cost no atomics at all
            last_key = key;
            const uint32_t k = set_unit_key(payload, pattern, tmp.set_first, set_pattern_bits(p.view.num_patterns));
            if (k == kEmptySetSlot || !set_shared_insert<tuning::kSetHashSlots, tuning::kSetHashProbes>(k, s_hash))
                set_global_insert<tuning::kSetGlobalProbes>(key, p.d_hash, p.hash_mask, p.d_keys, p.capacity, p.d_count);
        } else {
            if (p.count_counters == kCountDirect) atomicAdd(&s_counters[pattern], 1u);
            else if (p.count_counters != kCountHashed ||
                     !count_shared_add<tuning::kCountHashSlots, tuning::kCountHashProbes>(pattern, s_counters))
                atomicAdd(&p.d_counters[pattern], 1ull);
        }
    }

    // Emits the first n entries of this warp's queue. Per round of 32 queue
    // entries, each lane reads one entry's output-list bounds, then the
    // warp spreads the round's output items over its lanes, one item per
    // lane (an item's entry is found by binary search over the warp's scan of
    // list lengths): the warp waits on one out_ids load per 32 items, not on
    // its longest list. An item's lane reads its entry from the queue and
    // takes the segment fields from the lane that queued it (fewer registers
    // held through the drain than each entry's fields shuffled twice).
    // Warp-collective.
    template <typename TextFn>
    __device__ void drain(uint32_t g0, uint32_t n, const Segment &sg, uint32_t te, TextFn text) {
        unsigned long long last_key = kEmptyKey; // emit()'s repeat filter; held across the walk it took two registers
        const uint32_t lane = threadIdx.x & 31;
        const uint2 *q = tmp.queue[threadIdx.x >> 5];
        const uint32_t *qc = tmp.queue_case[threadIdx.x >> 5];
        __syncwarp();
        for (uint32_t r = 0; r < n; r += 32) {
            const bool valid = r + lane < n;
            const uint2 e = valid ? q[r + lane] : make_uint2(0, lane << 27);
            const uint32_t tile_end = __shfl_sync(~0u, te, e.y >> 27);
            uint32_t ob = 0, cnt = 0;
            if (valid) {
                const AcGroupView &g = p.view.groups[g0 + (NG == 1 ? 0 : (e.y >> 26) & 1u)];
                const uint32_t st = e.y & kQueueStateMask;
                ob = wm_ld(&g.out_off[st]);
                cnt = ac_may_own_outputs(g, st, e.x, tile_end) ? wm_ld(&g.out_off[st + 1]) - ob : 0;
            }
            uint32_t incl = cnt; // inclusive scan of list lengths
            WM_UNROLL for (uint32_t d = 1; d < 32; d <<= 1) {
                const uint32_t t = __shfl_up_sync(~0u, incl, d);
                if (lane >= d) incl += t;
            }
            const uint32_t total = __shfl_sync(~0u, incl, 31);
            const uint32_t first = incl - cnt; // this entry's first item
            for (uint32_t base = 0; base < total; base += 32) {
                const uint32_t j = base + lane;
                uint32_t k = 0; // entry owning item j: first lane with incl > j
                WM_UNROLL for (uint32_t step = 16; step; step >>= 1)
                    if (__shfl_sync(~0u, incl, k + step - 1) <= j) k += step;
                const uint32_t item = j - __shfl_sync(~0u, first, k) + __shfl_sync(~0u, ob, k);
                const uint32_t slot = r + (j < total ? k : 0); // lanes past the items read a queued entry too
                const uint2 ek = q[slot];
                const uint32_t owner = ek.y >> 27;
                const uint32_t sb = __shfl_sync(~0u, sg.data_begin, owner);
                const uint32_t pd = __shfl_sync(~0u, sg.pos_base - sg.data_begin, owner);
                const uint32_t pl = __shfl_sync(~0u, sg.payload, owner), tend = __shfl_sync(~0u, te, owner);
                Match found{0, pl, 0};
                bool ok = false;
                if (j < total) {
                    const AcGroupView &g = p.view.groups[g0 + (NG == 1 ? 0 : (ek.y >> 26) & 1u)];
                    const uint32_t e = wm_ld(&g.out_ids[item]);
                    if (!(kOneByte && (e & kOutOneByte))) // kOneByte: the register reports these
                        ac_emit_entry(p.view, g, e, ek.x, text, sb, pd, tend,
                                      kCaseHistory ? qc[slot] : 0u, [&](uint32_t pat, uint32_t end) {
                                          if constexpr (KIND == EmitKind::Positions) found.pattern = pat, found.end = end, ok = true;
                                          else emit(pat, pl, end, last_key);
                                      });
                }
                if constexpr (KIND == EmitKind::Positions) stage_position(ok, found);
            }
        }
        __syncwarp();
    }

    // Lanes below this one in the warp (one special-register read).
    __device__ static uint32_t lanemask_lt() {
        uint32_t m;
        asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
        return m;
    }

    // Walks groups [G0, G0 + NG) over this lane's tile and its run-out
    // (inactive lanes: no steps) and emits every match the tile owns
    // (ac_walk.cuh, "Ownership"). Warp-collective: the warp steps until its
    // last lane is done. step_text reads the staged window unchecked (see
    // kStage), text also bytes before it (the drain's leading-byte checks).
    // Every instruction in the step loop runs once per byte, so it is kept
    // lean: the range check of each byte, the tile-start and segment-end
    // tests inside the tile, the drain inside the loop and the queue fields
    // shuffled twice had made 174 warp instructions per warp step, now 150
    // (ncu, runs 195 and 198; Set +10% on the full ET set, runs 196-197).
    template <typename StepTextFn, typename TextFn>
    __device__ void walk_groups(uint32_t G0, bool active, const Segment &sg, uint32_t tb, uint32_t te,
                                StepTextFn step_text, TextFn text) {
        constexpr uint32_t F = out_flag<StateT>(), FP = state_flags<StateT>();
        const AcView &v = p.view;
        uint2 *q = tmp.queue[threadIdx.x >> 5];
        uint32_t *qc = tmp.queue_case[threadIdx.x >> 5];
        uint32_t i = active ? ac_walk_begin<NG>(v, G0, sg, tb) : 0; // from a continuation's context, else tb
        uint32_t hist = 0; // case history of the walk (kOutCase checks)
        // kOneByte: the classes of the bytes stepped (ac_class_bit), the
        // one-byte ones kept at the end (ac_blob.h).
        uint32_t one_bytes = 0;
        bool live = active;
        uint32_t s[NG];
        // SetKeys: the last plain state this lane queued, per group
        // (set_reports_hit; ET on real traffic: 30% of the case group's hits
        // are a repeat, 43% of its output items).
        uint32_t last_plain[NG];
        WM_UNROLL for (uint32_t k = 0; k < NG; ++k) s[k] = 0, last_plain[k] = 0;
        RunTrack run; // SetKeys: runs of one byte (ac_run_quiet)
        // A continuation's first tile warms up over its context first (no
        // hits: the piece before it reported them), so the step loop needs no
        // test of the tile's start.
        while (__any_sync(~0u, i < tb)) {
            if (i < tb) {
                const uint8_t b = step_text(i);
                ac_step_groups<StateT, NG, SPARSE>(v, G0, tmp.class_map + G0, s, b);
                if constexpr (kCaseHistory) hist = ac_case_history(hist, b);
                ++i;
            }
        }
        // Steps until the queue could overflow on the next step, then drains it
        // (the step loop holds no drain: one copy of it, and ptxas keeps more
        // of the walk's values in registers).
        uint32_t queued = 0; // warp-uniform
        bool any_live = __any_sync(~0u, live);
        while (any_live) {
            do {
                if (live) {
                    const uint8_t b = step_text(i);
                    if constexpr (kOneByte) one_bytes |= ac_class_bit(tmp.class_map[G0][b]);
                    ac_step_groups<StateT, NG, SPARSE>(v, G0, tmp.class_map + G0, s, b);
                    if constexpr (kCaseHistory) hist = ac_case_history(hist, b);
                }
                WM_UNROLL for (uint32_t k = 0; k < NG; ++k) {
                    const uint32_t x = s[k];
                    bool h = live && (x & F) != 0;
                    if constexpr (KIND == EmitKind::SetKeys) { // selects, no branch: set_reports_hit is branch-free
                        uint32_t lp = last_plain[k];
                        h = live && set_reports_hit<StateT>(x, lp);
                        last_plain[k] = live ? lp : last_plain[k];
                        // A run target's hit: a branch that only lanes on a run of one byte take.
                        if (h && (x & run_flag<StateT>()))
                            h = !ac_run_quiet(v, text, sg.data_begin, sg.pos_base - sg.data_begin, i, run);
                    }
                    const uint32_t mask = __ballot_sync(~0u, h), lt = lanemask_lt();
                    const uint32_t slot = queued + __popc(mask & lt);
                    if (h) {
                        // The lane as the popcount of the lane mask the slot
                        // used: ptxas re-read %tid for `lane` at every hit.
                        q[slot] = make_uint2(i, (x & ~FP) | (k << 26) | (__popc(lt) << 27));
                        if constexpr (kCaseHistory) qc[slot] = hist;
                    }
                    queued += __popc(mask);
                }
                ++i;
                // Inside the tile (i < te <= data_end) the lane goes on; past
                // it until the segment ends or no key of the tile can still end.
                if (live && i >= te) live = i < sg.data_end && !ac_walk_done<StateT, NG>(v, G0, s, i - te);
                any_live = __any_sync(~0u, live);
            } while (any_live && queued <= tuning::kWarpQueue - 32 * NG);
            drain(G0, queued, sg, te, text);
            queued = 0;
        }
        // Once per tile into its payload's word, made into keys after the
        // kernel (ac_one_byte_keys). Indexed by the payload, not the segment:
        // a segment index held through the walk made ptxas spill.
        if constexpr (kOneByte) {
            one_bytes &= ac_one_byte_mask(v.groups[G0].byte_classes);
            if (one_bytes) atomicOr(&p.d_one_byte[sg.payload - p.one_byte_first], one_bytes);
        }
    }

    // This thread's tile of a unit: its segment and bytes [tb, te).
    struct UnitTile {
        uint32_t tile, last; // the tile, the unit's last tile
        bool active;         // tile <= last (a chunk's last unit can be short)
        Segment sg;
        uint32_t tb, te;
    };
    __device__ UnitTile locate_tile(uint32_t unit, uint32_t num_tiles) const {
        static_assert((BLOCK & (BLOCK - 1)) == 0, "the lane stride permutes a power-of-two unit");
        static_assert(BLOCK == tuning::kBlockThreads, "the unit index counts units of kBlockThreads tiles");
        UnitTile at{};
        if (unit >= (num_tiles + BLOCK - 1) / BLOCK) return at; // past the chunk: no unit
        // Spread: a warp's lanes take tiles across the unit (thread 0 the first).
        at.tile = unit * BLOCK + ((threadIdx.x * tuning::kLaneTileStride) & (BLOCK - 1));
        at.last = min(num_tiles, (unit + 1) * BLOCK) - 1;
        at.active = at.tile <= at.last;
        if (at.active) { // within the unit's segments when the chunk has a unit index
            at.sg = p.d_segs[p.d_unit_index ? find_segment_of_unit(p.d_segs, p.num_segs, p.d_unit_index, unit, at.tile)
                                            : find_segment(p.d_segs, p.num_segs, at.tile)];
            tile_bounds(at.sg, at.tile, TILE, &at.tb, &at.te);
        }
        return at;
    }

    __device__ static uint32_t global_ns() {
        unsigned long long t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        return static_cast<uint32_t>(t);
    }
    __device__ static uint32_t sm_id() {
        uint32_t id;
        asm("mov.u32 %0, %%smid;" : "=r"(id));
        return id;
    }

    __device__ void run() {
        const AcView &v = p.view;
        const uint32_t block_start = p.d_unit_trace ? global_ns() : 0;
        for (uint32_t i = threadIdx.x; i < NG * 256; i += BLOCK)
            tmp.class_map[i >> 8][i & 255] = v.groups[i >> 8].class_map[i & 255];
        if (KIND == EmitKind::Count && p.count_counters == kCountDirect)
            for (uint32_t i = threadIdx.x; i < v.num_patterns; i += BLOCK) s_counters[i] = 0;
        if (KIND == EmitKind::Count && p.count_counters == kCountHashed)
            for (uint32_t i = threadIdx.x; i < tuning::kCountHashSlots; i += BLOCK)
                s_counters[i] = kEmptyPattern, s_counters[tuning::kCountHashSlots + i] = 0;
        if constexpr (KIND == EmitKind::SetKeys)
            for (uint32_t i = threadIdx.x; i < tuning::kSetHashSlots; i += BLOCK) s_hash[i] = kEmptySetSlot;
        __syncthreads();

        const uint32_t num_tiles = p.d_num_tiles ? *p.d_num_tiles : p.num_tiles;
        const uint32_t units = (num_tiles + BLOCK - 1) / BLOCK;
        // Units are 256 tiles; their cost varies (tiny payloads, match-dense
        // text), so a short launch balances them by handing them out. Thread
        // 0 claims a block's units one ahead, and each thread finds its tile
        // of the next unit right after its walk, so neither the claim's atomic
        // nor the segment search waits at the unit's end with the whole block
        // (run 211, H100: Count +2%, Positions +1.5%). Every block starts on
        // unit blockIdx.x and the counter hands out the rest: when it handed
        // out the first two units together, a launch of fewer than two units
        // per block (a replay's window: 16 MB) left half of its blocks idle
        // (run 345: 10 MB chunks 0.55 ms against 0.37 ms with fixed strides).
        const bool handed_out = p.d_next_unit != nullptr;
        uint32_t unit = blockIdx.x, next = blockIdx.x + gridDim.x;
        if (handed_out) {
            if (threadIdx.x == 0) tmp.unit = gridDim.x + atomicAdd(p.d_next_unit, 1u);
            __syncthreads();
            next = tmp.unit;
        }
        UnitTile at = locate_tile(unit, num_tiles);
        while (unit < units) {
            const uint32_t unit_ns = p.d_unit_trace ? global_ns() : 0;
            const long long unit_clock = p.d_unit_trace ? clock64() : 0;
            uint32_t claim = units; // thread 0: the unit after next
            if (threadIdx.x == 0) {
                tmp.lo = (at.tb > tuning::kStageBefore ? at.tb - tuning::kStageBefore : 0) & ~15u;
                tmp.shared_payload[0] = at.sg.tile_begin < at.tile ? at.sg.payload : kNoPayload;
                tmp.set_first = at.sg.payload; // every payload of the unit's tiles is at or after it
                if (handed_out && next < units) claim = gridDim.x + atomicAdd(p.d_next_unit, 1u);
            }
            if (at.tile == at.last) {
                tmp.hi = min(at.sg.data_end, at.te + v.key_len); // and its run-out
                tmp.shared_payload[1] = at.te < at.sg.data_end ? at.sg.payload : kNoPayload; // tiles after the unit
            }
            __syncthreads();
            const uint32_t lo = tmp.lo;
            const uint32_t staged = min((tmp.hi - lo + 15) & ~15u, kStage);
            const uint4 *src = reinterpret_cast<const uint4 *>(p.d_text + lo);
            uint4 *dst = reinterpret_cast<uint4 *>(tmp.text);
            for (uint32_t k = threadIdx.x; k < staged / 16; k += BLOCK) dst[k] = __ldg(&src[k]);
            __syncthreads();

            {
                const uint8_t *s_text = tmp.text;
                const uint8_t *d_text = p.d_text;
                auto text = [=](uint32_t i) -> uint8_t {
                    const uint32_t r = i - lo;
                    return r < staged ? s_text[r] : __ldg(&d_text[i]);
                };
                auto step_text = [=](uint32_t i) -> uint8_t { return s_text[i - lo]; };
                // NG groups from group 0, a constant (see walk_groups).
                walk_groups(0, at.active, at.sg, at.tb, at.te, step_text, text);
            }
            // While the block's other warps walk; Set after its flush, whose
            // registers with these made ptxas spill (Set -1%, run 211).
            if constexpr (KIND != EmitKind::SetKeys) at = locate_tile(next, num_tiles);
            __syncthreads();
            if constexpr (KIND == EmitKind::SetKeys) flush_set(); // next unit's barriers order the clearing
            if (KIND == EmitKind::Count && p.count_counters == kCountHashed) flush_counts(); // likewise
            // The barrier also holds thread 0's writes for the next unit until
            // the last flush of this one has read tmp.
            if (handed_out && threadIdx.x == 0) tmp.unit = claim;
            if (p.d_unit_trace && threadIdx.x == 0)
                p.d_unit_trace[unit] = make_uint4(blockIdx.x, sm_id(), unit_ns,
                                                  static_cast<uint32_t>(clock64() - unit_clock));
            __syncthreads();
            unit = next;
            next = handed_out ? tmp.unit : next + gridDim.x;
            if constexpr (KIND == EmitKind::SetKeys) at = locate_tile(unit, num_tiles);
        }
        if constexpr (KIND == EmitKind::Positions) {
            flush_positions(out_staged);
            fill_hole(slab_next, slab_left); // the last slab's rest
        }
        if (KIND == EmitKind::Count && p.count_counters == kCountDirect) {
            for (uint32_t i = threadIdx.x; i < v.num_patterns; i += BLOCK)
                if (s_counters[i]) atomicAdd(&p.d_counters[i], static_cast<unsigned long long>(s_counters[i]));
        }
        if (p.d_unit_trace && threadIdx.x == 0) // the host's bound on units: the blocks' records follow
            p.d_unit_trace[(p.num_tiles + BLOCK - 1) / BLOCK + blockIdx.x] =
                make_uint4(blockIdx.x, sm_id(), block_start, global_ns());
    }
};

} // namespace wm::gpu
