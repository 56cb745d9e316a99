// gpu/approx/bench_rules.cpp - part 3 of bench_approx: 100 approximate rules
// (k = 1..3) over every TCP/UDP payload of a capture (decoded once with
// wm::capture::OfflineCapture, the timed loop never parses packets): the GPU
// matcher end to end (H2D, kernels, D2H, sort) on the direct and the prefilter
// route, vs Hyperscan with extended parameters on N threads (one scratch each).
#include "approx_engine.h"
#include "capture/offline_capture.h"
#include "gpu/approx/approx_matcher.h"
#include "gpu/approx/bench_common.h"
#include "gpu/bench_thread_pool.h"

#include <hs/hs.h>

#include <atomic>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <thread>

namespace wm::approx::bench {

void run_rules_replay(const Options &o, nlohmann::json &out) {
    std::vector<uint8_t> data;
    std::vector<uint32_t> offsets{0};
    {
        wm::capture::OfflineCapture cap(o.pcap);
        wm_packet_t pkt;
        wm_packet_init(&pkt);
        while (cap.next(&pkt) == WM_SUCCESS) {
            data.insert(data.end(), pkt.payload, pkt.payload + pkt.payload_len);
            offsets.push_back(uint32_t(data.size()));
        }
    }
    const uint32_t count = uint32_t(offsets.size() - 1);
    // 100 rules cut from the traffic itself, k = 1..3, one in five Hamming:
    // realistic byte statistics and real hits. Length 12 + 4k .. 32: shorter
    // patterns with 3 edits match noise (first run: 8-byte patterns gave 6.8 M
    // matches on 18.5 MB, one every 3 bytes; no IDS would deploy them).
    std::mt19937 rng(4);
    std::vector<ApproxPattern> pats;
    while (pats.size() < 100) {
        const uint32_t i = rng() % count, len = offsets[i + 1] - offsets[i];
        const uint32_t k = 1 + uint32_t(pats.size() % 3);
        const uint32_t lo = 12 + 4 * k, m = lo + rng() % (33 - lo);
        if (len < m) continue;
        ApproxPattern p;
        p.bytes.assign(reinterpret_cast<const char *>(data.data() + offsets[i] + rng() % (len - m + 1)), m);
        p.k = k;
        p.metric = pats.size() % 5 == 4 ? Metric::Hamming : Metric::Levenshtein;
        pats.push_back(p);
    }
    const double bits = double(data.size()) * 8;
    std::printf("\n== 100 approximate rules (k = 1..3) over %s: %u payloads, %.1f MB ==\n", o.pcap.c_str(),
                count, data.size() / 1e6);
    const PayloadBatch all{data.data(), offsets.data(), count};
    nlohmann::json res;
    // GPU, both routes, whole capture as one batch (the matcher chunks it).
    std::vector<ApproxMatch> gpu_out[2];
    const Route routes[2] = {Route::Direct, Route::Prefilter};
    double gpu_ms[2];
    for (int r = 0; r < 2; ++r) {
        ApproxOptions ao;
        ao.route = routes[r];
        auto mt = ApproxMatcher::create(pats, ao);
        std::vector<double> t;
        for (int rep = 0; rep < o.repeats + 1; ++rep) {
            const double ms = wall_ms([&] { mt->scan(all, gpu_out[r]); });
            if (rep) t.push_back(ms);
        }
        gpu_ms[r] = median(t);
        std::printf("GPU %-9s : %9.2f ms  %7.2f Gbit/s  (%zu matches)\n", route_name(routes[r]), gpu_ms[r],
                    bits / (gpu_ms[r] * 1e-3) / 1e9, gpu_out[r].size());
        res[std::string("gpu_") + route_name(routes[r]) + "_ms"] = gpu_ms[r];
    }
    // Auto: what the matcher picks by measuring both on the first batch;
    // the ratio below is that route's, the one the product scans with.
    double auto_ms = gpu_ms[0];
    {
        auto mt = ApproxMatcher::create(pats, {});
        std::vector<ApproxMatch> tmp;
        mt->scan(all, tmp);
        double d = 0, p = 0;
        mt->auto_timings(&d, &p);
        std::printf("GPU auto      : picked %s (first-batch timings direct %.2f ms, prefilter %.2f ms)\n",
                    route_name(mt->route()), d, p);
        res["auto_route"] = route_name(mt->route());
        auto_ms = gpu_ms[mt->route() == Route::Prefilter ? 1 : 0];
    }
    // Hyperscan on all cores: compile once, one scratch per thread.
    std::vector<std::string> re;
    std::vector<const char *> ex;
    std::vector<unsigned> flags(pats.size(), 0), ids;
    std::vector<hs_expr_ext_t> ext(pats.size());
    std::vector<const hs_expr_ext_t *> extp;
    for (uint32_t i = 0; i < pats.size(); ++i) {
        re.push_back(wm::hs_escape_bytes(pats[i].bytes));
        ids.push_back(i);
        ext[i] = hs_expr_ext_t{};
        ext[i].flags = pats[i].metric == Metric::Levenshtein ? HS_EXT_FLAG_EDIT_DISTANCE : HS_EXT_FLAG_HAMMING_DISTANCE;
        (pats[i].metric == Metric::Levenshtein ? ext[i].edit_distance : ext[i].hamming_distance) = pats[i].k;
    }
    for (uint32_t i = 0; i < pats.size(); ++i) {
        ex.push_back(re[i].c_str());
        extp.push_back(&ext[i]);
    }
    hs_database_t *db = nullptr;
    hs_compile_error_t *err = nullptr;
    const double compile_ms = wall_ms([&] {
        if (hs_compile_ext_multi(ex.data(), flags.data(), ids.data(), extp.data(), unsigned(ex.size()),
                                 HS_MODE_BLOCK, nullptr, &db, &err) != HS_SUCCESS)
            throw std::runtime_error(std::string("hs_compile_ext_multi: ") + (err ? err->message : "?"));
    });
    std::vector<hs_scratch_t *> scratch(o.threads, nullptr);
    for (auto &s : scratch)
        if (hs_alloc_scratch(db, &s) != HS_SUCCESS) throw std::runtime_error("hs_alloc_scratch");
    std::vector<uint64_t> hs_counts(o.threads);
    std::vector<double> t;
    wm::gpu::bench::ThreadPool pool(o.threads); // started once: no repeat times thread start-up
    for (int rep = 0; rep < o.repeats + 1; ++rep) {
        std::atomic<uint32_t> next{0};
        const double ms = wall_ms([&] {
            pool.run(o.threads, [&](int w) {
                uint64_t n = 0;
                auto cb = [](unsigned, unsigned long long, unsigned long long, unsigned, void *c) -> int {
                    ++*static_cast<uint64_t *>(c);
                    return 0;
                };
                for (uint32_t b; (b = next.fetch_add(256)) < count;)
                    for (uint32_t i = b; i < std::min(count, b + 256); ++i)
                        if (offsets[i + 1] > offsets[i])
                            hs_scan(db, reinterpret_cast<const char *>(data.data() + offsets[i]),
                                    offsets[i + 1] - offsets[i], 0, scratch[w], cb, &n);
                hs_counts[w] = n;
            });
        });
        if (rep) t.push_back(ms);
    }
    uint64_t hs_matches = 0;
    for (auto c : hs_counts) hs_matches += c;
    const double hs_ms = median(t);
    std::printf("Hyperscan x%-2d : %9.2f ms  %7.2f Gbit/s  (%llu matches; compile %.0f ms)\n", o.threads, hs_ms,
                bits / (hs_ms * 1e-3) / 1e9, (unsigned long long)hs_matches, compile_ms);
    const bool agree = gpu_out[0] == gpu_out[1] && gpu_out[0].size() == hs_matches;
    std::printf("GPU (auto's route) / Hyperscan: %.1fx; match sets %s\n", hs_ms / auto_ms,
                agree ? "agree (direct == prefilter, count == Hyperscan)" : "DIFFER");
    for (auto *s : scratch) hs_free_scratch(s);
    hs_free_database(db);
    res.update({{"payloads", count}, {"bytes", data.size()}, {"rules", pats.size()}, {"hs_ms", hs_ms},
                {"hs_threads", o.threads}, {"hs_compile_ms", compile_ms}, {"gpu_matches", gpu_out[0].size()},
                {"hs_matches", hs_matches}, {"agree", agree}, {"speedup_auto_route_gpu_vs_hs", hs_ms / auto_ms}});
    out["rules_replay"] = res;
}

} // namespace wm::approx::bench
