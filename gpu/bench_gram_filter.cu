// gpu/bench_gram_filter.cu - what finding the literals by a filter on short
// windows and a check of each pass would cost on the GPU, instead of an
// automaton walk (a study; gram_filter_model.h says what is found and how).
// A thread per 64-byte tile of the same tiled real payloads as
// bench_walk_hits, its bytes in registers, the pair and triple bitmaps and
// the Bloom filter in shared memory. Kernels:
//  - filter: the filter alone, its passes counted (the floor of the design);
//  - fused: each pass checked where it is found, hits stored as
//    (payload, literal) keys;
//  - split: the filter stores each tile's passes (up to 32), a second kernel
//    checks them (a tile with more checks its bytes again itself).
// Before the timing, one corpus copy's keys are checked against the CPU
// model (the same per-byte code). Beside bench_run_literals (the run and
// one-byte literals this leaves out) and bench_ac_kernel's Set row in the
// same call, it says whether such a matcher could beat the automaton.
//
//   bench_gram_filter --literals L.txt --corpus C --train T1 [T2...] [--gb 2]
//   [--bloom-bits 18,19,20]
#include "gpu/ac_bench_corpus.h"
#include "gpu/approx/bench_common.h"
#include "gpu/cuda_check.h"
#include "gpu/gram_filter_host.h"
#include "gpu/walk_hits_host.h"
#include "gpu/walk_hits_kernels.cuh" // hit_tile_byte, kThreads

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <set>

using namespace wm::gpu;
using namespace wm::gpu::bench;
using namespace wm::gpu::study;
using wm::approx::bench::upload;

