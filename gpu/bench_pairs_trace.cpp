// gpu/bench_pairs_trace.cpp - where a GpuMatcher::scan_set_pairs() call spends
// its time, chunk by chunk (the plugin path's pipeline study).
//
//   bench_pairs_trace --literals L.txt --corpus C [--mb 256] [--calls 7] [--filter 0|1] [--pipeline 0|1]
//                     [--chunk-mb N]   (the matcher's chunk size instead of ac_tuning.h's kMaxChunkBytes)
//
// Tiles the corpus to --mb MB in the matcher's pinned buffer, makes --calls
// calls (with --filter 1: scopes on half the patterns and payload meta, as
// the plugin's rules have) and prints the median call, the pinned H2D
// bandwidth of the same bytes in the same run, and the last call's timeline
// (testing::set_chunk_trace): per chunk, ms from the call's start of its
// copy in, scan, passes (filter, sort, pairs) and copy back on the GPU, and
// when the host staged it and waited for it. With --pipeline 1 the calls are
// submit_set_pairs / collect_set_pairs two deep (submit call i + 1, then
// collect call i): the figure is all calls' bytes over their total time, and
// the timeline spans them all.
#include "gpu/ac_bench_corpus.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_testing.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

using namespace wm::gpu;

namespace {

// Command-line options (CLI11: unknown options and out-of-range values are refused).
struct Options {
    std::string literals, corpus;
    size_t mb = 256, chunk_mb = 0; // chunk_mb 0: ac_tuning.h's kMaxChunkBytes
    int calls = 7;
    bool filter = true, pipeline = false;
};

// Parses argv into o; returns -1 to go on, else the exit status (help, or an error already printed).
int parse(int argc, char **argv, Options &o) {
    CLI::App app{"Where GpuMatcher::scan_set_pairs() calls spend their time, chunk by chunk"};
    app.add_option("--literals", o.literals, "literal list (bench_ac_kernel --import-rules)")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option("--corpus", o.corpus, "payload corpus (bench_ac_kernel --extract)")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option("--mb", o.mb, "MB of payloads per call (the corpus tiled)")->check(CLI::Range(1, 65536));
    app.add_option("--calls", o.calls, "calls timed")->check(CLI::Range(1, 1000));
    app.add_option("--filter", o.filter, "1: scopes on half the patterns and payload metadata");
    app.add_option("--pipeline", o.pipeline, "1: submit_set_pairs / collect_set_pairs two deep");
    app.add_option("--chunk-mb", o.chunk_mb, "the matcher's chunk size in MB (0: ac_tuning.h's)")
        ->check(CLI::Range(0, 4095));
    CLI11_PARSE(app, argc, argv);
    return -1;
}

double h2d_ms(const uint8_t *pinned, size_t bytes) {
    uint8_t *d = nullptr;
    WM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&d), bytes));
    cudaEvent_t a, b;
    WM_CUDA_CHECK(cudaEventCreate(&a));
    WM_CUDA_CHECK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int i = 0; i < 5; ++i) {
        WM_CUDA_CHECK(cudaEventRecord(a));
        WM_CUDA_CHECK(cudaMemcpyAsync(d, pinned, bytes, cudaMemcpyHostToDevice));
        WM_CUDA_CHECK(cudaEventRecord(b));
        WM_CUDA_CHECK(cudaEventSynchronize(b));
        float ms = 0;
        WM_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaFree(d);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

} // namespace

int main(int argc, char **argv) try {
    Options opt;
    if (const int rc = parse(argc, argv, opt); rc >= 0) return rc;
    const auto pats = bench::load_literals(opt.literals);
    const bench::Corpus corpus = bench::load_corpus(opt.corpus);
    testing::set_max_chunk_bytes(opt.chunk_mb << 20);
    GpuOptions go;
    go.max_batch_bytes = std::max<size_t>(go.max_batch_bytes, opt.chunk_mb << 20);
    auto m = GpuMatcher::create(pats, go);
    const size_t want = opt.mb << 20;
    std::vector<uint32_t> offs;
    uint8_t *pin = m->pinned_buffer(bench::tiled_size(corpus, want));
    const size_t bytes = bench::tile_corpus(corpus, want, pin, bench::tiled_size(corpus, want), offs);
    const BatchView b{pin, offs.data(), static_cast<uint32_t>(offs.size() - 1)};
    std::vector<PayloadMeta> meta;
    if (opt.filter) {
        std::vector<PatternScope> sc(pats.size());
        for (uint32_t p = 0; p < sc.size(); ++p) sc[p] = {p, static_cast<uint8_t>(p % 2 ? 6 : 0), {}};
        m->set_scopes(sc);
        meta.resize(b.count);
        for (uint32_t i = 0; i < b.count; ++i) meta[i] = {static_cast<uint8_t>(i % 3 ? 6 : 17), 1024, 80};
    }
    testing::set_chunk_trace(true);
    const PayloadMeta *mp = meta.empty() ? nullptr : meta.data();
    const int calls = opt.calls;
    std::vector<double> ms;
    size_t pairs = 0;
    const SetPair *out = nullptr;
    if (opt.pipeline) {
        for (int rep = 0; rep < 2; ++rep) { // the first pass warms up; the trace and time are the second's
            const auto t0 = std::chrono::steady_clock::now();
            m->submit_set_pairs(b, mp);
            for (int i = 1; i < calls; ++i) {
                m->submit_set_pairs(b, mp);
                pairs = m->collect_set_pairs(&out);
            }
            pairs = m->collect_set_pairs(&out);
            ms.assign(1, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / calls);
        }
    } else {
        for (int i = 0; i < calls; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            pairs = m->scan_set_pairs(b, mp, &out);
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
    }
    const auto trace = testing::last_chunk_trace();
    std::sort(ms.begin(), ms.end());
    const double h2d = h2d_ms(pin, bytes);
    std::printf("%s\n%sbatch %.1f MB, %u payloads, %zu pairs; call median %.3f ms (min %.3f) = %.2f GB/s; pinned H2D "
                "of the batch %.3f ms = %.2f GB/s; call / H2D %.2f\n",
                m->describe().c_str(), opt.pipeline ? "pipelined calls (per call: total / calls); " : "",
                bytes / 1e6, b.count, pairs, ms[ms.size() / 2], ms[0],
                bytes / 1e6 / ms[ms.size() / 2], h2d, bytes / 1e6 / h2d, h2d / ms[ms.size() / 2]);
    std::printf("%s, ms from its start:\n%s", opt.pipeline ? "all calls" : "last call",
                testing::format_chunk_trace(trace).c_str());
    return 0;
} catch (const std::exception &e) {
    std::fprintf(stderr, "bench_pairs_trace: %s\n", e.what());
    return 1;
}
