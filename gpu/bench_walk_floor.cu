// gpu/bench_walk_floor.cu - the floor of a walk that takes one dependent
// table load per byte: the matcher's own automaton (compile_ac, folded
// classes, 16-byte keys, every state a dense row where the device allows it)
// over the same real payloads, with none of the kernel's work around the step.
// The text is translated to class ids on the host; each thread walks fixed
// tiles of the concatenated payloads from the root, back to the root at every
// payload's first byte, and folds its states into one checksum word per tile.
// No outputs, no case history, no run-out, no shared memory: about 8 thread
// instructions per byte. So it bounds a walk shaped like the kernels' (a
// thread per tile, one dependent load per byte) on these rows; the matcher's
// kernels (bench_ac_kernel) pay their outputs and bookkeeping on top.
//
//   bench_walk_floor --literals L.txt --corpus C [--gb 2] [--sweep 1000,3000,10000,0] [--walks 1,2]
//                    [--blocks-per-sm 8,6,4] [--entry-bits 32,16] [--narrow-limit 65535,16383]
//                    [--hot-rows 64,256] [--hot-threads 1024,512,256]
//
// --walks 2: each thread walks two tiles side by side (two loads in flight).
// --blocks-per-sm: resident blocks of 256 threads per SM (at most what fits).
// --entry-bits 16: a 16-bit copy of the rows, each entry the bare target or
// 0xffff where it does not fit (then the 32-bit row is read too): what
// narrower rows would buy (no output flags in them; the kernels need those).
// --narrow-limit 65535,16383: targets from the limit up escape to the 32-bit
// row (16383: what is left beside two flag bits).
// --hot-rows 64,256 [--hot-threads 1024,512,256]: the first N states' rows
// in shared memory as 16-bit entries, one copy per block (the shallow
// states take most steps: docs/PERFORMANCE.md, "Where the walk's steps start").
// Before timing, every tile of one corpus copy is checked against the CPU
// walk of the same rows (ac_step, shared with the kernels).
#include "gpu/ac_bench_corpus.h"
#include "gpu/ac_compile.h"
#include "gpu/approx/bench_common.h"
#include "gpu/ac_tuning.h"
#include "gpu/ac_walk.cuh"
#include "gpu/cuda_check.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>

using namespace wm::gpu;
using namespace wm::gpu::bench;

