// gpu/ac_bench_hyperscan.cpp - see ac_bench_hyperscan.h.
#include "gpu/ac_bench_hyperscan.h"

#include "gpu/bench_thread_pool.h"

#include <hs/hs.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

namespace wm::gpu::bench {
namespace {

struct Ctx {
    uint32_t payload;
    uint64_t matches = 0;
    std::vector<Match> *set;
};

int on_match(unsigned int id, unsigned long long, unsigned long long to, unsigned int, void *p) {
    auto *c = static_cast<Ctx *>(p);
    ++c->matches;
    if (c->set) c->set->push_back(Match{id, c->payload, static_cast<uint32_t>(to)});
    return 0;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

} // namespace

HsResult hyperscan_scan(const std::vector<Literal> &pats, const BatchView &b, bool set_mode, int threads, int reps,
                        bool collect) {
    std::vector<std::string> ex(pats.size());
    std::vector<const char *> exp;
    std::vector<unsigned> flags, ids;
    char hex[5];
    for (size_t i = 0; i < pats.size(); ++i) {
        for (unsigned char ch : pats[i].bytes) {
            std::snprintf(hex, sizeof hex, "\\x%02x", ch);
            ex[i] += hex;
        }
        exp.push_back(ex[i].c_str());
        flags.push_back((pats[i].nocase ? HS_FLAG_CASELESS : 0) | (set_mode ? HS_FLAG_SINGLEMATCH : 0));
        ids.push_back(static_cast<unsigned>(i));
    }
    HsResult r;
    const double t0 = now();
    hs_database_t *db = nullptr;
    hs_compile_error_t *err = nullptr;
    if (hs_compile_multi(exp.data(), flags.data(), ids.data(), static_cast<unsigned>(exp.size()), HS_MODE_BLOCK,
                         nullptr, &db, &err) != HS_SUCCESS) {
        std::string m = err ? err->message : "?";
        hs_free_compile_error(err);
        throw std::runtime_error("hs_compile_multi: " + m);
    }
    r.compile_s = now() - t0;
    std::vector<hs_scratch_t *> scratch(threads, nullptr);
    for (auto &s : scratch)
        if (hs_alloc_scratch(db, &s) != HS_SUCCESS) throw std::runtime_error("hs_alloc_scratch");
    std::vector<std::vector<Match>> sets(threads);
    std::vector<uint64_t> counts(threads);
    ThreadPool pool(threads); // started once: no repeat times thread start-up
    auto run = [&] {
        pool.run(threads, [&](int t) {
            const uint32_t lo = static_cast<uint32_t>(uint64_t{b.count} * t / threads);
            const uint32_t hi = static_cast<uint32_t>(uint64_t{b.count} * (t + 1) / threads);
            Ctx c{0, 0, collect ? &sets[t] : nullptr};
            sets[t].clear();
            for (uint32_t i = lo; i < hi; ++i) {
                c.payload = i;
                const uint32_t len = b.offsets[i + 1] - b.offsets[i];
                if (len == 0) continue;
                if (hs_scan(db, reinterpret_cast<const char *>(b.data + b.offsets[i]), len, 0, scratch[t],
                            on_match, &c) != HS_SUCCESS)
                    throw std::runtime_error("hs_scan failed");
            }
            counts[t] = c.matches;
        });
    };
    run(); // warm-up
    std::vector<double> ts;
    for (int k = 0; k < reps; ++k) {
        const double a = now();
        run();
        ts.push_back(now() - a);
    }
    std::sort(ts.begin(), ts.end());
    r.seconds = ts[ts.size() / 2];
    for (int t = 0; t < threads; ++t) {
        r.matches += counts[t];
        if (collect) r.reports.insert(r.reports.end(), sets[t].begin(), sets[t].end());
    }
    for (auto &s : scratch) hs_free_scratch(s);
    hs_free_database(db);
    return r;
}

} // namespace wm::gpu::bench
