// gpu/run_literals_model.h - a study, not used by the matcher: the literals
// that are one byte repeated (drop_byte_runs' complement: 1-byte literals
// and runs such as |00 00 00| or "aaaa") found by a pass of their own that
// only tracks run lengths, instead of by the automaton. On ET Open over real
// traffic those 40 literals make 78% of the Set kernel's hits (PERFORMANCE.md
// run 259); a Set walk without them runs at its walk ceiling. The per-byte
// logic here is shared by bench_run_literals' kernel and its CPU model
// (__host__ __device__); tests/gpu checks the model against a naive search.
//
// Each payload gets a mask: bit i set when run literal i occurs in it (Set
// semantics). A literal b^k of exact case occurs where k bytes equal to b
// follow each other; a nocase one where k bytes equal b after ASCII folding.
#pragma once

#include "gpu/ac_bench_corpus.h" // is_byte_run
#include "gpu/ac_walk.cuh"        // fold_ascii, WM_HD

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace wm::gpu::study {

constexpr uint32_t kRunCap = 32;         // run lengths are counted up to this; longer literals are not run literals here
constexpr uint32_t kMaxRunLiterals = 64; // bits of a payload's mask
constexpr uint32_t kRunSlots = 32;       // byte values with run literals, per table (slot 0: none)

// Which run literals a run of length L (1..kRunCap) of a byte satisfies:
// masks by slot (exact bytes, and folded bytes for nocase letters) and L.
struct RunTables {
    // By byte: the slot of its exact-case literals (every non-letter literal
    // too) in bits 0-7, that of its folded byte's nocase letter literals in
    // bits 8-15 (0: none); one shared load per byte gives both.
    uint16_t slots[256];
    unsigned long long exact_mask[kRunSlots][kRunCap + 1];
    unsigned long long fold_mask[kRunSlots][kRunCap + 1];
};

// Whether l is one byte repeated (after folding when nocase) and short enough here.
inline bool is_run_literal(const Literal &l) { return l.bytes.size() <= kRunCap && bench::is_byte_run(l); }

// The tables of `runs` (every one is_run_literal; at most kMaxRunLiterals):
// bit i of a mask is runs[i].
inline RunTables run_tables(const std::vector<Literal> &runs) {
    if (runs.size() > kMaxRunLiterals) throw std::invalid_argument("run_tables: more than 64 run literals");
    RunTables t{};
    uint32_t exact_slots = 0, fold_slots = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
        const Literal &l = runs[i];
        if (!is_run_literal(l)) throw std::invalid_argument("run_tables: literal " + std::to_string(i) + " is no run");
        const auto b = static_cast<uint8_t>(l.bytes[0]);
        const bool folded = l.nocase && (b | 0x20) >= 'a' && (b | 0x20) <= 'z'; // nocase letters: the folded run
        const uint32_t shift = folded ? 8 : 0;
        uint32_t slot = (t.slots[b] >> shift) & 0xffu;
        if (slot == 0) {
            uint32_t &used = folded ? fold_slots : exact_slots;
            if (used + 1 >= kRunSlots) throw std::invalid_argument("run_tables: too many distinct bytes");
            slot = ++used;
            for (uint32_t v : {uint32_t{b}, folded ? uint32_t{b} ^ 0x20u : uint32_t{b}}) // both cases of a nocase letter
                t.slots[v] = static_cast<uint16_t>(t.slots[v] | slot << shift);
        }
        auto &masks = folded ? t.fold_mask : t.exact_mask;
        for (uint32_t len = static_cast<uint32_t>(l.bytes.size()); len <= kRunCap; ++len) masks[slot][len] |= 1ull << i;
    }
    return t;
}

// The run of the bytes seen so far: last byte and its run length, exact and folded.
struct RunState {
    uint32_t exact_byte = 256, exact_len = 0, fold_byte = 256, fold_len = 0;
};

// One byte: extends or restarts both runs and returns the run literals that
// end at it.
WM_HD inline unsigned long long run_byte(const RunTables &t, RunState &r, uint32_t b) {
    r.exact_len = b == r.exact_byte ? (r.exact_len < kRunCap ? r.exact_len + 1 : kRunCap) : 1;
    r.exact_byte = b;
    const uint32_t f = fold_ascii(static_cast<uint8_t>(b));
    r.fold_len = f == r.fold_byte ? (r.fold_len < kRunCap ? r.fold_len + 1 : kRunCap) : 1;
    r.fold_byte = f;
    unsigned long long m = 0;
    const uint32_t slots = t.slots[b], se = slots & 0xffu, sf = slots >> 8;
    if (se) m |= t.exact_mask[se][r.exact_len];
    if (sf) m |= t.fold_mask[sf][r.fold_len];
    return m;
}

// One tile of kTile bytes (byte(j) for j in [-lookback, kTile)): the bytes
// before it, back to its first payload's start (at most kRunCap - 1), give
// the runs it starts with; bit j of `starts`: a payload begins at byte j. emit(k, mask)
// for each payload of the tile with a non-zero mask, k counting payload
// starts among bytes 1..63 (0: the payload of byte 0).
#ifdef __CUDACC__
#pragma nv_exec_check_disable // Byte and Emit are host lambdas on the host, device ones in the kernel
#endif
template <uint32_t kTile, typename Byte, typename Emit>
WM_HD inline void run_tile(const RunTables &t, Byte byte, uint32_t lookback, uint64_t starts, Emit emit) {
    RunState r; // the runs that end at byte -1, within the lookback: as if those bytes had been read
    if (lookback) {
        const uint32_t last = byte(-1), folded = fold_ascii(static_cast<uint8_t>(last));
        r = RunState{last, 1, folded, 1};
        const int first = -static_cast<int>(lookback);
        for (int j = -2; j >= first && byte(j) == last; --j) ++r.exact_len;
        for (int j = -2; j >= first && fold_ascii(static_cast<uint8_t>(byte(j))) == folded; --j) ++r.fold_len;
    }
    unsigned long long m = 0;
    uint32_t k = 0;
    WM_UNROLL // on the device: byte(j) of a tile held in registers needs a constant j
    for (uint32_t j = 0; j < kTile; ++j) {
        if ((starts >> j) & 1u) {
            if (m) emit(k, m);
            k += j > 0, m = 0, r = RunState{};
        }
        m |= run_byte(t, r, byte(static_cast<int>(j)));
    }
    if (m) emit(k, m);
}

// Per tile of kTile bytes with payload-start bits `starts`: how many bytes
// before it belong to the payload of its byte 0 (at most kRunCap - 1):
// run_tile's lookback.
template <uint32_t kTile> inline std::vector<uint8_t> run_lookback(const std::vector<uint64_t> &starts) {
    static_assert(kTile == 64, "one start bit per byte of a 64-byte tile");
    std::vector<uint8_t> lb(starts.size(), 0);
    uint64_t since = 0; // bytes since the last payload start
    for (size_t x = 0; x < starts.size(); ++x) {
        lb[x] = (starts[x] & 1u) ? 0 : static_cast<uint8_t>(since < kRunCap - 1 ? since : kRunCap - 1);
        since = starts[x] ? kTile - (63 - static_cast<uint32_t>(__builtin_clzll(starts[x]))) : since + kTile;
    }
    return lb;
}

} // namespace wm::gpu::study
