// gpu/approx/approx_matcher.h - public, host-only entry of the GPU
// k-differences search (plain C++17, no CUDA headers).
//
// Lifecycle: create() compiles the patterns (kdiff.h), uploads the blob once;
// scan() any number of times from one thread (not thread safe: one matcher per
// worker). Semantics: kdiff.h (every end offset with its minimum distance).
//
// Routes: Direct runs the bit-parallel kernel over every byte for every
// pattern; Prefilter finds the k+1 pieces of each pattern with the exact GPU
// Aho-Corasick matcher (gpu/gpu_matcher.h) and verifies only candidate windows
// (prefilter.h); Auto times both on the first batch of at least
// kAutoMinBytes, checks they agree, and keeps the faster.
#pragma once

#include "gpu/approx/kdiff.h"
#include "gpu/host_wait.h"

#include <memory>
#include <string>
#include <vector>

namespace wm::approx {

enum class Route { Direct, Prefilter, Auto };
const char *route_name(Route r);

struct ApproxOptions {
    int device = 0;
    Route route = Route::Auto;
    // How scan() waits for the device (its own kernels and the prefilter's
    // Aho-Corasick matcher alike; gpu/host_wait.h).
    wm::gpu::HostWait wait = wm::gpu::HostWait::Spin;
};

constexpr size_t kAutoMinBytes = 1u << 20;

class ApproxMatcher {
  public:
    virtual ~ApproxMatcher() = default;
    // Throws KdiffPatternError (a pattern the kernels cannot take, see compile_kdiff) or
    // wm::gpu::GpuError (no usable GPU: "built without CUDA support", ...).
    static std::unique_ptr<ApproxMatcher> create(const std::vector<ApproxPattern> &patterns,
                                                 const ApproxOptions &opts);
    // Clears `out`, then appends every match, sorted (sort_approx_matches).
    virtual void scan(const PayloadBatch &batch, std::vector<ApproxMatch> &out) = 0;
    // The route scan() uses now (Auto until decided).
    virtual Route route() const = 0;
    // Wall ms of both routes on the deciding batch (0 before Auto decided).
    virtual void auto_timings(double *direct_ms, double *prefilter_ms) const = 0;
    virtual std::string describe() const = 0;
};

// True when the GPU path can run (else *reason says why).
bool approx_gpu_usable(int device, std::string *reason);

} // namespace wm::approx
