// gpu/exact/long_literal_matcher.h - public, host-only entry: a set of long
// literals scanned over a batch of payloads with the duel/witness algorithm,
// so the engine can route literals above a length threshold here instead of
// into the Aho-Corasick automaton. Plain C++17 (no CUDA headers).
//
// Semantics equal gpu::GpuMatcher in OutputMode::Positions (same Literal,
// BatchView and Match types): literal k matches payload bytes [start, end),
// end - start == length; nocase folds ASCII A-Z/a-z; offset/depth keep a
// match iff start >= offset && (depth == 0 || end <= offset + depth); no match
// spans two payloads; every occurrence is reported, overlapping ones too.
//
// Lifecycle: create() once per literal set (periods and witnesses built on
// the host, one flat upload), scan() any number of times from one thread.
// Each literal is one duel pass over the staged text, so the cost grows with
// the literal count: meant for the few long literals, not a whole rule set.
#pragma once

#include "gpu/gpu_matcher.h"

#include <memory>
#include <string>
#include <vector>

namespace wm::gpu {

class LongLiteralMatcher {
  public:
    virtual ~LongLiteralMatcher() = default;
    // Throws std::invalid_argument (empty literal or > 65535 bytes) and
    // GpuError (no CUDA device, "built without CUDA support", out of memory).
    static std::unique_ptr<LongLiteralMatcher> create(const std::vector<Literal> &literals,
                                                      const GpuOptions &opts);
    // Synchronous; out is cleared, then every match appended (order unspecified).
    virtual void scan(const BatchView &batch, std::vector<Match> &out) = 0;
    // One line: literal count, length range, periodic count, device.
    virtual std::string describe() const = 0;
};

// The same scan on the CPU with the same duel logic (exact_hd.h): the CI
// reference of the GPU path and a fallback where no GPU is usable.
void long_literal_scan_cpu(const std::vector<Literal> &literals, const BatchView &batch,
                           std::vector<Match> &out);

} // namespace wm::gpu
