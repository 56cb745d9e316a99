// gpu/output_sizer.h - how many output records a chunk's scan starts with
// (host-only, CPU-tested). A chunk whose records outgrow its slot's buffers is
// scanned again after they grow (CudaMatcher::collect), and each slot grew on
// its own: a replay in positions mode (0.32 matches per payload byte) rescanned
// 6 of its first 15 windows, each then 5.5-8.5 ms instead of 1.0-1.3 (run 177).
// The sizer remembers the densest chunk of each use, so a slot is sized from
// it before its launch; only a chunk denser than any before still overflows.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace wm::gpu {

// `records` and a quarter more, so that a slightly denser chunk next does
// not grow the buffers again.
inline size_t with_output_slack(size_t records) { return records + records / 4 + 1024; }

// Records for a chunk that needed `needed` with room for `capacity`: more
// than that room even when `needed` fits it (a Set chunk whose global table
// failed undercounts its keys).
inline size_t grown_output_capacity(size_t needed, size_t capacity) {
    return with_output_slack(std::max(needed, capacity + 1));
}

// Densest records-per-byte ratio seen for each of USES kinds of output
// (Positions records, Set keys, set pairs differ by orders of magnitude).
template <size_t USES> class OutputSizer {
  public:
    // Chunks smaller than this say little of a full chunk's density (a few
    // match-dense payloads), so they are not observed.
    static constexpr size_t kMinObservedBytes = size_t{64} << 10;

    // A chunk of `bytes` needed `records` output slots for `use`.
    void observe(size_t use, size_t bytes, size_t records) {
        if (use >= USES || bytes < kMinObservedBytes) return;
        Density &d = densest_[use];
        // records / bytes > d.records / d.bytes, without division
        if (d.bytes == 0 || static_cast<unsigned __int128>(records) * d.bytes >
                                static_cast<unsigned __int128>(d.records) * bytes)
            d = {records, bytes};
    }
    // Records a chunk of `bytes` for `use` should have room for before its
    // launch: the densest chunk's ratio, as that chunk's growth would give;
    // 0 while nothing is known.
    size_t predict(size_t use, size_t bytes) const {
        if (use >= USES || densest_[use].bytes == 0) return 0;
        const Density &d = densest_[use];
        const unsigned __int128 scaled = static_cast<unsigned __int128>(d.records) * bytes;
        const size_t need = static_cast<size_t>((scaled + d.bytes - 1) / d.bytes);
        return need ? with_output_slack(need) : 0;
    }
    // What a slot with room for `capacity` should grow to before a chunk of
    // `bytes` (0: it has room): the prediction, but at least twice the
    // capacity up to what a chunk of `max_bytes` (the largest a slot takes)
    // would need, so that windows of rising size regrow a slot a few times,
    // not at each new largest one.
    size_t grow_to(size_t use, size_t bytes, size_t capacity, size_t max_bytes) const {
        const size_t want = predict(use, bytes);
        if (want <= capacity) return 0;
        const size_t doubled = capacity > SIZE_MAX / 2 ? SIZE_MAX : 2 * capacity;
        return std::max(want, std::min(doubled, predict(use, max_bytes)));
    }

  private:
    struct Density {
        size_t records = 0, bytes = 0;
    };
    Density densest_[USES];
};

} // namespace wm::gpu
