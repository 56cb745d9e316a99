// gpu/walk_hits_model.h - the per-byte logic of the Set study (bench_walk_hits),
// not used by the matcher: a walk of one tile per thread with nothing in the
// step loop but the step and the Set hit test, whose hits are then turned
// into distinct (payload, pattern) keys (walk_hits_kernels.cuh,
// walk_hits_fused.cuh). Shared by those CUDA kernels and the CPU model that
// checks them (__host__ __device__).
//
// Simplifications against the matcher (so its figures bound what such a
// design could reach, they are not a drop-in): tiles are fixed 64-byte
// pieces of the concatenated payloads; kOutCheck/kOutCase outputs (bounds,
// leading bytes, exact case: 14% of items) are reported unverified; keys of a
// payload spread over two units are not deduplicated across them.
#pragma once

#include "gpu/ac_walk.cuh"

#include <cstdint>

namespace wm::gpu::study {

constexpr uint32_t kHitTile = 64;          // bytes per tile
constexpr uint32_t kHitSlots = kHitTile + 16; // records per tile: its bytes and a run-out of < kKeyBytes
constexpr uint32_t kHitPosBits = 7;        // a record: state << 7 | byte of the tile (0-79)

// Row layouts of the study.
enum class HitRows : int {
    Wide32 = 0,    // the matcher's 32-bit rows, flags in bits 31/30
    Narrow16F = 1, // 16-bit: id | out << 15 | plain << 14; id field 0x3fff: read the 32-bit row
    Narrow16B = 2, // 16-bit: bare id, 0xffff: read the 32-bit row; flags from a 2-bit table per state
};

struct HitRowsView {
    const uint32_t *wide;    // dense rows, 32-bit with flags
    const uint16_t *narrow;  // Narrow16F / Narrow16B
    const uint32_t *flags2;  // Narrow16B: 2 bits per state (out << 1 | plain), 16 states per word
    uint32_t num_classes;
};

constexpr uint32_t kEscape16F = 0x3fffu;
constexpr uint32_t kEscape16B = 0xffffu;

// One step from bare state s on class c: the target in the 32-bit convention
// (id | out << 31 | plain << 30). The study walks the Set semantics before
// the matcher's one-byte register and covered steps: its blob has no covered
// steps (study_compile_options), and a one-byte-only target is the plain
// hit it was before (study_target).
WM_HD inline uint32_t study_target(uint32_t t) {
    return (t & kOneByteOnly32) ? (t & ~kOneByteOnly32) | kOutPlain32 : t;
}
template <HitRows R> WM_HD inline uint32_t hit_step(const HitRowsView &r, uint32_t s, uint32_t c) {
    const uint32_t at = s * r.num_classes + c;
    if constexpr (R == HitRows::Wide32) {
        return study_target(wm_ld(&r.wide[at]));
    } else if constexpr (R == HitRows::Narrow16F) {
        const uint32_t v = wm_ld(&r.narrow[at]);
        if ((v & kEscape16F) == kEscape16F) return study_target(wm_ld(&r.wide[at]));
        return (v & kEscape16F) | ((v & 0xc000u) << 16);
    } else {
        const uint32_t v = wm_ld(&r.narrow[at]);
        const uint32_t id = v == kEscape16B ? (wm_ld(&r.wide[at]) & ~state_flags<uint32_t>()) : v;
        return id | (((r.flags2[id >> 4] >> ((id & 15) * 2)) & 3u) << 30);
    }
}

// One byte: back to the root at a payload's first byte, one step, and the
// Set hit test (set_reports_hit, as the Set kernel runs it). Returns whether
// the step reports; s becomes the bare target, *target (if given) the
// target with its flags.
template <HitRows R>
WM_HD inline bool hit_byte(const HitRowsView &r, bool payload_start, uint32_t c, uint32_t &s, uint32_t &last_plain,
                           uint32_t *target = nullptr) {
    if (payload_start) s = 0, last_plain = 0;
    const uint32_t t = hit_step<R>(r, s, c);
    s = t & ~state_flags<uint32_t>();
    if (target) *target = t;
    return set_reports_hit<uint32_t>(t, last_plain);
}

// Whether a walk `past` bytes beyond its tile can stop (ac_walk_done for one group).
WM_HD inline bool hit_walk_done(const uint32_t *depth_end, uint32_t key_len, uint32_t s, uint32_t past) {
    return past >= key_len || s < depth_end[past];
}

// Payload of byte j of a tile whose byte 0 lies in payload `first`: one more
// per payload start among bytes 1..j (the run-out stays in byte 63's payload).
WM_HD inline uint32_t hit_payload(uint32_t first, uint64_t starts, uint32_t j) {
    const uint32_t last = j < kHitTile ? j : kHitTile - 1;
    const uint64_t upto = last == 63 ? ~uint64_t{0} : ((uint64_t{1} << (last + 1)) - 1);
    uint64_t m = starts & upto & ~uint64_t{1};
#ifdef __CUDA_ARCH__
    return first + static_cast<uint32_t>(__popcll(m));
#else
    return first + static_cast<uint32_t>(__builtin_popcountll(m));
#endif
}

// A (payload, pattern) key as the study writes it.
WM_HD inline unsigned long long hit_key(uint32_t payload, uint32_t pattern) {
    return (static_cast<unsigned long long>(payload) << 32) | pattern;
}

} // namespace wm::gpu::study