namespace {

constexpr uint32_t kTile = 64;    // bytes per tile: four 16-byte loads of class ids
constexpr uint32_t kThreads = 256;

// One step. NARROW: `narrow` holds each row entry's bare target in 16 bits,
// 0xffff where it does not fit, and only those read the 32-bit row too.
template <typename StateT, bool NARROW>
WM_HD inline uint32_t floor_step(const AcGroupView &g, const uint16_t *narrow, uint32_t s, uint32_t c) {
    if (NARROW) {
        const uint32_t v = wm_ld(&narrow[s * g.num_classes + c]);
        if (v != 0xffffu) return v;
    }
    return ac_step<StateT, false>(g, s, c) & ~state_flags<StateT>();
}

// One byte of a tile: back to the root where a payload starts, one step on
// class c, the state folded into the tile's checksum.
template <typename StateT, bool NARROW>
WM_HD inline void floor_byte(const AcGroupView &g, const uint16_t *narrow, bool payload_start, uint32_t c, uint32_t &s,
                             uint32_t &sum) {
    if (payload_start) s = 0;
    s = floor_step<StateT, NARROW>(g, narrow, s, c);
    sum = sum * 31u + s;
}

// One tile's walk on the host: classes of kTile bytes, bit j of `starts` set
// where a payload begins at byte j. Returns the checksum; counts the steps
// that read a 32-bit entry after a 16-bit one.
template <typename StateT, bool NARROW>
uint32_t floor_tile(const AcGroupView &g, const uint16_t *narrow, const uint8_t *cls, uint64_t starts,
                    uint64_t *wide_steps) {
    uint32_t s = 0, sum = 0;
    for (uint32_t j = 0; j < kTile; ++j) {
        const bool start = (starts >> j) & 1u;
        if (NARROW && narrow[(start ? 0 : s) * g.num_classes + cls[j]] == 0xffffu) ++*wide_steps;
        floor_byte<StateT, NARROW>(g, narrow, start, cls[j], s, sum);
    }
    return sum;
}

template <typename StateT, int WALKS, bool NARROW>
__global__ void __launch_bounds__(kThreads) floor_kernel(AcGroupView g, const uint16_t *narrow, const uint4 *cls,
                                                        const uint64_t *starts, size_t tiles, uint32_t *out) {
    const size_t stride = size_t{gridDim.x} * kThreads * WALKS;
    for (size_t t0 = (size_t{blockIdx.x} * kThreads + threadIdx.x) * WALKS; t0 < tiles; t0 += stride) {
        uint4 w[WALKS][kTile / 16];
        uint64_t st[WALKS];
        uint32_t s[WALKS], sum[WALKS];
#pragma unroll
        for (int k = 0; k < WALKS; ++k) {
            const size_t t = min(t0 + k, tiles - 1);
#pragma unroll
            for (uint32_t q = 0; q < kTile / 16; ++q) w[k][q] = __ldg(&cls[t * (kTile / 16) + q]);
            st[k] = __ldg(&starts[t]);
            s[k] = 0, sum[k] = 0;
        }
#pragma unroll
        for (uint32_t j = 0; j < kTile; ++j) { // whole: constant shifts
#pragma unroll
            for (int k = 0; k < WALKS; ++k) {
                const uint4 &v = w[k][j / 16];
                const uint32_t word = (j & 15) < 4 ? v.x : (j & 15) < 8 ? v.y : (j & 15) < 12 ? v.z : v.w;
                const uint32_t c = (word >> (8 * (j & 3))) & 0xffu;
                floor_byte<StateT, NARROW>(g, narrow, (st[k] >> j) & 1u, c, s[k], sum[k]);
            }
        }
#pragma unroll
        for (int k = 0; k < WALKS; ++k)
            if (t0 + k < tiles) out[t0 + k] = sum[k];
    }
}

// Classes of the corpus tiled to >= want bytes (padded to whole tiles with
// class 0) and the payload-start bit of every byte.
struct FloorText {
    std::vector<uint8_t> cls;
    std::vector<uint64_t> starts;
    size_t tiles = 0;
};

FloorText floor_text(const Corpus &c, const uint8_t *class_map, size_t want) {
    FloorText t;
    std::vector<uint8_t> one(c.bytes.size());
    for (size_t i = 0; i < one.size(); ++i) one[i] = class_map[c.bytes[i]];
    const size_t copies = std::max<size_t>(1, (want + one.size() - 1) / one.size());
    t.tiles = (copies * one.size() + kTile - 1) / kTile;
    t.cls.assign(t.tiles * kTile, 0);
    t.starts.assign(t.tiles, 0);
    for (size_t k = 0; k < copies; ++k) {
        const size_t base = k * one.size();
        std::memcpy(t.cls.data() + base, one.data(), one.size());
        for (uint32_t p = 0; p < c.count(); ++p) {
            const size_t at = base + c.offsets[p];
            t.starts[at / kTile] |= uint64_t{1} << (at % kTile);
        }
    }
    return t;
}

// Options of the sweep's rows.
struct FloorRuns {
    std::vector<unsigned> walks{1, 2}, blocks_per_sm{8}, entry_bits{32}, narrow_limits{65535};
    std::vector<unsigned> hot_rows, hot_threads{1024, 512, 256}; // --hot-rows: the shared-memory top's sweep
    size_t check_tiles = 0;
};

// The first n tiles' checksums in d_out against the CPU walk of the same
// rows; throws where one differs. Returns the steps that read a 32-bit entry
// after a 16-bit one (NARROW).
template <typename StateT, bool NARROW>
uint64_t check_tiles(const AcGroupView &hg, const uint16_t *h_narrow, const FloorText &text, const uint32_t *d_out,
                     size_t n, const std::string &label) {
    std::vector<uint32_t> got(n);
    WM_CUDA_CHECK(cudaMemcpy(got.data(), d_out, n * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    uint64_t wide = 0;
    for (size_t t = 0; t < n; ++t)
        bad += got[t] != floor_tile<StateT, NARROW>(hg, h_narrow, text.cls.data() + t * kTile, text.starts[t], &wide);
    if (bad) throw std::runtime_error(label + ": " + std::to_string(bad) + " of " + std::to_string(n) +
                                      " tiles differ from the CPU walk");
    return wide;
}

// The floor with the first `hot` states' rows in shared memory (16-bit
// entries, 0xffff where the target does not fit: that step reads the 32-bit
// row too): what a dense shared-memory top would buy. Block size at launch.
template <typename StateT>
__global__ void __launch_bounds__(1024) hot_floor_kernel(AcGroupView g, const uint16_t *hot_rows, uint32_t hot,
                                                         const uint4 *cls, const uint64_t *starts, size_t tiles,
                                                         uint32_t *out) {
    extern __shared__ uint16_t smem_rows[];
    const uint32_t entries = hot * g.num_classes;
    for (uint32_t i = threadIdx.x; i < entries; i += blockDim.x) smem_rows[i] = hot_rows[i];
    __syncthreads();
    const size_t stride = size_t{gridDim.x} * blockDim.x;
    for (size_t t = size_t{blockIdx.x} * blockDim.x + threadIdx.x; t < tiles; t += stride) {
        uint4 w[kTile / 16];
#pragma unroll
        for (uint32_t q = 0; q < kTile / 16; ++q) w[q] = __ldg(&cls[t * (kTile / 16) + q]);
        const uint64_t st = __ldg(&starts[t]);
        uint32_t s = 0, sum = 0;
#pragma unroll
        for (uint32_t j = 0; j < kTile; ++j) {
            const uint4 &v = w[j / 16];
            const uint32_t word = (j & 15) < 4 ? v.x : (j & 15) < 8 ? v.y : (j & 15) < 12 ? v.z : v.w;
            const uint32_t c = (word >> (8 * (j & 3))) & 0xffu;
            if ((st >> j) & 1u) s = 0;
            uint32_t n = s < hot ? uint32_t{smem_rows[s * g.num_classes + c]} : 0xffffu;
            if (n == 0xffffu) n = ac_step<StateT, false>(g, s, c) & ~state_flags<StateT>();
            s = n;
            sum = sum * 31u + s;
        }
        out[t] = sum;
    }
}

// The hot rows' sweep: every (hot states, block size) that fits an SM, each
// checked against the CPU walk before it is timed.
template <typename StateT>
void run_hot(const AcGroupView &hg, const AcGroupView &dg, const FloorText &text, const uint4 *d_cls,
             const uint64_t *d_starts, uint32_t *d_out, const FloorRuns &runs, const cudaDeviceProp &prop,
             const std::string &label) {
    const auto *rows = static_cast<const uint32_t *>(hg.dense);
    for (unsigned hot : runs.hot_rows) {
        hot = std::min(hot, hg.num_states);
        const size_t entries = size_t{hot} * hg.num_classes, smem = std::max<size_t>(entries * 2, 2);
        std::vector<uint16_t> h(entries);
        size_t wide_entries = 0;
        for (size_t i = 0; i < entries; ++i) {
            const uint32_t t = (sizeof(StateT) == 4 ? rows[i] : static_cast<const uint16_t *>(hg.dense)[i]) &
                               ~state_flags<StateT>();
            h[i] = static_cast<uint16_t>(t < 0xffffu ? t : 0xffffu);
            wide_entries += t >= 0xffffu;
        }
        uint16_t *d_hot = nullptr;
        WM_CUDA_CHECK(cudaMalloc(&d_hot, std::max<size_t>(entries * 2, 2)));
        WM_CUDA_CHECK(cudaMemcpy(d_hot, h.data(), entries * 2, cudaMemcpyHostToDevice));
        auto kernel = hot_floor_kernel<StateT>;
        WM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(prop.sharedMemPerBlockOptin)));
        for (unsigned threads : runs.hot_threads) {
            int fit = 0;
            if (smem <= prop.sharedMemPerBlockOptin)
                WM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, threads, smem));
            if (fit == 0) {
                std::printf("%-26s hot rows %4u (%6.1f KB)  %4u threads: does not fit an SM\n", label.c_str(), hot,
                            smem / 1e3, threads);
                continue;
            }
            const unsigned grid = static_cast<unsigned>(fit * prop.multiProcessorCount);
            const size_t n = runs.check_tiles;
            kernel<<<grid, threads, smem>>>(dg, d_hot, hot, d_cls, d_starts, n, d_out);
            WM_CUDA_CHECK(cudaGetLastError());
            check_tiles<StateT, false>(hg, nullptr, text, d_out, n, label + ", hot rows");
            wm::approx::bench::DeviceTimer timer;
            const double med = timer.median_ms(7, [&] {
                kernel<<<grid, threads, smem>>>(dg, d_hot, hot, d_cls, d_starts, text.tiles, d_out);
                WM_CUDA_CHECK(cudaGetLastError());
            });
            std::printf("%-26s hot rows %4u (%6.1f KB, %zu wide)  %4u threads x %d blocks/SM  %8.3f ms  %7.1f GB/s\n",
                        label.c_str(), hot, smem / 1e3, wide_entries, threads, fit, med,
                        text.tiles * double(kTile) / 1e6 / med);
        }
        cudaFree(d_hot);
    }
}

