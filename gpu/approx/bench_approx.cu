// gpu/approx/bench_approx.cu - benchmark program of approximate matching.
// Three parts, each printing measured figures beside the published / peer
// numbers, all written to one JSON file:
//   1. the seed's Table 1 (n = 2^22 random 0/1 bytes, m x D grid, GTX 580 ms
//      beside ours, sequential CPU ms beside their 27,720 ms for m = 1024);
//   2. bit-parallel k-differences kernel vs edlib (EDLIB_MODE_HW) on all host
//      cores, same (pattern, text) pairs, distances cross-checked;
//   3. 100 approximate rules (k = 1..3) over a capture's payloads: GPU direct
//      and prefilter routes vs Hyperscan (extended parameters) on all cores.
//
//   bench_approx [--pcap FILE] [--json OUT] [--threads N (default: every core)] [--repeats 5] [--only seed|kdiff|rules] [--no-seed-cpu]
#include "gpu/approx/bench_common.h"
#include "gpu/approx/seed_asm.h"
#include "gpu/approx/seed_kernels.h"
#include "gpu/cuda_check.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>

namespace wm::approx::bench {

namespace {
// Published Table 1 (GTX 580), ms; rows m = 32..1024, columns D = 16..2048.
const double kSeedMs[6][8] = {
    {178.2, 89.23, 44.92, 23.46, 23.53, 23.64, 23.90, 24.38},
    {178.6, 89.71, 46.74, 29.13, 29.13, 29.18, 29.39, 30.01},
    {181.1, 92.66, 55.81, 48.40, 48.51, 48.92, 50.16, 53.36},
    {187.0, 112.2, 95.77, 93.16, 91.83, 93.83, 100.1, 113.3},
    {236.5, 191.0, 184.6, 181.3, 185.0, 197.9, 224.1, 277.9},
    {419.6, 423.8, 432.3, 449.4, 483.4, 551.5, 687.7, 960.0}};
const double kSeedCpuMs[6] = {701.8, 1364, 2683, 5295, 10560, 27720};
} // namespace

namespace {

// The seed's grid of D plus larger D for the strip schedule (one warp per
// segment wants more segments than one block of m threads does).
const uint32_t kSeedDs[8] = {16, 32, 64, 128, 256, 512, 1024, 2048};
const uint32_t kStripDs[8] = {128, 256, 512, 1024, 2048, 4096, 8192, 16384};

} // namespace

void run_seed_table(const Options &o, nlohmann::json &out) {
    const uint64_t n = 1ull << 22;
    const uint32_t ms[6] = {32, 64, 128, 256, 512, 1024};
    std::mt19937 rng(2014);
    uint8_t *d_x = nullptr, *d_y = nullptr;
    unsigned long long *d_best = nullptr;
    WM_CUDA_CHECK(cudaMalloc(&d_x, 1024));
    WM_CUDA_CHECK(cudaMalloc(&d_y, n));
    WM_CUDA_CHECK(cudaMalloc(&d_best, 8));
    DeviceTimer timer;
    std::printf("\n== Seed Table 1: ASM, n = 2^22 random 0/1 bytes; ours ms (GTX 580 ms) ==\n"
                "   seed = their schedule (D blocks of m threads); strips = ours (D warps, m/32 rows per lane)\n");
    nlohmann::json rows = nlohmann::json::array();
    double best_1024 = 1e30;
    for (int mi = 0; mi < 6; ++mi) {
        const uint32_t m = ms[mi];
        std::vector<uint8_t> x(m), y(n);
        for (auto &c : x) c = uint8_t('0' + (rng() & 1));
        for (auto &c : y) c = uint8_t('0' + (rng() & 1)); // fresh Y per m
        WM_CUDA_CHECK(cudaMemcpy(d_x, x.data(), m, cudaMemcpyHostToDevice));
        WM_CUDA_CHECK(cudaMemcpy(d_y, y.data(), n, cudaMemcpyHostToDevice));
        AsmResult cpu{};
        double cpu_ms = 0;
        if (o.seed_cpu) cpu_ms = wall_ms([&] { cpu = asm_sequential(x.data(), m, y.data(), n); });
        nlohmann::json row{{"m", m}, {"cpu_ms", cpu_ms}, {"seed_cpu_ms", kSeedCpuMs[mi]}};
        for (const auto schedule : {SeedSchedule::Antidiagonal, SeedSchedule::Strips}) {
            const bool strips = schedule == SeedSchedule::Strips;
            const uint32_t *ds = strips ? kStripDs : kSeedDs;
            const char *name = strips ? "strips" : "seed";
            std::printf("%6u %-6s", m, name);
            double best = 1e30;
            uint32_t best_d = 0;
            bool all_ok = true;
            for (int di = 0; di < 8; ++di) {
                const uint32_t d = ds[di];
                const double med = timer.median_ms(o.repeats, [&] {
                    seed_asm_dispatch(d_x, m, d_y, n, d, d_best, nullptr, schedule);
                });
                unsigned long long h = 0;
                WM_CUDA_CHECK(cudaMemcpy(&h, d_best, 8, cudaMemcpyDeviceToHost));
                const AsmResult g{uint32_t(h >> 32), h & 0xffffffffull};
                const bool ok = !o.seed_cpu || g == cpu;
                all_ok &= ok;
                if (med < best) best = med, best_d = d;
                if (strips) std::printf(" D=%-5u %7.3f%s", d, med, ok ? "" : "!");
                else std::printf(" D=%-4u %7.3f (%6.1f)%s", d, med, kSeedMs[mi][di], ok ? "" : "!");
                row[name]["gpu_ms"][std::to_string(d)] = med;
                if (!strips) row[name]["seed_ms"][std::to_string(d)] = kSeedMs[mi][di];
                row["asm"] = {{"distance", g.distance}, {"end", g.end}};
            }
            const double cells = double(m) * double(n);
            const double seed_best = *std::min_element(kSeedMs[mi], kSeedMs[mi] + 8);
            std::printf(" | best %.3f ms at D=%u: %.0fx the seed's best, %.0fx our CPU, %.2f T cells/s%s\n", best,
                        best_d, seed_best / best, cpu_ms / best, cells / (best * 1e-3) / 1e12,
                        all_ok ? "" : "  MISMATCH vs CPU");
            row[name]["best_ms"] = best;
            row[name]["best_d"] = best_d;
            row[name]["matches_cpu"] = all_ok;
            row[name]["speedup_vs_seed_best"] = seed_best / best;
            if (m == 1024) best_1024 = std::min(best_1024, best);
        }
        std::printf("%6u CPU ms %8.0f (theirs %7.0f)\n", m, cpu_ms, kSeedCpuMs[mi]);
        rows.push_back(row);
    }
    std::printf("(! = differs from the sequential CPU result.) m = 1024: best %.3f ms = %.0fx the seed's 419.6 ms "
                "(target <= 4.2 ms)\n",
                best_1024, 419.6 / best_1024);
    out["seed_table1"] = rows;
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_best);
}

} // namespace wm::approx::bench

