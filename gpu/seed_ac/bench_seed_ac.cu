// gpu/seed_ac/bench_seed_ac.cu - reproduces the 2023 AC-GPU study's Tables 5
// and 2 with the seed_ac kernel family: for every configuration, fresh random
// text per repeat (same seeds for every variant), CUDA-event kernel times
// (median of repeats after warm-up), their TITAN V milliseconds beside ours,
// the CPU peer (same DFA walk on all host cores) with the ratio, and a count
// check of every variant and repeat against Baseline and of the first repeat
// against the CPU. Writes JSON. Exit status 1 on any count mismatch.
//
//   bench_seed_ac [--tables 2|5|2,5] [--reps 7] [--warmup 2] [--cpu-reps 3] [--log2-len-cap K] [--json PATH]
#include "gpu/seed_ac/bench_seed_ac_configs.h"
#include "gpu/seed_ac/seed_ac_cpu_walk.h"
#include "gpu/seed_ac/seed_ac_cuda_check.h"
#include "gpu/seed_ac/seed_ac_gpu.h"
#include "gpu/seed_ac/seed_ac_problem.h"
#include "gpu/seed_ac/seed_ac_walk.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace wm::seed_ac;
using nlohmann::json;

// Command-line options (CLI11: unknown options and out-of-range values are refused).
struct Options {
    std::vector<int> tables{2, 5}; // which of the study's tables run
    int warmup = 2, reps = 7, cpu_reps = 3;
    int log2_cap = 40; // shrink L to at most 2^cap (smoke runs); printed
    std::string json_path = "bench_seed_ac.json";

    bool runs_table(int table) const { return std::find(tables.begin(), tables.end(), table) != tables.end(); }
};