// 16-bit copy of the group's rows (floor_step's NARROW table).
// Targets from `limit` up read the 32-bit row (limit 16383: the room that
// two flag bits in 16-bit entries would leave).
std::vector<uint16_t> narrow_rows(const AcGroupView &hg, uint32_t limit) {
    const auto *rows = static_cast<const uint32_t *>(hg.dense);
    std::vector<uint16_t> n(size_t{hg.num_states} * hg.num_classes);
    for (size_t i = 0; i < n.size(); ++i) {
        const uint32_t t = rows[i] & ~state_flags<uint32_t>();
        n[i] = static_cast<uint16_t>(t < limit ? t : 0xffffu);
    }
    return n;
}

// One kernel instance over the text; narrow_limit: the 16-bit table's (NARROW).
template <typename StateT, int WALKS, bool NARROW>
void run_variant(const AcGroupView &hg, const AcGroupView &dg, const uint16_t *h_narrow, const uint16_t *d_narrow,
                 unsigned narrow_limit, const FloorText &text, const uint4 *d_cls, const uint64_t *d_starts,
                 uint32_t *d_out, const FloorRuns &runs, const cudaDeviceProp &prop, const std::string &label) {
    auto kernel = floor_kernel<StateT, WALKS, NARROW>;
    int fit = 0;
    WM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, kThreads, 0));
    // Check: one corpus copy's tiles against the CPU walk of the same rows.
    const size_t n = runs.check_tiles;
    kernel<<<static_cast<unsigned>(fit * prop.multiProcessorCount), kThreads>>>(dg, d_narrow, d_cls, d_starts, n, d_out);
    WM_CUDA_CHECK(cudaGetLastError());
    const uint64_t wide = check_tiles<StateT, NARROW>(hg, h_narrow, text, d_out, n, label);
    wm::approx::bench::DeviceTimer timer;
    for (unsigned want : runs.blocks_per_sm) {
        const int per_sm = std::min<int>(fit, static_cast<int>(want));
        const unsigned grid = static_cast<unsigned>(per_sm * prop.multiProcessorCount);
        const double med = timer.median_ms(7, [&] {
            kernel<<<grid, kThreads>>>(dg, d_narrow, d_cls, d_starts, text.tiles, d_out);
            WM_CUDA_CHECK(cudaGetLastError());
        });
        std::printf("%-26s %2u-bit entries  walks %d  blocks/SM %d  %8.3f ms  %7.1f GB/s", label.c_str(),
                    NARROW ? 16u : 8u * static_cast<unsigned>(sizeof(StateT)), WALKS, per_sm, med,
                    text.tiles * double(kTile) / 1e6 / med);
        if (NARROW)
            std::printf("  (ids < %u: %.2f%% of steps read a 32-bit entry too)", narrow_limit,
                        100.0 * wide / (double(n) * kTile));
        std::printf("\n");
    }
}

