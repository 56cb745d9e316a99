// gpu/exact/bench_exact_common.h - helpers of the bench_exact program: options,
// medians, fast random text, CPU peers (KMP and Hyperscan on all host cores).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace wm::gpu::exact::bench {

struct Options {
    std::vector<int> log_sizes{20, 22, 24, 26, 28, 30};
    uint32_t m = 1000;
    int reps = 10;
    int cpu_reps = 3;
    std::string json_path = "bench_exact.json";
    std::string literals_path, corpus_path;
    size_t batch_bytes = 64u << 20;
};

double median(std::vector<double> v);

inline double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Lower-case letters from a splitmix/xorshift stream, generated on all cores.
void fill_random_letters(uint8_t *dst, uint64_t n, uint64_t seed);

// CPU peers over the whole text, split into one slice per host thread (each
// slice extended by m-1 bytes so no occurrence is lost or counted twice).
// Return sorted start positions. One thread runs on the caller's (no
// thread is started), so a small text is not timed mostly starting threads.
std::vector<uint32_t> kmp_parallel(const uint8_t *text, uint64_t n, const std::string &p, int threads);
// Its scratch spaces (one per host thread) are allocated once, here, not in
// the timed search.
class HyperscanLiteral {
  public:
    explicit HyperscanLiteral(const std::string &p);
    ~HyperscanLiteral();
    std::vector<uint32_t> search(const uint8_t *text, uint64_t n, int threads) const;

  private:
    void *db_ = nullptr;
    std::vector<void *> scratch_; // hs_scratch_t per thread
    uint32_t m_ = 0;
};
int host_threads();

// Subcommands.
int run_seed_tables(const Options &o, nlohmann::json &out);
int run_engine(const Options &o, nlohmann::json &out);

} // namespace wm::gpu::exact::bench
