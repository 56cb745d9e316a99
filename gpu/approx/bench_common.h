// gpu/approx/bench_common.h - shared helpers of bench_approx (timing, JSON).
#pragma once

#include <nlohmann/json.hpp>

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

struct Options {
    std::string pcap;          // replay part (empty: skipped)
    std::string json = "bench_approx.json";
    int threads = 16;          // CPU peers
    int repeats = 5;
    bool seed = true, kdiff = true, rules = true;
    bool seed_cpu = true;      // sequential CPU column of Table 1 (slow: ~15 s)
};

// Parts; each appends its results to `out`.
void run_seed_table(const Options &o, nlohmann::json &out);
void run_kdiff_vs_edlib(const Options &o, nlohmann::json &out);
void run_rules_replay(const Options &o, nlohmann::json &out);

} // namespace wm::approx::bench