template <typename StateT>
void run_width(const AcGroupView &hg, const AcGroupView &dg, const FloorText &text, const FloorRuns &runs,
               const cudaDeviceProp &prop, const std::string &label) {
    uint4 *d_cls;
    uint64_t *d_starts;
    uint32_t *d_out;
    uint16_t *d_narrow = nullptr;
    WM_CUDA_CHECK(cudaMalloc(&d_cls, text.cls.size()));
    WM_CUDA_CHECK(cudaMalloc(&d_starts, text.starts.size() * 8));
    WM_CUDA_CHECK(cudaMalloc(&d_out, text.tiles * 4));
    WM_CUDA_CHECK(cudaMemcpy(d_cls, text.cls.data(), text.cls.size(), cudaMemcpyHostToDevice));
    WM_CUDA_CHECK(cudaMemcpy(d_starts, text.starts.data(), text.starts.size() * 8, cudaMemcpyHostToDevice));
    // The 32-bit rows once, a 16-bit table per limit (the 16-bit state rows
    // of a small set are narrow already).
    std::vector<unsigned> tables;
    for (unsigned bits : runs.entry_bits)
        if (bits == 32) tables.push_back(0);
        else if (sizeof(StateT) == 4) tables.insert(tables.end(), runs.narrow_limits.begin(), runs.narrow_limits.end());
    if (!runs.hot_rows.empty()) run_hot<StateT>(hg, dg, text, d_cls, d_starts, d_out, runs, prop, label);
    for (unsigned limit : tables) {
        std::vector<uint16_t> narrow;
        if (limit) {
            narrow = narrow_rows(hg, limit);
            WM_CUDA_CHECK(cudaMalloc(&d_narrow, narrow.size() * 2));
            WM_CUDA_CHECK(cudaMemcpy(d_narrow, narrow.data(), narrow.size() * 2, cudaMemcpyHostToDevice));
        }
        for (unsigned w : runs.walks) {
            if (limit && w == 2)
                run_variant<StateT, 2, true>(hg, dg, narrow.data(), d_narrow, limit, text, d_cls, d_starts, d_out, runs, prop, label);
            else if (limit)
                run_variant<StateT, 1, true>(hg, dg, narrow.data(), d_narrow, limit, text, d_cls, d_starts, d_out, runs, prop, label);
            else if (w == 2)
                run_variant<StateT, 2, false>(hg, dg, nullptr, nullptr, 0, text, d_cls, d_starts, d_out, runs, prop, label);
            else
                run_variant<StateT, 1, false>(hg, dg, nullptr, nullptr, 0, text, d_cls, d_starts, d_out, runs, prop, label);
        }
        cudaFree(d_narrow);
        d_narrow = nullptr;
    }
    cudaFree(d_cls);
    cudaFree(d_starts);
    cudaFree(d_out);
}

} // namespace

