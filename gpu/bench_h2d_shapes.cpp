// gpu/bench_h2d_shapes.cpp - how fast pinned host-to-device copies run in
// the shapes the plugin path issues them: one large copy (the H2D probe)
// against chunk-sized copies, source addresses off the page boundary, the
// chunk's small offset and meta copies beside it, and several streams.
// A study of why a chunk's copy runs below the probe (docs/PERFORMANCE.md).
#include "gpu/cuda_check.h"
#include "gpu/pinned_host.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using wm::gpu::PinnedHostArray;

struct Shape {
    std::string name;
    size_t chunk = 32 << 20; // bytes per text copy
    size_t skew = 0;         // source offset past a 4 KiB boundary
    int streams = 1;
    size_t small_a = 0, small_b = 0; // per chunk: the offsets' and the meta's copies
    bool stride_odd = false;         // chunks start at arbitrary bytes (chunk + 1 apart)
};

struct Rig {
    PinnedHostArray<uint8_t> host, small;
    std::vector<uint8_t *> dev;
    std::vector<uint8_t *> dev_small;
    std::vector<cudaStream_t> streams;
    cudaEvent_t start{}, stop{};
};

// Copies `total` bytes in the shape's chunks; returns GB/s of the text bytes
// (the median of `repeats`).
double run_shape(Rig &r, const Shape &s, size_t total, int repeats) {
    std::vector<double> gbs;
    for (int rep = -1; rep < repeats; ++rep) {
        WM_CUDA_CHECK(cudaDeviceSynchronize());
        WM_CUDA_CHECK(cudaEventRecord(r.start, r.streams[0]));
        for (int i = 1; i < s.streams; ++i)
            WM_CUDA_CHECK(cudaStreamWaitEvent(r.streams[i], r.start, 0));
        size_t pos = s.skew, done = 0;
        int k = 0;
        while (done + s.chunk <= total) {
            cudaStream_t st = r.streams[k % s.streams];
            uint8_t *d = r.dev[k % r.dev.size()];
            WM_CUDA_CHECK(cudaMemcpyAsync(d, r.host.get() + pos, s.chunk, cudaMemcpyHostToDevice, st));
            if (s.small_a)
                WM_CUDA_CHECK(cudaMemcpyAsync(r.dev_small[k % r.dev.size()], r.small.get(), s.small_a,
                                              cudaMemcpyHostToDevice, st));
            if (s.small_b)
                WM_CUDA_CHECK(cudaMemcpyAsync(r.dev_small[k % r.dev.size()] + (4 << 20), r.small.get() + (4 << 20),
                                              s.small_b, cudaMemcpyHostToDevice, st));
            pos += s.chunk + (s.stride_odd ? 1 : 0);
            done += s.chunk;
            ++k;
        }
        for (int i = 1; i < s.streams; ++i) {
            cudaEvent_t e;
            WM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            WM_CUDA_CHECK(cudaEventRecord(e, r.streams[i]));
            WM_CUDA_CHECK(cudaStreamWaitEvent(r.streams[0], e, 0));
            WM_CUDA_CHECK(cudaEventDestroy(e));
        }
        WM_CUDA_CHECK(cudaEventRecord(r.stop, r.streams[0]));
        WM_CUDA_CHECK(cudaEventSynchronize(r.stop));
        float ms = 0;
        WM_CUDA_CHECK(cudaEventElapsedTime(&ms, r.start, r.stop));
        if (rep >= 0) gbs.push_back(done / 1e6 / ms);
    }
    std::sort(gbs.begin(), gbs.end());
    return gbs[gbs.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{"pinned H2D copies in the plugin path's shapes"};
    size_t total_mb = 1024;
    int repeats = 5;
    app.add_option("--mb", total_mb, "bytes copied per shape, MiB");
    app.add_option("--repeats", repeats, "timed repeats per shape (median)");
    CLI11_PARSE(app, argc, argv);
    try {
        const size_t total = total_mb << 20;
        Rig r;
        r.host = PinnedHostArray<uint8_t>(total + (64 << 20), "host");
        r.small = PinnedHostArray<uint8_t>(8 << 20, "small");
        for (int i = 0; i < 4; ++i) {
            r.dev.push_back(wm::gpu::dev_alloc<uint8_t>(260 << 20, "dev"));
            r.dev_small.push_back(wm::gpu::dev_alloc<uint8_t>(8 << 20, "dev_small"));
        }
        for (int i = 0; i < 4; ++i) {
            cudaStream_t s;
            WM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
            r.streams.push_back(s);
        }
        WM_CUDA_CHECK(cudaEventCreate(&r.start));
        WM_CUDA_CHECK(cudaEventCreate(&r.stop));
        const size_t M = 1 << 20;
        std::vector<Shape> shapes = {
            {"one 256 MiB copy at a time (the probe's shape)", 256 * M},
            {"128 MiB copies", 128 * M},
            {"64 MiB copies", 64 * M},
            {"32 MiB copies", 32 * M},
            {"16 MiB copies", 16 * M},
            {"32 MiB, source +1 byte", 32 * M, 1},
            {"32 MiB, source +8", 32 * M, 8},
            {"32 MiB, source +16", 32 * M, 16},
            {"32 MiB, source +64", 32 * M, 64},
            {"32 MiB, source +256", 32 * M, 256},
            {"32 MiB, starts at arbitrary bytes", 32 * M, 1, 1, 0, 0, true},
            {"32 MiB, 4 streams", 32 * M, 0, 4},
            {"32 MiB, 4 streams, arbitrary starts", 32 * M, 1, 4, 0, 0, true},
            {"32 MiB + 640 KB + 960 KB, 1 stream", 32 * M, 0, 1, 640 << 10, 960 << 10},
            {"32 MiB + 640 KB + 960 KB, 4 streams", 32 * M, 0, 4, 640 << 10, 960 << 10},
            {"32 MiB + 640 KB + 960 KB, 4 streams, arbitrary starts", 32 * M, 1, 4, 640 << 10, 960 << 10, true},
            {"64 MiB + 1.3 MB + 1.9 MB, 4 streams, arbitrary starts", 64 * M, 1, 4, 1280 << 10, 1920 << 10, true},
        };
        fmt::print("{} MiB per shape, median of {} after a warm-up\n", total_mb, repeats);
        for (const auto &s : shapes)
            fmt::print("{:<58} {:7.2f} GB/s (text bytes)\n", s.name, run_shape(r, s, total, repeats));
        for (auto s : r.streams)
            cudaStreamDestroy(s);
        for (auto *d : r.dev)
            cudaFree(d);
        for (auto *d : r.dev_small)
            cudaFree(d);
    } catch (const std::exception &e) {
        fmt::print(stderr, "bench_h2d_shapes: {}\n", e.what());
        return 1;
    }
    return 0;
}
