// gpu/approx/bench_kdiff.cu - part 2 of bench_approx: the bit-parallel
// k-differences kernel (direct route, data resident, CUDA events) vs edlib
// (EDLIB_MODE_HW, EDLIB_TASK_DISTANCE) on all host cores over the same
// (pattern, text) pairs; every pair's best distance is cross-checked.
#include "gpu/approx/bench_common.h"
#include "gpu/approx/kdiff_kernels.h"
#include "gpu/bench_thread_pool.h"
#include "gpu/cuda_check.h"

#include <edlib.h>

#include <atomic>
#include <cstdio>
#include <random>
#include <thread>

namespace wm::approx::bench {

namespace {
struct Config {
    uint32_t m, k, patterns, texts, text_len;
};
} // namespace

void run_kdiff_vs_edlib(const Options &o, nlohmann::json &out) {
    cudaDeviceProp prop{};
    WM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("\n== Bit-parallel k-differences (Myers/Hyyro) vs edlib HW on %d threads ==\n", o.threads);
    std::printf("%5s %3s %6s %10s | %10s %9s | %10s %9s | %7s | check\n", "m", "k", "pats", "text MB",
                "GPU ms", "Tcells/s", "edlib ms", "Gcells/s", "GPU/ed");
    const Config cfgs[] = {{64, 4, 256, 64, 65536}, {256, 8, 64, 64, 65536}, {1024, 16, 32, 32, 65536}};
    nlohmann::json rows = nlohmann::json::array();
    std::mt19937 rng(99);
    const char *alpha = "acgt";
    for (const auto &c : cfgs) {
        std::vector<ApproxPattern> pats(c.patterns);
        for (auto &p : pats) {
            p.bytes.resize(c.m);
            for (auto &ch : p.bytes) ch = alpha[rng() & 3];
            p.k = c.k;
        }
        // Two fresh text sets, alternated between repeats (no cache-resident rerun).
        std::vector<uint8_t> text[2];
        std::vector<uint32_t> offsets{0};
        for (uint32_t t = 0; t < c.texts; ++t) offsets.push_back(offsets.back() + c.text_len);
        for (auto &tx : text) {
            tx.resize(offsets.back());
            for (auto &ch : tx) ch = uint8_t(alpha[rng() & 3]);
            // plant mutated copies so some pairs have distances <= k
            for (uint32_t t = 0; t < c.texts; ++t) {
                const auto &p = pats[rng() % pats.size()].bytes;
                const uint32_t at = offsets[t] + rng() % (c.text_len - c.m);
                for (uint32_t i = 0; i < c.m; ++i) tx[at + i] = (i % 97 == 5) ? 'g' : uint8_t(p[i]);
            }
        }
        const KdiffBlob blob = compile_kdiff(pats);
        KdiffDevice dev{upload(blob.groups), upload(blob.lanes), upload(blob.peq), upload(blob.group_of),
                        upload(blob.lane_of)};
        std::vector<WorkItem> work;
        build_work(offsets.data(), c.texts, work);
        uint8_t *d_text[2] = {upload(text[0]), upload(text[1])};
        uint32_t *d_off = upload(offsets), *d_count = nullptr;
        WorkItem *d_work = upload(work);
        const uint32_t cap = 1u << 22;
        ApproxMatch *d_out = nullptr;
        WM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&d_out), size_t{cap} * sizeof(ApproxMatch)));
        WM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&d_count), 4));
        DeviceTimer timer;
        int run = 0; // alternates the two text sets
        const double gpu_ms = timer.median_ms(o.repeats, [&] {
            WM_CUDA_CHECK(cudaMemsetAsync(d_count, 0, 4));
            kdiff_scan_dispatch(blob, dev, d_text[run++ & 1], d_off, d_work, uint32_t(work.size()),
                                KdiffOutput{d_out, d_count, cap}, prop.multiProcessorCount, nullptr);
        });
        // Last repeat used text[o.repeats & 1]: check it against edlib.
        const int used = o.repeats & 1;
        uint32_t n = 0;
        WM_CUDA_CHECK(cudaMemcpy(&n, d_count, 4, cudaMemcpyDeviceToHost));
        std::vector<ApproxMatch> res(std::min(n, cap));
        WM_CUDA_CHECK(cudaMemcpy(res.data(), d_out, res.size() * sizeof(ApproxMatch), cudaMemcpyDeviceToHost));
        std::vector<int> gpu_best(size_t{c.patterns} * c.texts, -1);
        for (const auto &m : res) {
            int &b = gpu_best[size_t{m.pattern} * c.texts + m.payload];
            if (b < 0 || int(m.distance) < b) b = int(m.distance);
        }
        std::vector<int> ed_best(gpu_best.size(), -2);
        // edlib as the GPU: a warm-up, then the median of the repeats, on
        // threads started once (bench_thread_pool.h).
        wm::gpu::bench::ThreadPool pool(o.threads);
        std::vector<double> ed_runs;
        for (int rep = 0; rep <= o.repeats; ++rep) {
            std::atomic<size_t> next{0};
            const double ms = wall_ms([&] {
                pool.run(o.threads, [&](int) {
                    for (size_t i; (i = next.fetch_add(1)) < ed_best.size();) {
                        const auto &p = pats[i / c.texts].bytes;
                        const uint32_t tx = uint32_t(i % c.texts);
                        EdlibAlignResult r = edlibAlign(
                            p.data(), int(p.size()), reinterpret_cast<const char *>(text[used].data() + offsets[tx]),
                            int(c.text_len), edlibNewAlignConfig(int(c.k), EDLIB_MODE_HW, EDLIB_TASK_DISTANCE, nullptr, 0));
                        ed_best[i] = r.editDistance;
                        edlibFreeAlignResult(r);
                    }
                });
            });
            if (rep) ed_runs.push_back(ms);
        }
        const double ed_ms = median(ed_runs);
        size_t agree = 0, found = 0;
        for (size_t i = 0; i < ed_best.size(); ++i) {
            agree += ed_best[i] == gpu_best[i];
            found += gpu_best[i] >= 0;
        }
        const double cells = double(c.m) * c.patterns * double(offsets.back());
        const bool ok = agree == ed_best.size() && n <= cap;
        std::printf("%5u %3u %6u %10.1f | %10.3f %9.2f | %10.1f %9.1f | %6.1fx | %s (%zu/%zu pairs agree, %zu within k)\n",
                    c.m, c.k, c.patterns, offsets.back() / 1e6, gpu_ms, cells / (gpu_ms * 1e-3) / 1e12, ed_ms,
                    cells / (ed_ms * 1e-3) / 1e9, ed_ms / gpu_ms, ok ? "ok" : "MISMATCH", agree, ed_best.size(), found);
        rows.push_back({{"m", c.m}, {"k", c.k}, {"patterns", c.patterns}, {"text_bytes", offsets.back()},
                        {"gpu_kernel_ms", gpu_ms}, {"gpu_tcells_per_s", cells / (gpu_ms * 1e-3) / 1e12},
                        {"edlib_ms", ed_ms}, {"edlib_threads", o.threads}, {"speedup", ed_ms / gpu_ms},
                        {"pairs_agree", agree}, {"pairs", ed_best.size()}, {"matches", n}});
        for (void *p : {(void *)dev.d_groups, (void *)dev.d_lanes, (void *)dev.d_peq, (void *)dev.d_group_of,
                        (void *)dev.d_lane_of, (void *)d_text[0], (void *)d_text[1], (void *)d_off,
                        (void *)d_work, (void *)d_out, (void *)d_count})
            WM_CUDA_CHECK(cudaFree(p));
    }
    out["kdiff_vs_edlib"] = rows;
}

} // namespace wm::approx::bench