namespace {

constexpr uint32_t kPassSlots = 32; // split: passes a tile stores

enum class Mode { Filter, Fused, Split };

struct DeviceText {
    const uint8_t *raw;
    const uint64_t *starts;
    const uint32_t *first_payload;
    const uint32_t *begins;
    size_t tiles;
};

struct KeyOut {
    unsigned long long *keys;
    unsigned long long *count; // [0] keys, [1] passes
    size_t cap;
};

__device__ inline void put_key(const KeyOut &o, unsigned long long k) {
    const unsigned long long at = atomicAdd(o.count, 1ull);
    if (at < o.cap) o.keys[at] = k;
}

// The tables' shared-memory copies: the pair bitmap, the triple bitmap, then
// the Bloom filter.
constexpr uint32_t kBitmapWords = kPairWords + kTripleWords;
__device__ inline void load_filter(const GramView &v, uint32_t *smem, uint32_t bloom_words) {
    for (uint32_t i = threadIdx.x; i < kPairWords; i += kThreads) smem[i] = __ldg(&v.pair_bits[i]);
    for (uint32_t i = threadIdx.x; i < kTripleWords; i += kThreads) smem[kPairWords + i] = __ldg(&v.triple_bits[i]);
    for (uint32_t i = threadIdx.x; i < bloom_words; i += kThreads) smem[kBitmapWords + i] = __ldg(&v.bloom[i]);
    __syncthreads();
}

// Checks one pass of tile x at byte j; the lane's last key in *last.
__device__ __noinline__ void check_pass(const GramView &v, const DeviceText &d, size_t x, uint64_t starts, uint32_t j,
                                        uint32_t kind, uint32_t key, const KeyOut &o, unsigned long long *last) {
    const uint32_t pid = __ldg(&d.first_payload[x]) + __popcll(starts & ~1ull & ((2ull << j) - 1));
    gram_check(
        v, [&](uint64_t i) { return __ldg(&d.raw[i]); }, x * kHitTile + j, kind, key, __ldg(&d.begins[pid]),
        __ldg(&d.begins[pid + 1]),
        [&](uint32_t lit) {
            const unsigned long long k = (unsigned long long)pid << 32 | lit;
            if (k != *last) put_key(o, k), *last = k;
        });
}

template <Mode M>
__global__ void __launch_bounds__(kThreads)
    gram_kernel(GramView v, uint32_t bloom_words, DeviceText d, KeyOut o, uint8_t *pass_count, uint8_t *passes) {
    extern __shared__ uint32_t smem[];
    load_filter(v, smem, bloom_words);
    const uint32_t *pair_bits = smem, *triple_bits = smem + kPairWords, *bloom = smem + kBitmapWords;
    unsigned long long n = 0;
    const size_t stride = size_t{gridDim.x} * kThreads;
    for (size_t x = size_t{blockIdx.x} * kThreads + threadIdx.x; x < d.tiles; x += stride) {
        const uint8_t *tile = d.raw + x * kHitTile;
        uint4 w[kHitTile / 16];
#pragma unroll
        for (uint32_t q = 0; q < kHitTile / 16; ++q) w[q] = __ldg(reinterpret_cast<const uint4 *>(tile) + q);
        const uint32_t after = __ldg(reinterpret_cast<const uint32_t *>(tile + kHitTile));
        const uint64_t starts = M == Mode::Fused ? __ldg(&d.starts[x]) : 0;
        unsigned long long last = ~0ull;
        uint32_t stored = 0;
        gram_filter_tile<kHitTile>(
            v, pair_bits, triple_bits, bloom,
            [&](uint32_t j) { return j < kHitTile ? hit_tile_byte(w, j) : (after >> (8 * (j - kHitTile))) & 0xffu; },
            [&](uint32_t j, uint32_t kind, uint32_t key) {
                ++n;
                if constexpr (M == Mode::Fused) check_pass(v, d, x, starts, j, kind, key, o, &last);
                if constexpr (M == Mode::Split) {
                    if (stored < kPassSlots) passes[x * kPassSlots + stored] = static_cast<uint8_t>(j | kind << 6);
                    ++stored;
                }
            });
        if constexpr (M == Mode::Split) pass_count[x] = static_cast<uint8_t>(stored < 255 ? stored : 255);
    }
    n = __reduce_add_sync(~0u, static_cast<unsigned>(n));
    if ((threadIdx.x & 31) == 0) atomicAdd(o.count + 1, n);
}

// Split's second kernel: a thread per tile checks its stored passes.
__global__ void __launch_bounds__(kThreads)
    check_kernel(GramView v, DeviceText d, KeyOut o, const uint8_t *pass_count, const uint8_t *passes) {
    const size_t stride = size_t{gridDim.x} * kThreads;
    for (size_t x = size_t{blockIdx.x} * kThreads + threadIdx.x; x < d.tiles; x += stride) {
        const uint32_t n = pass_count[x];
        if (n == 0) continue;
        const uint64_t starts = __ldg(&d.starts[x]);
        const uint8_t *tile = d.raw + x * kHitTile;
        unsigned long long last = ~0ull;
        if (n > kPassSlots) { // more than it stored: filter the tile again from
                              // global memory
            gram_filter_tile<kHitTile>(
                v, v.pair_bits, v.triple_bits, v.bloom, [&](uint32_t j) { return uint32_t{__ldg(&tile[j])}; },
                [&](uint32_t j, uint32_t kind, uint32_t key) { check_pass(v, d, x, starts, j, kind, key, o, &last); });
            continue;
        }
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t p = passes[x * kPassSlots + i], j = p & 63u, kind = p >> 6;
            const uint32_t width = kind == 0 ? 2 : kind == 1 ? 4 : 3;
            uint32_t key = 0;
            for (uint32_t b = 0; b < width; ++b) key |= uint32_t{fold_ascii(__ldg(&tile[j + b]))} << (8 * b);
            check_pass(v, d, x, starts, j, kind, key, o, &last);
        }
    }
}

GramView device_view(const GramTables &t) {
    return {upload(t.pair_bits),
            upload(t.bloom),
            t.bloom_shift,
            upload(t.triple_bits),
            upload(t.pair_range),
            {upload(t.keys[0]), upload(t.keys[1])},
            {upload(t.range[0]), upload(t.range[1])},
            {t.shift[0], t.shift[1]},
            upload(t.atts),
            upload(t.lit_off),
            upload(t.lit_len),
            upload(t.lit_bytes)};
}

} // namespace

