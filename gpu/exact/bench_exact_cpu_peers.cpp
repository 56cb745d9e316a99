// gpu/exact/bench_exact_cpu_peers.cpp - random text and the CPU peers of the
// benchmark: KMP (the seed's baseline) and Hyperscan, each on all host cores.
#include "gpu/exact/bench_exact_common.h"
#include "gpu/bench_thread_pool.h"
#include "gpu/exact/exact_pattern.h"

#include <hs/hs.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace wm::gpu::exact::bench {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int host_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Threads started once (bench_thread_pool.h): a timed call starts none.
template <class F> static void parallel_for(int threads, F f) {
    static wm::gpu::bench::ThreadPool pool(host_threads());
    if (threads == 1) return f(0);
    pool.run(threads, f);
}

void fill_random_letters(uint8_t *dst, uint64_t n, uint64_t seed) {
    const int threads = host_threads();
    parallel_for(threads, [&](int t) {
        const uint64_t lo = n * t / threads, hi = n * (t + 1) / threads;
        uint64_t x = seed * 0x9E3779B97F4A7C15ull + t + 1;
        for (uint64_t i = lo; i < hi; ++i) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            dst[i] = static_cast<uint8_t>('a' + ((x >> 32) * 26 >> 32));
        }
    });
}

// Slice t owns starts [lo, hi); it scans [lo, hi + m - 1).
template <class Search>
static std::vector<uint32_t> sliced(const uint8_t *text, uint64_t n, uint32_t m, int threads, Search s) {
    std::vector<std::vector<uint32_t>> parts(threads);
    parallel_for(threads, [&](int t) {
        const uint64_t lo = n * t / threads, hi = n * (t + 1) / threads;
        const uint64_t end = std::min<uint64_t>(n, hi + m - 1);
        if (end <= lo) return;
        s(t, text + lo, end - lo, parts[t]);
        for (auto &p : parts[t]) p += static_cast<uint32_t>(lo);
    });
    std::vector<uint32_t> out;
    for (auto &p : parts) out.insert(out.end(), p.begin(), p.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end()); // overlap never duplicates, but be safe
    return out;
}

std::vector<uint32_t> kmp_parallel(const uint8_t *text, uint64_t n, const std::string &p, int threads) {
    const auto f = kmp_failure(p);
    return sliced(text, n, static_cast<uint32_t>(p.size()), threads,
                  [&](int, const uint8_t *t, uint64_t len, std::vector<uint32_t> &o) { kmp_search(t, len, p, f, o); });
}

HyperscanLiteral::HyperscanLiteral(const std::string &p) : m_(static_cast<uint32_t>(p.size())) {
    std::string re;
    char buf[8];
    for (unsigned char c : p) std::snprintf(buf, sizeof buf, "\\x%02x", c), re += buf;
    hs_database_t *db = nullptr;
    hs_compile_error_t *err = nullptr;
    if (hs_compile(re.c_str(), HS_FLAG_DOTALL, HS_MODE_BLOCK, nullptr, &db, &err) != HS_SUCCESS) {
        const std::string msg = err ? err->message : "?";
        hs_free_compile_error(err);
        throw std::runtime_error("hs_compile: " + msg);
    }
    db_ = db;
    for (int t = 0; t < host_threads(); ++t) {
        hs_scratch_t *scratch = nullptr;
        if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) throw std::runtime_error("hs_alloc_scratch");
        scratch_.push_back(scratch);
    }
}

HyperscanLiteral::~HyperscanLiteral() {
    for (void *s : scratch_) hs_free_scratch(static_cast<hs_scratch_t *>(s));
    hs_free_database(static_cast<hs_database_t *>(db_));
}

std::vector<uint32_t> HyperscanLiteral::search(const uint8_t *text, uint64_t n, int threads) const {
    auto *db = static_cast<hs_database_t *>(db_);
    const uint32_t m = m_;
    if (threads < 1 || threads > static_cast<int>(scratch_.size()))
        throw std::invalid_argument("HyperscanLiteral::search: 1.." + std::to_string(scratch_.size()) + " threads");
    return sliced(text, n, m, threads, [&](int thread, const uint8_t *t, uint64_t len, std::vector<uint32_t> &o) {
        auto *scratch = static_cast<hs_scratch_t *>(scratch_[thread]);
        struct Ctx { std::vector<uint32_t> *o; uint32_t m; } ctx{&o, m};
        hs_scan(db, reinterpret_cast<const char *>(t), static_cast<unsigned>(len), 0, scratch,
                [](unsigned, unsigned long long, unsigned long long to, unsigned, void *c) -> int {
                    auto *x = static_cast<Ctx *>(c);
                    x->o->push_back(static_cast<uint32_t>(to - x->m));
                    return 0;
                },
                &ctx);
    });
}

} // namespace wm::gpu::exact::bench