int main(int argc, char **argv) try {
    CLI::App app{"The floor of a one-load-per-byte walk of the AC rows over real payloads"};
    std::string literals, corpus_path;
    double gb = 2;
    std::vector<size_t> sweep{1000, 3000, 10000, 0};
    FloorRuns runs;
    app.add_option("--literals", literals, "literal list (bench_ac_kernel --import-rules)")->required();
    app.add_option("--corpus", corpus_path, "payload corpus (bench_ac_kernel --extract)")->required();
    app.add_option("--gb", gb, "GB of text (the corpus tiled)")->check(CLI::Range(0.001, 16.0));
    app.add_option("--sweep", sweep, "pattern counts (0: every literal)")->delimiter(',');
    app.add_option("--walks", runs.walks, "tiles per thread side by side")->delimiter(',')->check(CLI::IsMember({1, 2}));
    app.add_option("--blocks-per-sm", runs.blocks_per_sm, "resident blocks of 256 threads per SM")
        ->delimiter(',')
        ->check(CLI::Range(1, 8));
    app.add_option("--entry-bits", runs.entry_bits, "row entries: 32 (the kernels') and/or 16")
        ->delimiter(',')
        ->check(CLI::IsMember({16, 32}));
    app.add_option("--narrow-limit", runs.narrow_limits, "16-bit rows: targets from here up read the 32-bit row")
        ->delimiter(',')
        ->check(CLI::Range(1, 65535));
    app.add_option("--hot-rows", runs.hot_rows, "also: the first N states' rows in shared memory (16-bit)")
        ->delimiter(',');
    app.add_option("--hot-threads", runs.hot_threads, "block sizes of the hot-rows rows")
        ->delimiter(',')
        ->check(CLI::IsMember({128, 256, 512, 1024}));
    CLI11_PARSE(app, argc, argv);
    const auto all = load_literals(literals);
    const Corpus corpus = load_corpus(corpus_path);
    cudaDeviceProp prop{};
    WM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device %s, %d SMs; corpus %u payloads, %zu bytes; tiles of %u bytes\n", prop.name,
                prop.multiProcessorCount, corpus.count(), corpus.bytes.size(), kTile);
    const size_t want = static_cast<size_t>(gb * 1e9);
    runs.check_tiles = corpus.bytes.size() / kTile;
    for (size_t n : sweep) {
        const auto pats = literal_subset(all, n == 0 || n > all.size() ? all.size() : n, 7);
        AcCompileOptions co;
        co.key_bytes = tuning::kKeyBytes;
        co.dense_budget_bytes = tuning::dense_budget_bytes(prop.totalGlobalMem);
        const AcBlob blob = compile_ac(pats, co);
        const AcView hv = make_ac_view(blob.bytes.data(), blob.bytes.data());
        if (hv.num_groups != 1 || !ac_all_dense(hv)) {
            std::fprintf(stderr, "%zu patterns: the floor needs one group with every state dense (%s)\n", pats.size(),
                         blob.describe().c_str());
            return 1;
        }
        uint8_t *d_blob;
        WM_CUDA_CHECK(cudaMalloc(&d_blob, blob.bytes.size()));
        WM_CUDA_CHECK(cudaMemcpy(d_blob, blob.bytes.data(), blob.bytes.size(), cudaMemcpyHostToDevice));
        const AcView dv = make_ac_view(blob.bytes.data(), d_blob);
        const FloorText text = floor_text(corpus, hv.groups[0].class_map, want);
        const std::string label = std::to_string(pats.size()) + " patterns, " +
                                  std::to_string(hv.groups[0].num_states) + " states";
        std::printf("%s: %u classes, %.1f MB of rows, %.2f GB of text\n", label.c_str(), hv.groups[0].num_classes,
                    double(hv.groups[0].num_states) * hv.groups[0].num_classes * hv.state_bytes / 1e6,
                    text.tiles * double(kTile) / 1e9);
        if (hv.state_bytes == 2)
            run_width<uint16_t>(hv.groups[0], dv.groups[0], text, runs, prop, label);
        else
            run_width<uint32_t>(hv.groups[0], dv.groups[0], text, runs, prop, label);
        cudaFree(d_blob);
    }
    return 0;
} catch (const std::exception &e) {
    std::fprintf(stderr, "bench_walk_floor: %s\n", e.what());
    return 1;
}
