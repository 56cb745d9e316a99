// gpu/approx/approx_matcher_nocuda.cpp - entry points when built without CUDA.
#include "gpu/approx/approx_matcher.h"
#include "gpu/approx/seed_asm.h"
#include "gpu/gpu_matcher.h"

namespace wm::approx {

const char *route_name(Route r) {
    return r == Route::Direct ? "direct" : r == Route::Prefilter ? "prefilter" : "auto";
}

std::unique_ptr<ApproxMatcher> ApproxMatcher::create(const std::vector<ApproxPattern> &,
                                                     const ApproxOptions &) {
    throw wm::gpu::GpuError("built without CUDA support");
}

bool approx_gpu_usable(int, std::string *reason) {
    if (reason) *reason = "built without CUDA support";
    return false;
}

AsmResult seed_asm_gpu_host(const uint8_t *, uint32_t, const uint8_t *, uint64_t, uint32_t, SeedSchedule) {
    throw wm::gpu::GpuError("built without CUDA support");
}

} // namespace wm::approx
