// gpu/align/bench_align.cpp - the seed's Figure 13.7 sweep: a query of 1024
// against databases of 1M..256M residues (random DNA, and real payload bytes
// from a capture), GPU time and GCUPS per size beside the seed's figures, the
// row-parallel (seed) kernel, and parasail on every host core as the CPU peer.
//
//   bench_align [--sizes-mb 1,2,4,...] [--query 1024] [--repeats 5] [--devices all|N]
//               [--corpus FILE] [--make-corpus PCAP OUT] [--rowpar-max-mb 16]
//               [--parasail-mb 16] [--peer-threads N] [--overlap N] [--json OUT]
#include "capture/offline_capture.h"
#include "gpu/align/align_search.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <parasail.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <thread>
#include <vector>

using namespace wm::align;

namespace {

constexpr double kSeedGcupsS1070 = 1.04, kSeedGcupsGtx480 = 1.6;

// Command-line options (CLI11: unknown options and out-of-range values are refused).
struct Options {
    std::vector<double> sizes_mb{1, 2, 4, 8, 16, 32, 64, 128, 256};
    size_t query = 1024;
    int repeats = 5;
    std::string devices = "all", corpus, json;
    std::vector<std::string> make_corpus; // PCAP OUT
    double rowpar_max_mb = 16, parasail_mb = 16;
    uint64_t overlap = 0; // 0: exact_overlap()
    int peer_threads = 0; // 0: every host core
};

// Parses argv into o; returns -1 to go on, else the exit status (help, or an error already printed).
int parse(int argc, char **argv, Options &o) {
    CLI::App app{"The seed's Figure 13.7 sweep: Smith-Waterman GCUPS per database size, beside parasail"};
    app.option_defaults()->always_capture_default();
    app.add_option("--sizes-mb", o.sizes_mb, "database sizes in M residues")
        ->delimiter(',')
        ->check(CLI::Range(0.001, 65536.0));
    app.add_option("--query", o.query, "query length")->check(CLI::Range(1, 1024));
    app.add_option("--repeats", o.repeats, "timed searches per size (median)")
        ->check(CLI::Range(1, std::numeric_limits<int>::max()));
    app.add_option("--devices", o.devices, "GPUs: all, or N (the first N)")
        ->check(CLI::IsMember({"all"}) | CLI::Range(1, 64));
    app.add_option("--corpus", o.corpus, "payload bytes the payload databases are tiled from (--make-corpus)")
        ->check(CLI::ExistingFile);
    app.add_option("--make-corpus", o.make_corpus, "PCAP OUT: host only, a capture's payload bytes -> a corpus")
        ->expected(2)
        ->default_str("")
        ->check(CLI::ExistingFile.application_index(0));
    app.add_option("--rowpar-max-mb", o.rowpar_max_mb, "row-parallel kernel on sizes up to this")
        ->check(CLI::Range(0.0, 65536.0));
    app.add_option("--parasail-mb", o.parasail_mb, "M residues of the CPU peer's database")
        ->check(CLI::Range(0.001, 65536.0));
    app.add_option("--peer-threads", o.peer_threads, "parasail threads (0: all cores)")->check(CLI::Range(0, 1024));
    app.add_option("--overlap", o.overlap, "section overlap in residues (0: exact_overlap, no alignment lost)")
        ->check(CLI::Range(0, std::numeric_limits<int>::max())); // refuses -N, which would wrap to 2^64 - N
    app.add_option("--json", o.json, "JSON output file (none without)");
    CLI11_PARSE(app, argc, argv);
    return -1;
}

void fill_dna(std::vector<uint8_t> &v, uint64_t seed) {
    static const char kDna[4] = {'A', 'C', 'G', 'T'};
    // splitmix64 of (seed, block): 2 bits per base, no correlation between seeds
    // (plain xorshift from nearby seeds gave correlated prefixes: best scores ~1200).
    for (size_t i = 0; i < v.size(); i += 32) {
        uint64_t z = seed * 0x9E3779B97F4A7C15ull + (i / 32 + 1) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        for (size_t k = i; k < std::min(v.size(), i + 32); ++k, z >>= 2) v[k] = kDna[z & 3];
    }
}

// Payload bytes of a capture, back to back (the corpus a payload database is tiled from).
std::vector<uint8_t> read_payloads(const std::string &pcap, size_t limit) {
    wm::capture::OfflineCapture cap(pcap);
    wm_packet_t pkt;
    std::memset(&pkt, 0, sizeof pkt); // (wm_packet_init lives in the shared library)
    pkt.struct_size = sizeof pkt;
    std::vector<uint8_t> out;
    while (out.size() < limit && cap.next(&pkt) == WM_SUCCESS)
        out.insert(out.end(), pkt.payload, pkt.payload + std::min<size_t>(pkt.payload_len, limit - out.size()));
    return out;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// parasail (striped, 16-bit, profile built once per thread) on every host core:
// the database is cut into chunks overlapping by 2 * m so no alignment is lost,
// 64 KiB each so that every thread has chunks to take (1 MiB chunks of a
// 16 MiB database gave 16 jobs: threads past 16 idled; overlap ~3% at m=1024).
double parasail_gcups(const std::vector<uint8_t> &q, const std::vector<uint8_t> &db, const ScoreParams &p,
                      int threads, int *best_out) {
    parasail_matrix_t *mx = parasail_matrix_create("ACGT", p.match, p.mismatch);
    const size_t chunk = size_t{64} << 10, ov = 2 * q.size();
    std::atomic<size_t> next{0};
    std::atomic<int> best{0};
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            parasail_profile_t *prof = parasail_profile_create_16((const char *)q.data(), (int)q.size(), mx);
            for (size_t b; (b = next.fetch_add(chunk)) < db.size();) {
                const size_t s = b > ov ? b - ov : 0, e = std::min(db.size(), b + chunk);
                parasail_result_t *r = parasail_sw_striped_profile_16(prof, (const char *)db.data() + s, (int)(e - s),
                                                                      p.gap_open + p.gap_extend, p.gap_extend);
                int cur = best.load();
                const int sc = parasail_result_get_score(r);
                while (sc > cur && !best.compare_exchange_weak(cur, sc)) {
                }
                parasail_result_free(r);
            }
            parasail_profile_free(prof);
        });
    for (auto &t : pool) t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    parasail_matrix_free(mx);
    *best_out = best.load();
    return (double)q.size() * db.size() / s / 1e9;
}

} // namespace

