// gpu/gpu_matcher_nocuda.cpp - the public entry points when built without CUDA.
#include "gpu/copy_bandwidth.h"
#include "gpu/gpu_matcher.h"
#include "gpu/gpu_testing.h"

namespace wm::gpu {

bool gpu_usable(int, std::string *reason) {
    if (reason) *reason = "built without CUDA support";
    return false;
}

double pinned_h2d_gb_per_s(int, size_t, int) { throw GpuError("no usable GPU: built without CUDA support"); }

std::unique_ptr<GpuMatcher> GpuMatcher::create(const std::vector<Literal> &, const GpuOptions &) {
    throw GpuError("built without CUDA support");
}

void testing::set_initial_output_capacity(size_t) {}
void testing::set_max_chunk_bytes(size_t) {}
void testing::set_dense_budget_bytes(size_t) {}
void testing::set_case_columns(bool) {}
size_t testing::output_rescans() { return 0; }
void testing::fail_output_allocation(size_t) {}
void testing::fail_pair_buffer_allocation(size_t) {}
size_t testing::device_free_bytes() { return 0; }
void testing::fail_positions_chunk(size_t) {}
bool testing::is_page_locked(const void *, size_t) { return false; }
void testing::set_chunk_trace(bool) {}
std::vector<testing::ChunkTrace> testing::last_chunk_trace() { return {}; }

} // namespace wm::gpu
