// gpu/exact/long_literal_nocuda.cpp - create() in a build without CUDA.
#include "gpu/exact/long_literal_matcher.h"

namespace wm::gpu {

std::unique_ptr<LongLiteralMatcher> LongLiteralMatcher::create(const std::vector<Literal> &,
                                                               const GpuOptions &) {
    throw GpuError("long literal matcher: built without CUDA support");
}

} // namespace wm::gpu
