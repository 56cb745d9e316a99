// gpu/chunk_trace.cpp - see chunk_trace.h.
#include "gpu/chunk_trace.h"

#include "gpu/cuda_check.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace wm::gpu {
namespace {
// WM_CHUNK_TRACE=FILE turns tracing on from the start and appends every
// timeline to FILE, so the plugin path can be traced as a host runs it
// (`warpmatch bench`), not only through bench_pairs_trace.
const char *trace_file() {
    static const char *f = std::getenv("WM_CHUNK_TRACE");
    return f && *f ? f : nullptr;
}
std::atomic<bool> g_trace_on{trace_file() != nullptr};
std::mutex g_last_mutex;
std::vector<testing::ChunkTrace> g_last;
} // namespace

ChunkTracer::~ChunkTracer() {
    for (auto &e : pool_)
        for (cudaEvent_t ev : e) cudaEventDestroy(ev);
    if (origin_) cudaEventDestroy(origin_);
}

ChunkTracer::Events &ChunkTracer::events(uint32_t chunk) {
    while (pool_.size() <= chunk) {
        Events e{};
        for (cudaEvent_t &ev : e) WM_CUDA_CHECK(cudaEventCreate(&ev));
        pool_.push_back(e);
    }
    return pool_[chunk];
}

void ChunkTracer::begin(cudaStream_t s) {
    on_ = g_trace_on.load();
    chunks_.clear();
    if (!on_) return;
    if (!origin_) WM_CUDA_CHECK(cudaEventCreate(&origin_));
    t0_ = std::chrono::steady_clock::now();
    WM_CUDA_CHECK(cudaEventRecord(origin_, s));
}

void ChunkTracer::gpu(uint32_t chunk, Gpu point, cudaStream_t s) {
    if (!on_) return;
    if (chunks_.size() <= chunk) chunks_.resize(chunk + 1);
    WM_CUDA_CHECK(cudaEventRecord(events(chunk)[point], s));
    chunks_[chunk].gpu_ms[point] = 0; // recorded; converted in end()
}

void ChunkTracer::host(uint32_t chunk, Host point, uint32_t slot, uint32_t bytes) {
    if (!on_) return;
    if (chunks_.size() <= chunk) chunks_.resize(chunk + 1);
    auto &c = chunks_[chunk];
    c.host_ms[point] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
    if (point == Host::kStaged) c.slot = slot, c.bytes = bytes;
}

void ChunkTracer::end() {
    if (!on_) return;
    for (uint32_t i = 0; i < chunks_.size(); ++i)
        for (int p = 0; p < testing::ChunkTrace::kGpuPoints; ++p) {
            if (chunks_[i].gpu_ms[p] < 0) continue;
            float ms = 0;
            WM_CUDA_CHECK(cudaEventElapsedTime(&ms, origin_, pool_[i][p]));
            chunks_[i].gpu_ms[p] = ms;
        }
    std::lock_guard<std::mutex> lock(g_last_mutex);
    g_last = chunks_;
    if (const char *path = trace_file()) {
        std::FILE *f = std::fopen(path, "a");
        if (!f) { // said once: a study hook must not fail the scan
            static std::once_flag said;
            const int e = errno;
            std::call_once(said, [&] {
                std::fprintf(stderr, "warpmatch: WM_CHUNK_TRACE=%s: cannot open: %s\n", path, std::strerror(e));
            });
            return;
        }
        std::fputs(testing::format_chunk_trace(chunks_).c_str(), f);
        std::fclose(f);
    }
}

void testing::set_chunk_trace(bool on) { g_trace_on = on; }

std::vector<testing::ChunkTrace> testing::last_chunk_trace() {
    std::lock_guard<std::mutex> lock(g_last_mutex);
    return g_last;
}

std::string testing::format_chunk_trace(const std::vector<ChunkTrace> &trace) {
    std::string out = "chunk slot     MB   staged  copy-in  copied  scanned   passed  wait-from  wait-to  copied-back\n";
    char line[160];
    using T = ChunkTrace;
    for (size_t i = 0; i < trace.size(); ++i) {
        const T &c = trace[i];
        std::snprintf(line, sizeof line, "%5zu %4u %6.2f %8.3f %8.3f %7.3f %8.3f %8.3f %10.3f %8.3f %12.3f\n", i,
                      c.slot, c.bytes / 1e6, c.host_ms[T::kStaged], c.gpu_ms[T::kCopyStart], c.gpu_ms[T::kCopied],
                      c.gpu_ms[T::kScanned], c.gpu_ms[T::kPassed], c.host_ms[T::kWaitBegin], c.host_ms[T::kWaitEnd],
                      c.gpu_ms[T::kCopiedBack]);
        out += line;
    }
    return out;
}

} // namespace wm::gpu
