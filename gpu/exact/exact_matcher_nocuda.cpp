// gpu/exact/exact_matcher_nocuda.cpp - the public entries in a build without
// CUDA: usable() says why, create() throws, pinned buffers are plain heap.
#include "gpu/exact/exact_matcher.h"

#include <cstdlib>

namespace wm::gpu::exact {

bool exact_gpu_usable(int, std::string *reason) {
    if (reason) *reason = "built without CUDA support";
    return false;
}

std::unique_ptr<ExactMatcher> ExactMatcher::create(const std::string &, bool, int) {
    throw GpuError("exact matcher: built without CUDA support");
}

uint8_t *ExactMatcher::alloc_pinned(size_t bytes) {
    return static_cast<uint8_t *>(std::malloc(bytes ? bytes : 1));
}

void ExactMatcher::free_pinned(uint8_t *p) { std::free(p); }

} // namespace wm::gpu::exact