// Parses argv into o; returns -1 to go on, else the exit status (help, or an error already printed).
int parse(int argc, char **argv, Options &o) {
    CLI::App app{"The 2023 AC-GPU study's Tables 5 and 2 with the seed_ac kernels, beside a CPU peer"};
    app.option_defaults()->always_capture_default();
    app.add_option("--tables", o.tables, "which of the study's tables to run: 2, 5 or 2,5")
        ->delimiter(',')
        ->check(CLI::IsMember({2, 5}));
    app.add_option("--reps", o.reps, "timed repeats per variant, fresh text each")->check(CLI::Range(1, 1000));
    app.add_option("--warmup", o.warmup, "untimed repeats first")->check(CLI::Range(0, 100));
    app.add_option("--cpu-reps", o.cpu_reps, "repeats of the CPU peer")->check(CLI::Range(1, 100));
    app.add_option("--log2-len-cap", o.log2_cap, "use L = min(L, 2^K), for smoke runs (40: the study's L)")
        ->check(CLI::Range(5, 40));
    app.add_option("--json", o.json_path, "output file");
    CLI11_PARSE(app, argc, argv);
    return -1;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? NAN : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

template <class T>
struct DeviceBuffer {
    T *ptr = nullptr;
    explicit DeviceBuffer(size_t n) { SEED_AC_CHECK(cudaMalloc(&ptr, n * sizeof(T) + 1)); }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
};

// Device-resident automaton of one order.
struct Uploaded {
    Automaton host;
    DeviceBuffer<int32_t> next;
    explicit Uploaded(Automaton a) : host(std::move(a)), next(host.next.size()) {
        SEED_AC_CHECK(cudaMemcpy(next.ptr, host.next.data(), host.table_bytes(), cudaMemcpyHostToDevice));
    }
    DeviceAutomaton view() const { return {next.ptr, host.num_states, host.alphabet, host.first_leaf}; }
};

// Per-pattern counts of one variant over device text already in place.
std::vector<uint64_t> run_counts(Variant v, const Uploaded &a, const DeviceText &text, int m,
                                 uint32_t *d_visits, cudaStream_t s, float *ms, LaunchInfo *info) {
    cudaEvent_t e0, e1;
    SEED_AC_CHECK(cudaEventCreate(&e0));
    SEED_AC_CHECK(cudaEventCreate(&e1));
    SEED_AC_CHECK(cudaMemsetAsync(d_visits, 0, sizeof(uint32_t) * a.host.num_states, s));
    SEED_AC_CHECK(cudaEventRecord(e0, s));
    *info = count_visits(v, a.view(), text, m, d_visits, s);
    SEED_AC_CHECK(cudaEventRecord(e1, s));
    SEED_AC_CHECK(cudaEventSynchronize(e1));
    SEED_AC_CHECK(cudaEventElapsedTime(ms, e0, e1));
    SEED_AC_CHECK(cudaEventDestroy(e0));
    SEED_AC_CHECK(cudaEventDestroy(e1));
    std::vector<uint32_t> visits(a.host.num_states);
    SEED_AC_CHECK(cudaMemcpy(visits.data(), d_visits, visits.size() * 4, cudaMemcpyDeviceToHost));
    return pattern_counts(a.host, visits.data());
}

// Small and edge cases: every variant against the naive count.
int self_check(cudaStream_t s) {
    struct Case { int c, n, m; uint64_t len; };
    const Case cases[] = {{2, 7, 1, 1, }, {4, 5, 3, 31}, {3, 40, 4, 8193}, {2, 64, 10, 100003},
                          {5, 300, 6, 65537}, {4, 200, 8, 262144 + 7}, {16, 50, 3, 40000}, {17, 30, 2, 9000}};
    int bad = 0;
    for (const Case &k : cases) {
        const auto pats = random_patterns(k.n, k.m, k.c, 1000 + k.n);
        const auto text = random_text(k.len, k.c, 2000 + k.len);
        const auto want = naive_counts(text, pats);
        const Uploaded ins(build_automaton(pats, k.c, StateOrder::kInsertion));
        const Uploaded bfs(build_automaton(pats, k.c, StateOrder::kBreadthFirst));
        const int bits = bits_for_alphabet(k.c);
        DeviceBuffer<uint32_t> bytes(text_words(k.len, 8)), packed(text_words(k.len, bits));
        DeviceBuffer<uint32_t> visits(ins.host.num_states);
        generate_text(bytes.ptr, text_words(k.len, 8), k.len, k.c, 2000 + k.len, s);
        pack_text(bytes.ptr, k.len, bits, packed.ptr, text_words(k.len, bits), s);
        for (Variant v : kAllVariants) {
            const VariantTraits t = traits(v);
            const DeviceText dt = t.packed ? DeviceText{packed.ptr, k.len, bits, text_words(k.len, bits)}
                                           : DeviceText{bytes.ptr, k.len, 8, text_words(k.len, 8)};
            float ms = 0;
            LaunchInfo li;
            const auto got = run_counts(v, t.breadth_first ? bfs : ins, dt, k.m, visits.ptr, s, &ms, &li);
            if (got != want) {
                ++bad;
                std::printf("SELF-CHECK FAIL %s C=%d N=%d M=%d L=%llu\n", t.name, k.c, k.n, k.m,
                            (unsigned long long)k.len);
            }
        }
    }
    std::printf("self-check: %zu small/edge cases x %zu variants vs naive count: %s\n",
                std::size(cases), kAllVariants.size(), bad ? "FAIL" : "all equal");
    return bad;
}

} // namespace

