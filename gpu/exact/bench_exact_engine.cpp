// gpu/exact/bench_exact_engine.cpp - routing measurement for the engine: ET
// Open prefilter literals longer than 32/64/128 bytes scanned by the long
// literal (duel) matcher vs the Aho-Corasick GpuMatcher on the same payloads.
// Inputs come from bench_exact_export (literal and corpus files).
#include "gpu/cuda_check.h"
#include "gpu/exact/bench_exact_common.h"
#include "gpu/exact/long_literal_matcher.h"
#include "gpu/exact/bench_exact_io.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace wm::gpu::exact::bench {
namespace {

bool match_less(const Match &a, const Match &b) {
    return std::tie(a.pattern, a.payload, a.end) < std::tie(b.pattern, b.payload, b.end);
}

template <class F> double median_ms(int reps, F f) {
    f(); // warm-up
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        const double t0 = now_ms();
        f();
        t.push_back(now_ms() - t0);
    }
    return median(t);
}

} // namespace

int run_engine(const Options &o, nlohmann::json &out) {
    const auto all = read_literals(o.literals_path);
    const Corpus corpus = read_corpus(o.corpus_path, o.batch_bytes);
    const BatchView b = corpus.view();
    const double mb = corpus.data.size() / 1e6;
    std::printf("\n# engine routing: %zu ET Open literals, batch of %u payloads, %.1f MB (corpus repeated), reps %d\n",
                all.size(), b.count, mb, o.reps);
    GpuOptions go;
    go.max_batch_bytes = o.batch_bytes;
    std::vector<Match> got;
    auto ac_all = GpuMatcher::create(all, go);
    const double t_all = median_ms(o.reps, [&] { ac_all->scan(b, OutputMode::Positions, got); });
    std::printf("AC all %zu literals: %.2f ms = %.2f GB/s end-to-end scan (%zu matches) [%s]\n", all.size(), t_all,
                mb / t_all, got.size(), ac_all->describe().c_str());
    out["engine"]["ac_all"] = {{"literals", all.size()}, {"ms", t_all}, {"matches", got.size()}};
    out["engine"]["batch_bytes"] = corpus.data.size();
    int bad = 0;
    for (uint32_t threshold : {32u, 64u, 128u}) {
        std::vector<Literal> lng, shrt;
        for (const auto &l : all) (l.bytes.size() > threshold ? lng : shrt).push_back(l);
        auto ac_short = GpuMatcher::create(shrt, go);
        auto ac_long = GpuMatcher::create(lng, go);
        auto duel = LongLiteralMatcher::create(lng, go);
        std::vector<Match> m_ac, m_duel;
        const double t_short = median_ms(o.reps, [&] { ac_short->scan(b, OutputMode::Positions, got); });
        const double t_aclong = median_ms(o.reps, [&] { ac_long->scan(b, OutputMode::Positions, m_ac); });
        const double t_duel = median_ms(o.reps, [&] { duel->scan(b, m_duel); });
        std::sort(m_ac.begin(), m_ac.end(), match_less);
        std::sort(m_duel.begin(), m_duel.end(), match_less);
        const bool agree = m_ac.size() == m_duel.size() &&
                           std::equal(m_ac.begin(), m_ac.end(), m_duel.begin(), [](const Match &x, const Match &y) {
                               return x.pattern == y.pattern && x.payload == y.payload && x.end == y.end;
                           });
        bad += !agree;
        std::printf("> %3u bytes: %4zu long literals | AC short %.2f ms | AC long %.2f ms (%.2f GB/s) | duel long %.2f ms "
                    "(%.2f GB/s) | duel/AC(long) %.2fx | AC(all) %.2f vs AC(short)+duel(long) %.2f ms | matches %zu, agree %s\n",
                    threshold, lng.size(), t_short, t_aclong, mb / t_aclong, t_duel, mb / t_duel, t_aclong / t_duel, t_all,
                    t_short + t_duel, m_duel.size(), agree ? "yes" : "NO");
        std::printf("        %s\n", duel->describe().c_str());
        out["engine"]["thresholds"].push_back({{"threshold", threshold}, {"long_literals", lng.size()},
                                               {"ac_short_ms", t_short}, {"ac_long_ms", t_aclong}, {"duel_long_ms", t_duel},
                                               {"ac_all_ms", t_all}, {"matches_long", m_duel.size()}, {"agree", agree}});
    }
    return bad;
}

} // namespace wm::gpu::exact::bench
