// gpu/gpu_testing.h - test hooks of the GPU matcher (not for production use).
#pragma once

#include <cstddef>

namespace wm::gpu::testing {

// When non-zero, matchers created afterwards start with this many output
// records per stream, so tests can force the overflow -> grow -> rescan path.
void set_initial_output_capacity(size_t records);

} // namespace wm::gpu::testing
