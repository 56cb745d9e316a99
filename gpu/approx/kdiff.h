// gpu/approx/kdiff.h - k-differences search for many (pattern, payload) pairs:
// report every end offset j of a payload where some substring ending at j is
// within k edits (Levenshtein) or k substitutions (Hamming, substring of
// exactly m bytes) of the pattern, with that minimum distance.
//
// Host compiles, device walks a flat blob: patterns are grouped 32 to a group
// (one per warp lane) by metric and word class (ceil(m / 64) rounded up to a
// power of two); each group owns a Peq table of 256 x words x 32 uint64 laid
// out [byte][word][lane], so the 32 lanes of a warp, which all consume the same
// text byte, load 32 consecutive words. Plain C++: no CUDA headers.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace wm::approx {

enum class Metric : uint8_t { Levenshtein = 0, Hamming = 1 };

struct ApproxPattern {
    std::string bytes; // 1..1024 bytes (GPU limit: tuning::kMaxWords * 64)
    uint32_t k = 0;    // max edits / mismatches
    Metric metric = Metric::Levenshtein;
    bool nocase = false; // ASCII case folding
};

struct ApproxMatch {
    uint32_t pattern;  // index into the pattern vector
    uint32_t payload;  // index in the batch
    uint32_t end;      // exclusive end offset in the payload
    uint32_t distance; // minimum distance of a substring ending there (<= k)
    bool operator==(const ApproxMatch &o) const {
        return pattern == o.pattern && payload == o.payload && end == o.end &&
               distance == o.distance;
    }
};
// Canonical order: payload, end, pattern.
void sort_approx_matches(std::vector<ApproxMatch> &m);

// Payloads back to back: payload i is data[offsets[i], offsets[i+1]).
struct PayloadBatch {
    const uint8_t *data = nullptr;
    const uint32_t *offsets = nullptr; // count + 1 entries
    uint32_t count = 0;
};

constexpr uint32_t kNoPattern = 0xffffffffu;

// One warp-wide group of up to 32 patterns sharing metric and word class.
struct GroupDesc {
    uint32_t metric;     // Metric
    uint32_t words;      // word class: 1, 2, 4, 8, 16
    uint32_t kmax;       // Hamming: levels - 1 (3 or 7); Levenshtein: 0
    uint32_t warm;       // bytes re-read before a chunk: max(m + k) over lanes
    uint64_t peq_offset; // into KdiffBlob::peq (uint64 units)
    uint32_t lane_base;  // into KdiffBlob::lanes (32 entries)
    uint32_t pad = 0;
};

struct LaneDesc {
    uint32_t pattern = kNoPattern;
    uint32_t m = 1;
    uint32_t k = 0;
    uint32_t last_word = 0; // (m - 1) / 64
};

struct KdiffBlob {
    std::vector<GroupDesc> groups;
    std::vector<LaneDesc> lanes;    // 32 per group
    std::vector<uint64_t> peq;      // per group: [byte][word][lane]
    std::vector<uint32_t> group_of; // per pattern
    std::vector<uint32_t> lane_of;  // per pattern
    std::vector<ApproxPattern> patterns;
    std::string describe() const;
};

// A pattern the kernels cannot take: what() is "approximate pattern N: why";
// `pattern` is N, its index in compile_kdiff's input, so a caller can name
// the rule it came from.
struct KdiffPatternError : std::invalid_argument {
    KdiffPatternError(uint32_t index, const std::string &reason)
        : std::invalid_argument("approximate pattern " + std::to_string(index) + ": " + reason), pattern(index),
          why(reason) {}
    uint32_t pattern;
    std::string why;
};

// Throws KdiffPatternError when a pattern is empty, longer than 1024 bytes,
// has m <= k (Levenshtein: vacuous, as Hyperscan), or (Hamming) needs more
// Shift-And state than the kernel keeps.
KdiffBlob compile_kdiff(const std::vector<ApproxPattern> &patterns);

// The kernel's per-lane walk run on the CPU (same step functions), over every
// (pattern, payload) pair. Appends unsorted matches.
void kdiff_cpu_scan(const KdiffBlob &blob, const PayloadBatch &batch,
                    std::vector<ApproxMatch> &out);

// The same walk over one window [lo, hi) of one payload for one pattern,
// reporting ends in (lo, hi] (the prefilter route's verification step).
void kdiff_cpu_window(const KdiffBlob &blob, uint32_t pattern, const uint8_t *payload,
                      uint32_t payload_index, uint32_t lo, uint32_t hi,
                      std::vector<ApproxMatch> &out);

} // namespace wm::approx