int main(int argc, char **argv) {
    Options opt;
    if (const int rc = parse(argc, argv, opt); rc >= 0) return rc;
    if (!opt.make_corpus.empty()) {
        const std::string &make_out = opt.make_corpus[1];
        const auto bytes = read_payloads(opt.make_corpus[0], 16u << 20);
        std::ofstream(make_out, std::ios::binary).write((const char *)bytes.data(), bytes.size());
        std::printf("wrote %zu payload bytes to %s\n", bytes.size(), make_out.c_str());
        return 0;
    }
    const size_t m = opt.query; // the seed's name for the query length
    std::string why;
    if (!align_gpu_usable(0, &why)) {
        std::fprintf(stderr, "bench_align: no usable GPU: %s\n", why.c_str());
        return 1;
    }
    std::vector<int> devices;
    const int ndev = opt.devices == "all" ? align_device_count() : std::stoi(opt.devices);
    for (int k = 0; k < ndev; ++k) devices.push_back(k);
    const int cores = opt.peer_threads > 0 ? opt.peer_threads : (int)std::thread::hardware_concurrency();
    const ScoreParams p; // the seed's scores
    std::vector<uint8_t> payload_corpus;
    if (!opt.corpus.empty()) {
        std::ifstream in(opt.corpus, std::ios::binary);
        payload_corpus.assign(std::istreambuf_iterator<char>(in), {});
        if (payload_corpus.size() < 2 * m) {
            std::fprintf(stderr, "error: corpus too small\n");
            return 2;
        }
    }
    nlohmann::json J;
    J["devices"] = devices.size();
    J["query"] = m;
    J["repeats"] = opt.repeats;
    J["seed_gcups"] = {{"tesla_s1070", kSeedGcupsS1070}, {"gtx480", kSeedGcupsGtx480}};

    // CPU peer first (same host, all cores).
    std::vector<uint8_t> q(m), pdb((size_t)(opt.parasail_mb * (1 << 20)));
    fill_dna(q, 7);
    fill_dna(pdb, 8);
    std::vector<double> pg;
    int pbest = 0;
    parasail_gcups(q, pdb, p, cores, &pbest); // warm-up, as the GPU rows have
    for (int r = 0; r < 3; ++r) pg.push_back(parasail_gcups(q, pdb, p, cores, &pbest));
    const double peer = median(pg);
    std::printf("parasail sw_striped_profile_16, %d threads, query %zu x %.0fM DNA: %.2f GCUPS (best score %d)\n",
                cores, m, opt.parasail_mb, peer, pbest);
    J["parasail"] = {{"gcups", peer}, {"threads", cores}, {"db_mb", opt.parasail_mb}};

    std::printf("\n%-8s %-7s %9s %10s %10s %9s %9s %8s %9s %8s %8s\n", "source", "size", "kernel", "total_ms",
                "score_ms", "topk_ms", "trace_ms", "trace%", "GCUPS", "xS1070", "xpeer");
    uint64_t seed = 100;
    for (const std::string source : {"dna", "payload"}) {
        if (source == "payload" && payload_corpus.empty()) continue;
        for (double mb : opt.sizes_mb) {
            const uint64_t n = (uint64_t)(mb * (1 << 20));
            std::vector<uint8_t> db(n);
            std::mt19937_64 rng(++seed);
            if (source == "dna") fill_dna(db, seed);
            else
                for (uint64_t at = 0; at < n;) { // tile the corpus from random offsets
                    const size_t from = rng() % (payload_corpus.size() - m);
                    const size_t len = std::min<uint64_t>(n - at, payload_corpus.size() - from);
                    std::memcpy(db.data() + at, payload_corpus.data() + from, len);
                    at += len;
                }
            const uint64_t ov = opt.overlap ? opt.overlap : exact_overlap(m, p);
            DatabaseSearcher searcher(db.data(), n, devices, 1, ov);
            for (Kernel kern : {Kernel::Production, Kernel::RowParallel}) {
                if (kern == Kernel::RowParallel && (mb > opt.rowpar_max_mb || devices.size() > 1)) continue;
                SearchOptions o;
                o.kernel = kern;
                o.overlap = opt.overlap;
                std::vector<double> tot, sc, tk, tb, ph[3];
                int best = 0;
                const int reps = kern == Kernel::RowParallel ? 1 : opt.repeats;
                for (int r = -1; r < reps; ++r) { // r = -1: warm-up
                    std::vector<uint8_t> qq(m);
                    if (source == "dna") fill_dna(qq, ++seed);
                    else {
                        const size_t from = rng() % (payload_corpus.size() - m);
                        std::memcpy(qq.data(), payload_corpus.data() + from, m);
                    }
                    const SearchResult res = searcher.search(qq.data(), m, p, o);
                    if (r < 0) continue;
                    tot.push_back(res.timings.total_ms);
                    sc.push_back(res.timings.score_ms);
                    tk.push_back(res.timings.topk_ms);
                    tb.push_back(res.timings.traceback_ms);
                    for (int k = 0; k < 3; ++k) ph[k].push_back(res.timings.rowpar_phase_ms[k]);
                    best = res.hits.empty() ? 0 : res.hits[0].score;
                }
                const double t = median(tot), gcups = (double)m * n / (t * 1e6);
                const char *kname = kern == Kernel::Production ? "wavefront" : "rowpar";
                std::printf("%-8s %5.0fM %9s %10.2f %10.2f %9.2f %9.2f %7.2f%% %9.1f %8.0f %8.1f\n", source.c_str(), mb,
                            kname, t, median(sc), median(tk), median(tb), 100 * median(tb) / t, gcups,
                            gcups / kSeedGcupsS1070, gcups / peer);
                nlohmann::json row{{"source", source}, {"mb", mb}, {"residues", n}, {"kernel", kname},
                                   {"total_ms", t}, {"score_ms", median(sc)}, {"topk_ms", median(tk)},
                                   {"traceback_ms", median(tb)}, {"gcups", gcups}, {"best_score", best},
                                   {"overlap", ov}, {"x_seed_s1070", gcups / kSeedGcupsS1070},
                                   {"x_seed_gtx480", gcups / kSeedGcupsGtx480}, {"x_parasail", gcups / peer}};
                if (kern == Kernel::RowParallel) {
                    const double a = median(ph[0]), b = median(ph[1]), c = median(ph[2]), s = a + b + c;
                    std::printf("         rowpar phases: H~/F %.0f%%  scan %.0f%%  H %.0f%%  (seed: 27-30 / 48-54 / 16-20)\n",
                                100 * a / s, 100 * b / s, 100 * c / s);
                    row["phase_pct"] = {100 * a / s, 100 * b / s, 100 * c / s};
                }
                J["rows"].push_back(row);
            }
        }
    }
    if (!opt.json.empty()) std::ofstream(opt.json) << J.dump(2) << "\n";
    return 0;
}
