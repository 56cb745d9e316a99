// gpu/bench_run_literals.cu - what finding the run literals apart from the
// automaton would cost (a study; run_literals_model.h says what is found).
// The literals of the list that are one byte repeated and at most 32 bytes
// long (38 of ET Open's 17,918) get a pass of their own over the same real
// payloads: a thread per 64-byte tile, its bytes in registers, the run it
// starts with read backwards from the bytes before it (in its first
// payload), the run tables in shared memory; each payload's mask of the
// literals found is ORed into global memory.
// Before the timing, one corpus copy's masks are checked against the CPU
// model (the same per-byte code). Beside `bench_ac_kernel --drop-runs` (the
// Set walk without those literals) in the same call, it says what a matcher
// that found them this way could reach: 1 / (1 / Set_without + 1 / pass).
//
//   bench_run_literals --literals L.txt --corpus C [--gb 2] [--blocks-per-sm 8,6,4]
#include "gpu/ac_bench_corpus.h"
#include "gpu/approx/bench_common.h"
#include "gpu/cuda_check.h"
#include "gpu/run_literals_model.h"
#include "gpu/walk_hits_host.h"
#include "gpu/walk_hits_kernels.cuh" // hit_tile_byte, kThreads

#include <CLI/CLI.hpp>

#include <cstdio>

using namespace wm::gpu;
using namespace wm::gpu::bench;
using namespace wm::gpu::study;
using wm::approx::bench::upload;

namespace {

__global__ void __launch_bounds__(kThreads)
    run_literals_kernel(const RunTables *tables, const uint8_t *raw, const uint64_t *starts, const uint8_t *lookback,
                        const uint32_t *first_payload, size_t tiles, unsigned long long *masks) {
    __shared__ __align__(16) RunTables t;
    static_assert(sizeof(RunTables) % 16 == 0, "copied as 16-byte words");
    for (uint32_t i = threadIdx.x; i < sizeof(RunTables) / 16; i += kThreads)
        reinterpret_cast<uint4 *>(&t)[i] = __ldg(&reinterpret_cast<const uint4 *>(tables)[i]);
    __syncthreads();
    const size_t stride = size_t{gridDim.x} * kThreads;
    for (size_t x = size_t{blockIdx.x} * kThreads + threadIdx.x; x < tiles; x += stride) {
        const uint8_t *tile = raw + x * kHitTile;
        uint4 w[kHitTile / 16];
#pragma unroll
        for (uint32_t q = 0; q < kHitTile / 16; ++q) w[q] = __ldg(reinterpret_cast<const uint4 *>(tile) + q);
        const uint32_t first = __ldg(&first_payload[x]);
        run_tile<kHitTile>(
            t, [&](int j) { return j < 0 ? uint32_t{__ldg(tile + j)} : hit_tile_byte(w, static_cast<uint32_t>(j)); },
            __ldg(&lookback[x]), __ldg(&starts[x]),
            [&](uint32_t k, unsigned long long m) { atomicOr(&masks[first + k], m); });
    }
}

} // namespace

