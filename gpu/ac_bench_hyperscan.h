// gpu/ac_bench_hyperscan.h - the CPU peer of the benchmark: Hyperscan on all
// host cores over the same payloads (host only).
#pragma once

#include "gpu/gpu_matcher.h"

#include <cstdint>
#include <vector>

namespace wm::gpu::bench {

struct HsResult {
    double seconds = 0;       // median wall time of the scan
    uint64_t matches = 0;     // callbacks (set mode: distinct (payload, pattern))
    std::vector<Match> reports; // when collect: every report (pattern, payload, end); set mode: the first per pair
    double compile_s = 0;
};

// Compiles `pats` with hs_compile_multi (\xHH-escaped, HS_FLAG_CASELESS for
// nocase; SINGLEMATCH when set_mode: one report per pattern and payload, the
// IDS question) and scans the batch on `threads` threads, one scratch each,
// payloads split into contiguous ranges. Median of `reps` runs after a warm-up.
HsResult hyperscan_scan(const std::vector<Literal> &pats, const BatchView &batch, bool set_mode, int threads,
                        int reps, bool collect);

} // namespace wm::gpu::bench