int main(int argc, char **argv) try {
    Options opt;
    if (const int rc = parse(argc, argv, opt); rc >= 0) return rc;
    std::string why;
    if (!gpu_usable(0, &why)) {
        std::fprintf(stderr, "bench_seed_ac: %s\n", why.c_str());
        return 3;
    }
    cudaDeviceProp prop{};
    SEED_AC_CHECK(cudaGetDeviceProperties(&prop, 0));
    const unsigned host_threads = std::max(1u, std::thread::hardware_concurrency());
    std::printf("device: %s, %d SMs, L2 %d MB; CPU peer on %u host threads\n", prop.name,
                prop.multiProcessorCount, prop.l2CacheSize >> 20, host_threads);
    cudaStream_t s;
    SEED_AC_CHECK(cudaStreamCreate(&s));
    int mismatches = self_check(s);

    json out;
    out["device"] = prop.name;
    out["sms"] = prop.multiProcessorCount;
    out["host_threads"] = host_threads;
    out["warmup"] = opt.warmup;
    out["reps"] = opt.reps;
    out["configs"] = json::array();
    std::vector<std::string> summary;

    for (const bench::SeedConfig &cfg : bench::seed_configs()) {
        if (!opt.runs_table(cfg.table)) continue;
        const int lg = std::min(cfg.log2_text, opt.log2_cap);
        const uint64_t len = 1ull << lg;
        const uint64_t pattern_seed = 0x5eedac00ull + cfg.alphabet * 100000ull + cfg.patterns * 100ull + cfg.length;
        const auto pats = random_patterns(cfg.patterns, cfg.length, cfg.alphabet, pattern_seed);
        const Uploaded ins(build_automaton(pats, cfg.alphabet, StateOrder::kInsertion));
        const Uploaded bfs(build_automaton(pats, cfg.alphabet, StateOrder::kBreadthFirst));
        const int bits = bits_for_alphabet(cfg.alphabet);
        const uint64_t byte_words = text_words(len, 8), packed_words = text_words(len, bits);
        DeviceBuffer<uint32_t> bytes(byte_words), packed(packed_words), visits(ins.host.num_states);
        const uint64_t text_seed0 = pattern_seed * 7919;

        // CPU peer on seed 0: the reference counts and the host figure.
        std::vector<uint64_t> cpu_counts;
        std::vector<double> cpu_ms;
        {
            const auto text = random_text(len, cfg.alphabet, text_seed0);
            for (int r = 0; r < opt.cpu_reps; ++r) {
                const auto t0 = std::chrono::steady_clock::now();
                const auto v = cpu_peer_visits(bfs.host, text.data(), len, host_threads);
                const auto t1 = std::chrono::steady_clock::now();
                cpu_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
                cpu_counts = pattern_counts(bfs.host, v.data());
            }
        }
        uint64_t total = 0;
        for (uint64_t c : cpu_counts) total += c;

        std::vector<std::vector<double>> ms(kAllVariants.size());
        std::vector<LaunchInfo> infos(kAllVariants.size());
        std::vector<int> bad(kAllVariants.size(), 0);
        std::vector<double> pack_ms;
        for (int r = 0; r < opt.warmup + opt.reps; ++r) {
            const uint64_t seed = text_seed0 + r;
            generate_text(bytes.ptr, byte_words, len, cfg.alphabet, seed, s);
            cudaEvent_t p0, p1;
            SEED_AC_CHECK(cudaEventCreate(&p0));
            SEED_AC_CHECK(cudaEventCreate(&p1));
            SEED_AC_CHECK(cudaEventRecord(p0, s));
            pack_text(bytes.ptr, len, bits, packed.ptr, packed_words, s);
            SEED_AC_CHECK(cudaEventRecord(p1, s));
            SEED_AC_CHECK(cudaEventSynchronize(p1));
            float pms = 0;
            SEED_AC_CHECK(cudaEventElapsedTime(&pms, p0, p1));
            SEED_AC_CHECK(cudaEventDestroy(p0));
            SEED_AC_CHECK(cudaEventDestroy(p1));
            if (r >= opt.warmup) pack_ms.push_back(pms);
            std::vector<uint64_t> baseline;
            for (size_t k = 0; k < kAllVariants.size(); ++k) {
                const VariantTraits t = traits(kAllVariants[k]);
                const DeviceText dt = t.packed ? DeviceText{packed.ptr, len, bits, packed_words}
                                               : DeviceText{bytes.ptr, len, 8, byte_words};
                float kms = 0;
                const auto got = run_counts(kAllVariants[k], t.breadth_first ? bfs : ins, dt, cfg.length,
                                            visits.ptr, s, &kms, &infos[k]);
                if (k == 0) baseline = got;
                else if (got != baseline) ++bad[k];
                if (r == 0 && got != cpu_counts) ++bad[k];
                if (r >= opt.warmup) ms[k].push_back(kms);
            }
        }

        const double cpu = median(cpu_ms);
        std::printf("\nTable %d  C=%d N=%d M=%d L=2^%d%s  states %d (theirs %s)  leaves %d  table %.1f KB  "
                    "occurrences %llu\n",
                    cfg.table, cfg.alphabet, cfg.patterns, cfg.length, lg,
                    lg < cfg.log2_text ? " (capped)" : "", ins.host.num_states,
                    cfg.their_states ? std::to_string(cfg.their_states).c_str() : "n/a",
                    bfs.host.num_leaves(), ins.host.table_bytes() / 1024.0, (unsigned long long)total);
        std::printf("  %-16s %10s %10s %12s %10s %9s %7s %8s %7s  %s\n", "variant", "ms(med)", "ms(min)",
                    "theirs(TV)", "theirs/us", "Gchar/s", "grid", "smemKB", "bins", "counts");
        json jc = {{"table", cfg.table}, {"alphabet", cfg.alphabet}, {"patterns", cfg.patterns},
                   {"pattern_length", cfg.length}, {"log2_text", lg}, {"states", ins.host.num_states},
                   {"their_states", cfg.their_states}, {"leaves", bfs.host.num_leaves()},
                   {"table_bytes", ins.host.table_bytes()}, {"occurrences_seed0", total},
                   {"pack_ms_median", median(pack_ms)}};
        double best = INFINITY;
        std::string best_name;
        for (size_t k = 0; k < kAllVariants.size(); ++k) {
            const VariantTraits t = traits(kAllVariants[k]);
            const double med = median(ms[k]);
            const double mn = *std::min_element(ms[k].begin(), ms[k].end());
            const double theirs = cfg.their_ms[k];
            if (med < best) best = med, best_name = t.name;
            // A capped text is not their text: their time stays for reference, no ratio.
            const bool comparable = !std::isnan(theirs) && lg == cfg.log2_text;
            std::printf("  %-16s %10.3f %10.3f %12s %10s %9.1f %7d %8.1f %7d  %s\n", t.name, med, mn,
                        std::isnan(theirs) ? "-" : std::to_string(theirs).substr(0, 6).c_str(),
                        comparable ? (std::to_string(theirs / med).substr(0, 6) + "x").c_str() : "-",
                        len / med / 1e6, infos[k].grid, infos[k].shared_bytes / 1024.0,
                        infos[k].shared_counters, bad[k] ? "MISMATCH" : "ok");
            mismatches += bad[k];
            jc["variants"].push_back({{"name", t.name}, {"ms_median", med}, {"ms_min", mn}, {"ms_all", ms[k]},
                                      {"their_ms", std::isnan(theirs) ? json(nullptr) : json(theirs)},
                                      {"their_text_comparable", comparable},
                                      {"gchar_per_s", len / med / 1e6}, {"grid", infos[k].grid},
                                      {"block", infos[k].block}, {"shared_bytes", infos[k].shared_bytes},
                                      {"shared_counters", infos[k].shared_counters},
                                      {"count_mismatches", bad[k]}});
        }
        if (!std::isnan(cfg.their_wu_manber_ms))
            std::printf("  (their 2014 AC + Wu-Manber GPU code: %.2f ms)\n", cfg.their_wu_manber_ms);
        std::printf("  pack text to %d-bit: %.3f ms (not in the kernel times)\n", bits, median(pack_ms));
        std::printf("  CPU peer (same DFA walk, leaves only, %u threads): %.1f ms = %.2f Gchar/s; "
                    "best GPU (%s) is %.1fx the CPU\n",
                    host_threads, cpu, len / cpu / 1e6, best_name.c_str(), cpu / best);
        jc["cpu_peer"] = {{"threads", host_threads}, {"ms_median", cpu}, {"ms_all", cpu_ms},
                          {"gchar_per_s", len / cpu / 1e6}};
        jc["best_variant"] = best_name;
        jc["best_gpu_over_cpu"] = cpu / best;
        out["configs"].push_back(jc);
        char line[200];
        std::snprintf(line, sizeof line, "T%d C=%d N=%-5d M=%-2d best %-15s %8.3f ms  cpu %8.1f ms  %s",
                      cfg.table, cfg.alphabet, cfg.patterns, cfg.length, best_name.c_str(), best, cpu,
                      std::count(bad.begin(), bad.end(), 0) == (long)bad.size() ? "counts ok" : "MISMATCH");
        summary.push_back(line);
    }
    out["count_mismatches"] = mismatches;
    std::ofstream(opt.json_path) << out.dump(1) << "\n";
    std::printf("\nsummary (JSON in %s)\n", opt.json_path.c_str());
    for (const auto &l : summary) std::printf("  %s\n", l.c_str());
    std::printf("%s\n", mismatches ? "COUNT MISMATCHES: see above" : "all variants' counts agree");
    SEED_AC_CHECK(cudaStreamDestroy(s));
    return mismatches ? 1 : 0;
} catch (const std::exception &e) {
    std::fprintf(stderr, "bench_seed_ac: %s\n", e.what());
    return 2;
}
