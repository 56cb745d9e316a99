// gpu/approx/bench_common.h - shared helpers of the GPU benchmarks (timing, uploads, options).
#pragma once

#include "gpu/cuda_check.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <thread>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace wm::approx::bench {

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

template <typename F> double wall_ms(F &&f) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// A device copy of v (one element's room when v is empty); benchmarks keep
// theirs until the process ends.
template <typename T> T *upload(const std::vector<T> &v) {
    T *p = nullptr;
    WM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&p), std::max<size_t>(1, v.size()) * sizeof(T)));
    if (!v.empty()) WM_CUDA_CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

// CUDA-event timing on the default stream.
struct DeviceTimer {
    cudaEvent_t e0{}, e1{};
    DeviceTimer() {
        WM_CUDA_CHECK(cudaEventCreate(&e0));
        WM_CUDA_CHECK(cudaEventCreate(&e1));
    }
    ~DeviceTimer() {
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
    // Median over `repeats` runs after one warm-up, in ms.
    template <typename F> double median_ms(int repeats, F &&f) {
        std::vector<double> t;
        for (int r = 0; r < repeats + 1; ++r) {
            WM_CUDA_CHECK(cudaEventRecord(e0));
            f();
            WM_CUDA_CHECK(cudaEventRecord(e1));
            WM_CUDA_CHECK(cudaEventSynchronize(e1));
            float ms = 0;
            WM_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
            if (r) t.push_back(ms);
        }
        return median(t);
    }
};

struct Options {
    std::string pcap;          // replay part (empty: skipped)
    std::string json = "bench_approx.json";
    int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); // CPU peers: every core
    int repeats = 5;
    bool seed = true, kdiff = true, rules = true;
    bool seed_cpu = true;      // sequential CPU column of Table 1 (slow: ~15 s)
};

// Parts; each appends its results to `out`.
void run_seed_table(const Options &o, nlohmann::json &out);
void run_kdiff_vs_edlib(const Options &o, nlohmann::json &out);
void run_rules_replay(const Options &o, nlohmann::json &out);

} // namespace wm::approx::bench
