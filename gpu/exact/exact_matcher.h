// gpu/exact/exact_matcher.h - public, host-only entry of the single-pattern
// exact matchers (GPU brute force, GPU duel/witness in one or two kernels).
// Plain C++17: no CUDA headers, g++ code can include it.
//
// Lifecycle: create() prepares the pattern on the host (period, witnesses;
// the time is reported) and uploads it once; match() any number of times
// from one thread (device buffers grow to the largest text seen). Not
// thread safe: one matcher per thread.
//
// Semantics: every start position i with text[i, i+m) == P (ASCII A-Z folded
// when nocase), overlapping occurrences included. The match vector is the
// seed's: match[i] = 1 iff P occurs at i, for every i < n. Text < 2^32 bytes.
#pragma once

#include "gpu/gpu_matcher.h" // GpuError

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wm::gpu::exact {

enum class Algorithm {
    BruteForce,    // one thread per position, early exit
    Duel,          // fused: elimination + warp verification + output in one kernel
    DuelTwoKernel, // the seed's stages: elimination kernel, then survivor brute force
};

inline const char *algorithm_name(Algorithm a) {
    switch (a) {
    case Algorithm::BruteForce: return "brute";
    case Algorithm::Duel: return "duel";
    case Algorithm::DuelTwoKernel: return "duel2k";
    }
    return "?";
}

// Milliseconds per stage of the last match() (CUDA events; witness on the host).
struct StageTimes {
    double witness_ms = 0;   // host preparation in create() (period + witnesses)
    double h2d_ms = 0;
    double eliminate_ms = 0; // brute force: the whole kernel; Duel: the fused kernel
    double verify_ms = 0;    // DuelTwoKernel only: survivor brute force (+ vector clear)
    double d2h_ms = 0;       // match vector and/or positions
    double total_ms = 0;     // h2d + kernels + d2h (witness excluded, reported apart)
};

struct MatchRequest {
    const uint8_t *text = nullptr; // n bytes (pinned memory copies fastest)
    uint64_t n = 0;
    Algorithm algorithm = Algorithm::Duel;
    uint8_t *match_vector = nullptr;           // optional out: n bytes
    std::vector<uint32_t> *positions = nullptr; // optional out: sorted starts
};

// True when `device` can run the kernels; else false and *reason says why
// ("built without CUDA support", no device, ...).
bool exact_gpu_usable(int device, std::string *reason);

class ExactMatcher {
  public:
    virtual ~ExactMatcher() = default;
    // Throws std::invalid_argument (empty or > 65535-byte pattern), GpuError.
    static std::unique_ptr<ExactMatcher> create(const std::string &pattern, bool nocase,
                                                int device = 0);
    // Synchronous: copies the text in, runs, copies results out. Throws
    // GpuError (n >= 2^32, CUDA failures).
    virtual void match(const MatchRequest &request, StageTimes *times = nullptr) = 0;
    // "m=..., period=..., periodic, span=..., items x lanes" for logs.
    virtual std::string describe() const = 0;
    // Pinned host buffers for callers that want full-speed copies.
    static uint8_t *alloc_pinned(size_t bytes);
    static void free_pinned(uint8_t *p);
};

} // namespace wm::gpu::exact