int main(int argc, char **argv) try {
    CLI::App app{"The run literals found by a pass of their own, beside the automaton (a study)"};
    std::string literals, corpus_path;
    double gb = 2;
    std::vector<unsigned> blocks_per_sm{8, 6, 4};
    app.add_option("--literals", literals, "literal list (bench_ac_kernel --import-rules)")->required();
    app.add_option("--corpus", corpus_path, "payload corpus (bench_ac_kernel --extract)")->required();
    app.add_option("--gb", gb, "GB of text (the corpus tiled)")->check(CLI::Range(0.001, 8.0));
    app.add_option("--blocks-per-sm", blocks_per_sm, "resident blocks of 256 threads per SM")
        ->delimiter(',')
        ->check(CLI::Range(1, 8));
    CLI11_PARSE(app, argc, argv);
    const auto all = load_literals(literals);
    std::vector<Literal> runs;
    for (const Literal &l : all)
        if (is_run_literal(l)) runs.push_back(l);
    const RunTables tables = run_tables(runs);
    const Corpus corpus = load_corpus(corpus_path);
    std::printf("%zu literals, %zu of them one byte repeated (this pass); corpus %u payloads, %zu bytes\n", all.size(),
                runs.size(), corpus.count(), corpus.bytes.size());

    cudaDeviceProp prop{};
    WM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    const HitText text = hit_text(corpus.bytes.data(), corpus.offsets, static_cast<size_t>(gb * 1e9));
    const auto lookback = run_lookback<kHitTile>(text.starts);
    const size_t payloads = text.first_payload.back() + __builtin_popcountll(text.starts.back() & ~1ull) + 1;
    const uint8_t *d_raw = upload(text.raw);
    const uint64_t *d_starts = upload(text.starts);
    const uint8_t *d_lookback = upload(lookback);
    const uint32_t *d_first = upload(text.first_payload);
    const RunTables *d_tables = upload(std::vector<RunTables>{tables});
    unsigned long long *d_masks = nullptr;
    WM_CUDA_CHECK(cudaMalloc(&d_masks, payloads * 8));
    int fit = 0;
    WM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, run_literals_kernel, kThreads, 0));
    std::printf("device %s, %d SMs; text %.2f GB in %zu tiles, %zu payloads; at most %d blocks/SM\n", prop.name,
                prop.multiProcessorCount, text.tiles * double(kHitTile) / 1e9, text.tiles, payloads, fit);

    // Check: one corpus copy's tiles against the CPU model.
    const size_t check_tiles = corpus.bytes.size() / kHitTile;
    WM_CUDA_CHECK(cudaMemset(d_masks, 0, payloads * 8));
    run_literals_kernel<<<static_cast<unsigned>(fit * prop.multiProcessorCount), kThreads>>>(
        d_tables, d_raw, d_starts, d_lookback, d_first, check_tiles, d_masks);
    WM_CUDA_CHECK(cudaGetLastError());
    const size_t check_payloads = corpus.count();
    std::vector<unsigned long long> got(check_payloads), want(check_payloads, 0);
    WM_CUDA_CHECK(cudaMemcpy(got.data(), d_masks, check_payloads * 8, cudaMemcpyDeviceToHost));
    for (size_t x = 0; x < check_tiles; ++x) {
        const uint8_t *tile = text.raw.data() + x * kHitTile;
        run_tile<kHitTile>(
            tables, [&](int j) { return uint32_t{tile[j]}; }, lookback[x], text.starts[x],
            [&](uint32_t k, unsigned long long m) { want[text.first_payload[x] + k] |= m; });
    }
    size_t bad = 0, keys = 0, with_runs = 0;
    for (size_t p = 0; p < check_payloads; ++p) {
        bad += got[p] != want[p];
        keys += __builtin_popcountll(want[p]);
        with_runs += want[p] != 0;
    }
    std::printf("check over %zu tiles: %s (%zu of %zu payloads differ); %zu payloads hold a run literal, %zu "
                "(payload, literal) keys\n",
                check_tiles, bad ? "DIFFERENT" : "EQUAL", bad, check_payloads, with_runs, keys);
    if (bad) return 1;

    wm::approx::bench::DeviceTimer timer;
    for (unsigned want_blocks : blocks_per_sm) {
        const int per_sm = std::min<int>(fit, static_cast<int>(want_blocks));
        const unsigned grid = static_cast<unsigned>(per_sm * prop.multiProcessorCount);
        const double ms = timer.median_ms(7, [&] {
            run_literals_kernel<<<grid, kThreads>>>(d_tables, d_raw, d_starts, d_lookback, d_first, text.tiles,
                                                    d_masks);
            WM_CUDA_CHECK(cudaGetLastError());
        });
        std::printf("run-literal pass, blocks/SM %d: %8.3f ms  %8.1f GB/s\n", per_sm, ms,
                    text.tiles * double(kHitTile) / 1e6 / ms);
    }
    return 0;
} catch (const std::exception &e) {
    std::fprintf(stderr, "bench_run_literals: %s\n", e.what());
    return 1;
}
