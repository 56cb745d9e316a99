// gpu/exact/bench_exact_seed.cpp - the seed's Tables 1-4 (brute force, duel,
// KMP) at 2^20..2^30 with per-stage timings beside the seed's TITAN X numbers,
// plus kernel-only throughput with the text already on the device.
#include "gpu/cuda_check.h"
#include "gpu/exact/bench_exact_common.h"
#include "gpu/exact/exact_dispatch.h"
#include "gpu/exact/exact_matcher.h"
#include "gpu/exact/exact_pattern.h"

#include <cuda_runtime.h> // typed cudaMalloc overloads
#include <cstdio>
#include <map>
#include <random>

namespace wm::gpu::exact::bench {
namespace {

// Seed (Wang 2018, GTX TITAN X, m ~ 1000), ms: {witness, in, eliminate, brute, out, total}.
struct SeedRow { double witness, in, elim, brute, out, total; };
const std::map<int, SeedRow> kSeedBrute = {{20, {0, 0.56, 0, 17.26, 0.71, 18.53}},
                                           {22, {0, 1.07, 0, 67.44, 2.56, 71.07}},
                                           {24, {0, 3.01, 0, 310.65, 10.07, 323.73}}};
const std::map<int, SeedRow> kSeedDuel = {{20, {0.03, 0.79, 0.12, 0.06, 0.79, 1.77}},
                                          {22, {0.03, 1.35, 0.40, 0.08, 3.00, 4.87}},
                                          {24, {0.03, 3.70, 1.46, 0.81, 7.77, 13.77}}};
const std::map<int, double> kSeedKmp = {{20, 3.71}, {22, 14.68}, {24, 46.75}};

struct DeviceText {
    uint8_t *d_text = nullptr, *d_match = nullptr;
    uint32_t *d_pos = nullptr, *d_count = nullptr, *d_surv = nullptr;
    uint8_t *d_copy = nullptr;
};

// Median kernel time (CUDA events) of `launch` after 3 warm-ups.
template <class F> double time_kernel(cudaStream_t s, int reps, F launch) {
    cudaEvent_t a, b;
    WM_CUDA_CHECK(cudaEventCreate(&a));
    WM_CUDA_CHECK(cudaEventCreate(&b));
    for (int i = 0; i < 3; ++i) launch();
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        WM_CUDA_CHECK(cudaEventRecord(a, s));
        launch();
        WM_CUDA_CHECK(cudaEventRecord(b, s));
        WM_CUDA_CHECK(cudaEventSynchronize(b));
        float ms = 0;
        WM_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    cudaEventDestroy(a), cudaEventDestroy(b);
    return median(t);
}

// (std::mt19937_64, not fill_random_letters: its per-thread streams degenerate
// for a few bytes -- the first device run got period 1 where 10 was asked.)
std::string make_pattern(uint32_t m, uint32_t period, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::string u(period, 'a');
    for (auto &c : u) c = static_cast<char>('a' + rng() % 26);
    std::string p(m, 'a');
    for (uint32_t i = 0; i < m; ++i) p[i] = u[i % period];
    return p;
}

// Random letters with ~64 planted occurrences (3 overlapping ones when periodic).
void make_text(uint8_t *t, uint64_t n, const std::string &p, uint32_t period, uint64_t seed) {
    fill_random_letters(t, n, seed);
    const uint64_t m = p.size(), step = std::max<uint64_t>(m, n / 64);
    for (uint64_t at = step / 3; at + m + 2 * period <= n; at += step)
        for (uint32_t k = 0; k < (2 * period <= m ? 3u : 1u); ++k) std::copy(p.begin(), p.end(), t + at + k * period);
}

struct PipelineResult { StageTimes t; std::vector<uint32_t> positions; };

PipelineResult run_pipeline(ExactMatcher &mt, uint8_t *h_text, uint8_t *h_match, uint64_t n, Algorithm a,
                            int reps, const std::string &p, uint32_t period, uint64_t seed, bool fresh) {
    std::vector<StageTimes> ts;
    PipelineResult r;
    for (int i = -1; i < reps; ++i) { // i = -1: warm-up
        if (fresh && i >= 0) make_text(h_text, n, p, period, seed + 1000 + i);
        MatchRequest rq;
        rq.text = h_text, rq.n = n, rq.algorithm = a, rq.match_vector = h_match, rq.positions = &r.positions;
        StageTimes t;
        mt.match(rq, &t);
        if (i >= 0) ts.push_back(t);
    }
    auto med = [&](double StageTimes::*f) { std::vector<double> v; for (auto &t : ts) v.push_back(t.*f); return median(v); };
    r.t.witness_ms = ts[0].witness_ms, r.t.h2d_ms = med(&StageTimes::h2d_ms), r.t.eliminate_ms = med(&StageTimes::eliminate_ms);
    r.t.verify_ms = med(&StageTimes::verify_ms), r.t.d2h_ms = med(&StageTimes::d2h_ms), r.t.total_ms = med(&StageTimes::total_ms);
    if (fresh) { // positions above are of the last fresh text: recompute on the text now in h_text
        MatchRequest rq;
        rq.text = h_text, rq.n = n, rq.algorithm = a, rq.positions = &r.positions;
        mt.match(rq, nullptr);
    }
    return r;
}

nlohmann::json stage_json(const StageTimes &t) {
    return {{"witness_ms", t.witness_ms}, {"h2d_ms", t.h2d_ms}, {"eliminate_ms", t.eliminate_ms},
            {"verify_ms", t.verify_ms}, {"d2h_ms", t.d2h_ms}, {"total_ms", t.total_ms}};
}

void print_row(const char *name, const StageTimes &t, const SeedRow *seed) {
    std::printf("  %-8s witness %7.3f  in %8.3f  elim %8.3f  brute %8.3f  out %8.3f  total %9.3f ms", name,
                t.witness_ms, t.h2d_ms, t.eliminate_ms, t.verify_ms, t.d2h_ms, t.total_ms);
    if (seed)
        std::printf("  | seed %.2f/%.2f/%.2f/%.2f/%.2f total %.2f -> %.1fx", seed->witness, seed->in, seed->elim,
                    seed->brute, seed->out, seed->total, seed->total / t.total_ms);
    std::printf("\n");
}

} // namespace

int run_seed_tables(const Options &o, nlohmann::json &out) {
    cudaDeviceProp prop{};
    WM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    const int threads = host_threads();
    std::printf("# seed tables: device %s (%d SMs), host threads %d, m=%u, reps %d (median), CPU reps %d\n",
                prop.name, prop.multiProcessorCount, threads, o.m, o.reps, o.cpu_reps);
    cudaStream_t s;
    WM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int bad = 0;
    // Aperiodic at every size; periodic (period 10, and the worst case period 1:
    // P = a^m, a duel prefix of one byte, so nothing is eliminated) at 2^24, 2^28.
    for (const uint32_t period : {o.m, 10u, 1u}) {
        const bool periodic = 2 * period <= o.m;
        const std::string kind_s = periodic ? "periodic p=" + std::to_string(period) : "aperiodic";
        const char *kind = kind_s.c_str();
        for (int lg : o.log_sizes) {
            if (periodic && lg != 24 && lg != 28) continue; // periodic: two sizes suffice
            const uint64_t n = uint64_t{1} << lg;
            const uint64_t seed = 1000 * lg + period;
            const std::string p = make_pattern(o.m, period, seed);
            uint8_t *h_text = ExactMatcher::alloc_pinned(n), *h_match = ExactMatcher::alloc_pinned(n);
            make_text(h_text, n, p, period, seed);
            auto mt = ExactMatcher::create(p, false);
            std::printf("\nn = 2^%d (%s pattern: %s)\n", lg, kind, mt->describe().c_str());
            nlohmann::json row{{"log2_n", lg}, {"n", n}, {"m", o.m}, {"pattern", kind}, {"describe", mt->describe()}};
            const bool fresh = lg <= 24; // larger texts exceed L2 (50 MB) anyway
            std::map<std::string, std::vector<uint32_t>> found;
            for (Algorithm a : {Algorithm::BruteForce, Algorithm::Duel, Algorithm::DuelTwoKernel}) {
                const auto r = run_pipeline(*mt, h_text, h_match, n, a, o.reps, p, period, seed, fresh);
                const SeedRow *sr = nullptr;
                if (!periodic && a == Algorithm::BruteForce && kSeedBrute.count(lg)) sr = &kSeedBrute.at(lg);
                if (!periodic && a != Algorithm::BruteForce && kSeedDuel.count(lg)) sr = &kSeedDuel.at(lg);
                StageTimes t = r.t;
                if (a == Algorithm::BruteForce) t.witness_ms = 0;
                print_row(algorithm_name(a), t, sr);
                row[algorithm_name(a)] = stage_json(t);
                if (sr) row[algorithm_name(a)]["seed_total_ms"] = sr->total, row[algorithm_name(a)]["speedup_vs_seed"] = sr->total / t.total_ms;
                found[algorithm_name(a)] = r.positions;
            }
            // Kernel-only, text resident on the device.
            DeviceText d;
            const PreparedPattern pp = prepare_pattern(p, false);
            uint8_t *d_pb; uint16_t *d_w;
            WM_CUDA_CHECK(cudaMalloc(&d.d_text, n + 16));
            WM_CUDA_CHECK(cudaMalloc(&d.d_match, n + 16));
            WM_CUDA_CHECK(cudaMalloc(&d.d_copy, n + 16));
            WM_CUDA_CHECK(cudaMalloc(&d.d_pos, (pp.max_occurrences(n) + 1) * 4));
            WM_CUDA_CHECK(cudaMalloc(&d.d_count, 4));
            WM_CUDA_CHECK(cudaMalloc(&d.d_surv, survivor_slots(pp.span, n) * 4));
            WM_CUDA_CHECK(cudaMalloc(&d_pb, pp.m()));
            WM_CUDA_CHECK(cudaMalloc(&d_w, pp.span * 2));
            WM_CUDA_CHECK(cudaMemcpy(d_pb, pp.bytes.data(), pp.m(), cudaMemcpyHostToDevice));
            WM_CUDA_CHECK(cudaMemcpy(d_w, pp.witness.data(), pp.span * 2, cudaMemcpyHostToDevice));
            WM_CUDA_CHECK(cudaMemcpy(d.d_text, h_text, n, cudaMemcpyHostToDevice));
            const PatternView v{d_pb, d_w, pp.m(), pp.span, 0};
            const uint32_t cap = static_cast<uint32_t>(pp.max_occurrences(n));
            const DeviceOutputs both{d.d_match, d.d_pos, cap, d.d_count};
            const DeviceOutputs pos_only{nullptr, d.d_pos, cap, d.d_count};
            auto reset = [&] { WM_CUDA_CHECK(cudaMemsetAsync(d.d_count, 0, 4, s)); };
            struct K { const char *name; double ms; };
            std::vector<K> ks;
            ks.push_back({"copy_d2d", time_kernel(s, o.reps, [&] { WM_CUDA_CHECK(cudaMemcpyAsync(d.d_copy, d.d_text, n, cudaMemcpyDeviceToDevice, s)); })});
            ks.push_back({"duel_vec_pos_smem", time_kernel(s, o.reps, [&] { reset(); launch_duel(v, true, d.d_text, n, both, s); })});
            ks.push_back({"duel_vec_pos_gmem", time_kernel(s, o.reps, [&] { reset(); launch_duel(v, false, d.d_text, n, both, s); })});
            ks.push_back({"duel_pos_only", time_kernel(s, o.reps, [&] { reset(); launch_duel(v, true, d.d_text, n, pos_only, s); })});
            ks.push_back({"duel2k_elim", time_kernel(s, o.reps, [&] { launch_eliminate(v, d.d_text, n, d.d_surv, s); })});
            ks.push_back({"duel2k_verify_pos", time_kernel(s, o.reps, [&] { reset(); launch_verify_survivors(v, d.d_text, n, d.d_surv, survivor_slots(pp.span, n), pos_only, s); })});
            ks.push_back({"brute_vec_pos", time_kernel(s, o.reps, [&] { reset(); launch_brute(v, d.d_text, n, both, s); })});
            WM_CUDA_CHECK(cudaStreamSynchronize(s));
            std::printf("  device-resident kernels (median of %d, CUDA events):\n", o.reps);
            for (const auto &k : ks) {
                const double bytes = std::string(k.name) == "copy_d2d" ? 2.0 * n : double(n);
                std::printf("    %-20s %9.4f ms  %8.1f GB/s%s\n", k.name, k.ms, bytes / k.ms / 1e6,
                            std::string(k.name) == "copy_d2d" ? " (read+write)" : " (text)");
                row["kernels"][k.name] = {{"ms", k.ms}, {"GBps", bytes / k.ms / 1e6}};
            }
            cudaFree(d.d_text), cudaFree(d.d_match), cudaFree(d.d_copy), cudaFree(d.d_pos), cudaFree(d.d_count);
            cudaFree(d.d_surv), cudaFree(d_pb), cudaFree(d_w);
            // CPU: KMP one thread (the seed's baseline), KMP and Hyperscan on all cores.
            std::vector<double> kmp1, kmpn, hs1, hsn;
            double fail_ms = 0;
            std::vector<uint32_t> kmp_pos, hs_pos;
            const HyperscanLiteral hs(p);
            for (int i = 0; i < o.cpu_reps; ++i) {
                double t0 = now_ms();
                const auto f = kmp_failure(p);
                fail_ms = now_ms() - t0;
                kmp_pos.clear();
                t0 = now_ms();
                kmp_search(h_text, n, p, f, kmp_pos);
                kmp1.push_back(now_ms() - t0);
                t0 = now_ms();
                auto kp = kmp_parallel(h_text, n, p, threads);
                kmpn.push_back(now_ms() - t0);
                t0 = now_ms();
                hs_pos = hs.search(h_text, n, threads);
                hsn.push_back(now_ms() - t0);
                t0 = now_ms();
                const bool hs_one_agrees = hs.search(h_text, n, 1) == hs_pos;
                hs1.push_back(now_ms() - t0);
                if (!hs_one_agrees) hs_pos.clear(); // counted below as a disagreement
            }
            // The peer's best: at small sizes one thread beats starting all of them.
            const double hs_best = std::min(median(hs1), median(hsn));
            const int hs_best_threads = median(hs1) <= median(hsn) ? 1 : threads;
            found["kmp"] = kmp_pos, found["hyperscan"] = hs_pos;
            std::printf("  CPU: KMP 1 thread failure %.4f + match %.3f ms", fail_ms, median(kmp1));
            if (!periodic && kSeedKmp.count(lg)) std::printf(" (seed %.2f ms)", kSeedKmp.at(lg));
            std::printf(" | KMP %d threads %.3f ms | Hyperscan 1 thread %.3f ms, %d threads %.3f ms = %.1f GB/s\n",
                        threads, median(kmpn), median(hs1), threads, median(hsn), n / hs_best / 1e6);
            const double duel_k = ks[1].ms;
            std::printf("  ratio: duel kernel vs Hyperscan's best (%d thr) %.1fx, duel pipeline vs it %.1fx\n",
                        hs_best_threads, hs_best / duel_k, hs_best / row["duel"]["total_ms"].get<double>());
            row["cpu"] = {{"kmp_failure_ms", fail_ms},         {"kmp_1thread_ms", median(kmp1)},
                          {"kmp_all_threads_ms", median(kmpn)}, {"hyperscan_1thread_ms", median(hs1)},
                          {"hyperscan_all_threads_ms", median(hsn)}, {"hyperscan_best_ms", hs_best},
                          {"threads", threads}};
            if (!periodic && kSeedKmp.count(lg)) row["cpu"]["seed_kmp_ms"] = kSeedKmp.at(lg);
            bool agree = true;
            for (auto &[name, v] : found) agree &= v == found["kmp"];
            std::printf("  occurrences %zu, all algorithms agree: %s\n", found["kmp"].size(), agree ? "yes" : "NO");
            row["occurrences"] = found["kmp"].size(), row["agree"] = agree;
            bad += !agree;
            out["seed_tables"].push_back(row);
            ExactMatcher::free_pinned(h_text), ExactMatcher::free_pinned(h_match);
        }
    }
    cudaStreamDestroy(s);
    return bad;
}

} // namespace wm::gpu::exact::bench