using namespace wm::approx::bench;

// Parses argv into o; returns -1 to go on, else the exit status (help, or an error already printed).
static int parse(int argc, char **argv, Options &o) {
    CLI::App app{"Approximate matching: the seed's Table 1, k-differences vs edlib, approximate rules vs Hyperscan"};
    app.option_defaults()->always_capture_default();
    app.add_option("--pcap", o.pcap, "capture for the approximate-rules replay part (skipped without)")
        ->check(CLI::ExistingFile);
    app.add_option("--json", o.json, "results file");
    app.add_option("--threads", o.threads, "CPU peer threads (edlib, Hyperscan)")->check(CLI::Range(1, 1024));
    app.add_option("--repeats", o.repeats, "timed repeats after one warm-up, median reported")
        ->check(CLI::Range(1, 1000));
    std::string only;
    app.add_option("--only", only, "run one part")->check(CLI::IsMember({"seed", "kdiff", "rules"}));
    bool no_seed_cpu = false;
    app.add_flag("--no-seed-cpu", no_seed_cpu, "skip the sequential CPU column of Table 1");
    CLI11_PARSE(app, argc, argv);
    o.seed_cpu = !no_seed_cpu;
    if (!only.empty()) {
        o.seed = only == "seed";
        o.kdiff = only == "kdiff";
        o.rules = only == "rules";
    }
    return -1;
}

int main(int argc, char **argv) {
    Options o;
    if (const int rc = parse(argc, argv, o); rc >= 0) return rc;
    try {
        std::string why;
        if (!wm::gpu::gpu_usable(0, &why)) {
            std::fprintf(stderr, "bench_approx: no usable GPU: %s\n", why.c_str());
            return 1;
        }
        cudaDeviceProp prop{};
        WM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
        std::printf("device %s, %d SMs; CPU peers on %d threads\n", prop.name, prop.multiProcessorCount, o.threads);
        nlohmann::json out{{"device", prop.name}, {"threads", o.threads}, {"repeats", o.repeats}};
        if (o.seed) run_seed_table(o, out);
        if (o.kdiff) run_kdiff_vs_edlib(o, out);
        if (o.rules && !o.pcap.empty()) run_rules_replay(o, out);
        std::ofstream(o.json) << out.dump(2) << "\n";
        std::printf("\nwrote %s\n", o.json.c_str());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_approx: %s\n", e.what());
        return 1;
    }
    return 0;
}
