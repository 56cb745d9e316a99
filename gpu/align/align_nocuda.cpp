// gpu/align/align_nocuda.cpp - the GPU entry points in a build without CUDA.
#include "gpu/align/align_search.h"

#include <stdexcept>

namespace wm::align {

namespace {
[[noreturn]] void no_cuda() { throw std::runtime_error("built without CUDA support"); }
} // namespace

bool align_gpu_usable(int, std::string *reason) {
    if (reason) *reason = "built without CUDA support";
    return false;
}
int align_device_count() { return 0; }

struct DatabaseSearcher::Impl {};
DatabaseSearcher::DatabaseSearcher(const uint8_t *, uint64_t, std::vector<int>, uint32_t, uint64_t) { no_cuda(); }
DatabaseSearcher::~DatabaseSearcher() = default;
SearchResult DatabaseSearcher::search(const uint8_t *, size_t, const ScoreParams &, const SearchOptions &) { no_cuda(); }
const std::vector<int> &DatabaseSearcher::devices() const { no_cuda(); }

struct PayloadAligner::Impl {};
PayloadAligner::PayloadAligner(std::vector<std::string>, ScoreParams, int, gpu::HostWait) { no_cuda(); }
PayloadAligner::~PayloadAligner() = default;
std::vector<PayloadHit> PayloadAligner::align(const uint8_t *, const uint32_t *, uint32_t, int) { no_cuda(); }
gpu::HostWait PayloadAligner::host_wait() const { no_cuda(); }

} // namespace wm::align