int main(int argc, char **argv) try {
    CLI::App app{"The literals found by a filter on short windows and a check "
                 "per pass (a study)"};
    std::string literals, corpus_path;
    std::vector<std::string> train_paths;
    double gb = 2;
    std::vector<unsigned> bloom_bits{18, 19, 20};
    app.add_option("--literals", literals, "literal list (bench_ac_kernel --import-rules)")->required();
    app.add_option("--corpus", corpus_path, "payload corpus (bench_ac_kernel --extract)")->required();
    app.add_option("--train", train_paths, "corpora whose quad counts choose the windows (other captures)");
    app.add_option("--gb", gb, "GB of text (the corpus tiled)")->check(CLI::Range(0.001, 3.5));
    app.add_option("--bloom-bits", bloom_bits, "log2 of the Bloom filter's bits, one run each")
        ->delimiter(',')
        ->check(CLI::Range(10, 20));
    CLI11_PARSE(app, argc, argv);
    const auto all = load_literals(literals);
    const Corpus corpus = load_corpus(corpus_path);
    std::vector<Corpus> training;
    for (const auto &p : train_paths) training.push_back(load_corpus(p));
    const QuadCounts counts = quad_counts(all, training);

    cudaDeviceProp prop{};
    WM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    const HitText text = hit_text(corpus.bytes.data(), corpus.offsets, static_cast<size_t>(gb * 1e9));
    const size_t one = corpus.bytes.size(), copies = (text.tiles * kHitTile + one - 1) / one;
    std::vector<uint32_t> begins;
    for (size_t k = 0; k < copies; ++k)
        for (uint32_t p = 0; p < corpus.count(); ++p)
            begins.push_back(static_cast<uint32_t>(k * one + corpus.offsets[p]));
    begins.push_back(static_cast<uint32_t>(copies * one));
    const DeviceText d{upload(text.raw), upload(text.starts), upload(text.first_payload), upload(begins), text.tiles};
    const double bytes = text.tiles * double(kHitTile);
    std::printf("device %s, %d SMs; text %.2f GB in %zu tiles; %zu training corpora\n", prop.name,
                prop.multiProcessorCount, bytes / 1e9, text.tiles, training.size());

    const size_t check_tiles = one / kHitTile;
    const size_t key_cap = std::max<size_t>(1 << 20, static_cast<size_t>(bytes * 0.04));
    KeyOut o{nullptr, nullptr, key_cap};
    WM_CUDA_CHECK(cudaMalloc(&o.keys, key_cap * 8));
    WM_CUDA_CHECK(cudaMalloc(&o.count, 16));
    uint8_t *pass_count = nullptr, *passes = nullptr;
    WM_CUDA_CHECK(cudaMalloc(&pass_count, text.tiles));
    WM_CUDA_CHECK(cudaMalloc(&passes, text.tiles * kPassSlots));
    wm::approx::bench::DeviceTimer timer;

    for (unsigned log2 : bloom_bits) {
        const GramTables t = gram_tables(all, counts, log2);
        const GramView v = device_view(t);
        const uint32_t bloom_words = static_cast<uint32_t>(t.bloom.size());
        const size_t smem = (kBitmapWords + bloom_words) * 4;
        int fit[3] = {};
        auto setup = [&](auto kernel, int *f) {
            WM_CUDA_CHECK(
                cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
            WM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(f, kernel, kThreads, smem));
        };
        setup(gram_kernel<Mode::Filter>, &fit[0]);
        setup(gram_kernel<Mode::Fused>, &fit[1]);
        setup(gram_kernel<Mode::Split>, &fit[2]);
        int fit_check = 0;
        WM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit_check, check_kernel, kThreads, 0));
        auto grid = [&](int f) { return static_cast<unsigned>(std::max(1, f) * prop.multiProcessorCount); };
        DeviceText dc = d;
        auto run = [&](Mode m, size_t tiles) {
            dc.tiles = tiles;
            WM_CUDA_CHECK(cudaMemsetAsync(o.count, 0, 16));
            if (m == Mode::Filter)
                gram_kernel<Mode::Filter><<<grid(fit[0]), kThreads, smem>>>(v, bloom_words, dc, o, pass_count, passes);
            if (m == Mode::Fused)
                gram_kernel<Mode::Fused><<<grid(fit[1]), kThreads, smem>>>(v, bloom_words, dc, o, pass_count, passes);
            if (m == Mode::Split) {
                gram_kernel<Mode::Split><<<grid(fit[2]), kThreads, smem>>>(v, bloom_words, dc, o, pass_count, passes);
                check_kernel<<<grid(fit_check), kThreads>>>(v, dc, o, pass_count, passes);
            }
            WM_CUDA_CHECK(cudaGetLastError());
        };
        auto counters = [&] {
            unsigned long long c[2];
            WM_CUDA_CHECK(cudaMemcpy(c, o.count, 16, cudaMemcpyDeviceToHost));
            return std::pair<unsigned long long, unsigned long long>{c[0], c[1]};
        };

        // Check: one corpus copy's keys (as a multiset) against the CPU model.
        std::vector<unsigned long long> want;
        uint64_t model_passes = 0;
        for (size_t x = 0; x < check_tiles; ++x)
            gram_tile_host(
                t.view(), text.raw.data(), x, text.starts[x], text.first_payload[x], begins.data(),
                [&](uint32_t p, uint32_t lit) { want.push_back(uint64_t{p} << 32 | lit); }, &model_passes);
        std::sort(want.begin(), want.end());
        const size_t distinct = std::set<unsigned long long>(want.begin(), want.end()).size();
        std::printf("2^%u-bit Bloom filter (%zu KB shared with the bitmaps): %zu "
                    "pair, %zu triple and %zu quad literals "
                    "(%zu quads); blocks/SM filter %d fused %d split %d+%d\n",
                    log2, smem / 1024, t.pair_literals, t.triple_literals, t.quad_literals, t.quads, fit[0], fit[1],
                    fit[2], fit_check);
        std::printf("model over one copy (%zu tiles): %.4f passes/byte, %.4f "
                    "hits/byte, %zu distinct (payload, literal)\n",
                    check_tiles, model_passes / double(check_tiles * kHitTile),
                    want.size() / double(check_tiles * kHitTile), distinct);
        bool bad = false;
        for (Mode m : {Mode::Fused, Mode::Split}) {
            run(m, check_tiles);
            const auto [nkeys, npasses] = counters();
            std::vector<unsigned long long> got(std::min<size_t>(nkeys, key_cap));
            WM_CUDA_CHECK(cudaMemcpy(got.data(), o.keys, got.size() * 8, cudaMemcpyDeviceToHost));
            std::sort(got.begin(), got.end());
            const bool equal = got == want;
            std::printf("check %s: %llu keys, %s\n", m == Mode::Fused ? "fused" : "split", nkeys,
                        equal ? "EQUAL" : "DIFFERENT");
            bad |= !equal;
        }
        if (bad) return 1;

        for (Mode m : {Mode::Filter, Mode::Fused, Mode::Split}) {
            const double ms = timer.median_ms(5, [&] { run(m, text.tiles); });
            const auto [nkeys, npasses] = counters();
            std::printf("  %-6s %8.3f ms %8.1f GB/s   passes %.4f/byte, keys %.4f/byte%s\n",
                        m == Mode::Filter  ? "filter"
                        : m == Mode::Fused ? "fused"
                                           : "split",
                        ms, bytes / 1e6 / ms, npasses / bytes, nkeys / bytes,
                        nkeys > key_cap ? " (key buffer overflowed)" : "");
        }
    }
    return 0;
} catch (const std::exception &e) {
    std::fprintf(stderr, "bench_gram_filter: %s\n", e.what());
    return 1;
}
