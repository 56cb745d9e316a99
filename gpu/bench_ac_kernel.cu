// gpu/bench_ac_kernel.cu - throughput of the Aho-Corasick matcher on real
// payloads, beside Hyperscan on all host cores in the same run.
//
//   bench_ac_kernel --extract CAPTURE.pcap OUT.corpus      (host only: payloads -> corpus)
//   bench_ac_kernel --import-rules OUT.txt FILE.rules...   (host only: ET/Snort -> literal list)
//   bench_ac_kernel --literals L.txt --corpus C [--gb 4] [--sweep 1000,3000,10000,0]
//                   [--hs-threads N (default: every core)] [--hs-mb 256] [--hs-sweep 0|1] [--plugin-mb 1024] [--json OUT.json]
//                   [--key-bytes 16] [--dense-mb 24|auto] (automaton of the kernel rows; auto: the matcher's own, ac_tuning.h)
//                   [--blocks-per-sm N]  (kernel rows: grid of N blocks per SM instead of all that fit; occupancy study)
//                   [--carveout PCT]     (kernel rows: preferred shared-memory carveout, % of the maximum; the rest is L1)
//                   [--chunk-mb 1024]    (kernel rows: chunk size; the matcher's is ac_tuning.h's kMaxChunkBytes)
//                   [--dynamic 1]        (kernel rows: blocks take units from a counter, as the matcher's do; 0: fixed stride)
//                   [--unit-index 1]     (kernel rows: 0 = each thread searches all of its chunk's segments)
//                   [--case-groups folded|split]  (kernel rows: one case-folded automaton, or case and nocase apart)
//                   [--run-steps 1]      (kernel rows: 0 = no run targets, kRunStep32; an A/B of the flag)
//                   [--unit-trace FILE]  (full set: each unit's timeline in one launch per kind of the first chunks)
// literals: "<nocase 0|1>\t<hex>" per line; sweep 0 = every literal.
// Per pattern count: (1) kernels Count / Set / Positions over the corpus tiled
// to >= --gb GB already on the device (--chunk-mb chunks, CUDA events, median of 7
// after 2 warm-ups); (2) plugin path GpuMatcher::scan(Set) from pinned and from
// pageable host memory (wall clock, median of 5); (3) Hyperscan, --hs-threads
// threads, SINGLEMATCH (set semantics), over --hs-mb MB (full set only unless
// --hs-sweep 1: its compile takes seconds per set). Full set only: GPU Set
// == Hyperscan set and GPU Positions count == Hyperscan match count on the
// untiled corpus. Also pinned H2D and device copy bandwidth. Prints and writes JSON
// (nlohmann-json; options by CLI11, --help). Exits 1 when an output buffer
// overflowed or the GPU's results differ from Hyperscan's.
#include "gpu/ac_bench_corpus.h"
#include "gpu/ac_bench_hyperscan.h"
#include "gpu/ac_compile.h"
#include "gpu/ac_kernels.h"
#include "gpu/ac_tuning.h"
#include "gpu/ac_walk.cuh"
#include "gpu/cuda_check.h"
#include "gpu/gpu_testing.h"

#include <algorithm>
#include <thread>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

using namespace wm::gpu;
using namespace wm::gpu::bench;

namespace {

// Whether a and b hold the same matches, compared by `less` (records equal
// under it are the same), in any order. Sorts both.
template <typename Less> bool same_sorted(std::vector<Match> &a, std::vector<Match> &b, Less less) {
    std::sort(a.begin(), a.end(), less);
    std::sort(b.begin(), b.end(), less);
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [&](const Match &x, const Match &y) {
               return !less(x, y) && !less(y, x);
           });
}

double wall() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Median of `reps` event-timed runs of f after `warm` untimed ones, in ms.
template <typename F> double median_ms(F f, cudaStream_t s, int warm = 2, int reps = 7) {
    cudaEvent_t a, b;
    WM_CUDA_CHECK(cudaEventCreate(&a));
    WM_CUDA_CHECK(cudaEventCreate(&b));
    for (int i = 0; i < warm; ++i) f();
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
        WM_CUDA_CHECK(cudaEventRecord(a, s));
        f();
        WM_CUDA_CHECK(cudaEventRecord(b, s));
        WM_CUDA_CHECK(cudaEventSynchronize(b));
        float ms;
        WM_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <typename F> double median_wall(F f, int reps) {
    f();
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        const double a = wall();
        f();
        t.push_back(wall() - a);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

struct DevChunk {
    Chunk c;
    Segment *d_segs = nullptr;
    uint32_t *d_unit_index = nullptr; // --unit-index 1
    size_t text_off = 0; // 16-aligned device text offset the chunk's segments count from
};

// --unit-trace: one launch of each of the first chunks, Set then Count, with
// the kernel's unit timeline (ScanParams::d_unit_trace) written to `path`:
// "launch KIND CHUNK UNITS GRID EVENT_MS", then "u UNIT BLOCK SM START_NS
// CYCLES" per unit and "b BLOCK SM START_NS END_NS" per block (globaltimer's
// low 32 bits). For the study of short launches (PERFORMANCE.md, run 346).
template <typename Launch>
void write_unit_trace(const std::string &path, Launch launch, const std::vector<DevChunk> &chunks,
                      const DeviceInfo &dev, cudaStream_t st) {
    std::ofstream f(path);
    cudaEvent_t a, b;
    WM_CUDA_CHECK(cudaEventCreate(&a));
    WM_CUDA_CHECK(cudaEventCreate(&b));
    for (const EmitKind kind : {EmitKind::SetKeys, EmitKind::Count})
        for (size_t k = 0; k < std::min<size_t>(chunks.size(), 3); ++k) {
            const uint32_t units = (chunks[k].c.tiles + tuning::kBlockThreads - 1) / tuning::kBlockThreads;
            const uint32_t grid = std::max<uint32_t>(1, std::min(units, dev.grid[static_cast<int>(kind)]));
            std::vector<uint4> h(size_t{units} + grid);
            uint4 *d = nullptr;
            WM_CUDA_CHECK(cudaMalloc(&d, h.size() * sizeof(uint4)));
            WM_CUDA_CHECK(cudaMemsetAsync(d, 0, h.size() * sizeof(uint4), st));
            WM_CUDA_CHECK(cudaEventRecord(a, st));
            launch(kind, k, d);
            WM_CUDA_CHECK(cudaEventRecord(b, st));
            WM_CUDA_CHECK(cudaMemcpyAsync(h.data(), d, h.size() * sizeof(uint4), cudaMemcpyDeviceToHost, st));
            WM_CUDA_CHECK(cudaStreamSynchronize(st));
            WM_CUDA_CHECK(cudaFree(d));
            float ms = 0;
            WM_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
            f << "launch " << (kind == EmitKind::SetKeys ? "set" : "count") << ' ' << k << ' ' << units << ' ' << grid
              << ' ' << ms << '\n';
            for (uint32_t u = 0; u < units; ++u)
                f << "u " << u << ' ' << h[u].x << ' ' << h[u].y << ' ' << h[u].z << ' ' << h[u].w << '\n';
            for (uint32_t g = 0; g < grid; ++g) {
                const uint4 r = h[units + g];
                f << "b " << r.x << ' ' << r.y << ' ' << r.z << ' ' << r.w << '\n';
            }
        }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
}

// Command-line options (CLI11: unknown options and out-of-range values are refused).
struct Options {
    std::vector<std::string> extract;      // --extract CAPTURE OUT
    std::vector<std::string> import_rules; // --import-rules OUT FILE...
    std::string literals, corpus, json = "bench_ac.json", dense_mb = "auto", case_groups = "folded", unit_trace;
    double gb = 4;
    std::vector<size_t> sweep{0, 1000, 3000, 10000};
    int hs_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); // every core
    size_t hs_mb = 256, plugin_mb = 1024, chunk_mb = 1024;
    uint32_t key_bytes = tuning::kKeyBytes;
    bool hs_sweep = false, dynamic = true, unit_index = true;
    int carveout = -1;         // -1: the driver's carveout
    uint32_t blocks_per_sm = 0; // 0: every block that fits
    bool drop_runs = false;       // --drop-runs: literals that are one byte repeated left out
    bool covered_steps = true;    // --covered-steps 0: rows without kCovered32 (an A/B of the flag)
    bool run_steps = true;        // --run-steps 0: rows without kRunStep32 (an A/B of the flag)
    bool case_columns = false;    // --case-columns 1: exact-case one-byte letter classes split (an A/B)
    uint32_t column_shift = 0, pad_columns = 0; // --column-shift, --pad-columns: a layout study
};

// Parses argv into o; returns -1 to go on, else the exit status (help, or an error already printed).
int parse(int argc, char **argv, Options &o) {
    CLI::App app{"Throughput of the Aho-Corasick kernels and matcher on real payloads, beside Hyperscan"};
    app.add_option("--extract", o.extract, "CAPTURE OUT: host only, the capture's payloads -> a corpus file")
        ->expected(2);
    app.add_option("--import-rules", o.import_rules, "OUT FILE...: host only, ET/Snort rules -> a literal list")
        ->expected(2, CLI::detail::expected_max_vector_size);
    app.add_option("--literals", o.literals, "literal list (--import-rules)")->check(CLI::ExistingFile);
    app.add_option("--corpus", o.corpus, "payload corpus (--extract)")->check(CLI::ExistingFile);
    app.add_option("--gb", o.gb, "GB of text on the device (the corpus tiled)")->check(CLI::Range(0.001, 64.0));
    app.add_option("--sweep", o.sweep, "pattern counts, 0 = every literal")->delimiter(',');
    app.add_option("--hs-threads", o.hs_threads, "Hyperscan threads")->check(CLI::Range(1, 1024));
    app.add_option("--hs-mb", o.hs_mb, "MB of text for Hyperscan")->check(CLI::Range(1, 65536));
    app.add_option("--hs-sweep", o.hs_sweep, "1: Hyperscan at every pattern count, not only the full set");
    app.add_option("--plugin-mb", o.plugin_mb, "MB per GpuMatcher::scan batch")->check(CLI::Range(1, 65536));
    app.add_option("--json", o.json, "JSON output file");
    app.add_option("--unit-trace", o.unit_trace, "full set: one launch per kind of the first chunks, unit timeline to FILE");
    app.add_option("--key-bytes", o.key_bytes, "trie depth limit of the kernel rows' automaton")
        ->check(CLI::Range(1u, tuning::kKeyBytes));
    app.add_option("--dense-mb", o.dense_mb, "dense-row budget in MB, or auto (the matcher's, ac_tuning.h)")
        ->check([](const std::string &v) {
            return v == "auto" || (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos)
                       ? std::string()
                       : "auto or a number of MB, not " + v;
        });
    app.add_option("--chunk-mb", o.chunk_mb, "kernel rows: chunk size in MB")->check(CLI::Range(1, 4095));
    app.add_option("--dynamic", o.dynamic, "kernel rows: 1 = blocks take units from a counter; 0 = fixed stride");
    app.add_option("--unit-index", o.unit_index, "kernel rows: 0 = each thread searches all its chunk's segments");
    app.add_option("--case-groups", o.case_groups, "one case-folded automaton, or case and nocase apart")
        ->check(CLI::IsMember({"folded", "split"}));
    app.add_option("--carveout", o.carveout, "kernel rows: preferred shared-memory carveout, % of the maximum")
        ->check(CLI::Range(0, 100));
    app.add_option("--blocks-per-sm", o.blocks_per_sm, "kernel rows: at most N blocks per SM")->check(CLI::Range(1, 32));
    app.add_option("--covered-steps", o.covered_steps, "kernel rows: 0 = no covered steps (kCovered32, ac_blob.h)");
    app.add_option("--run-steps", o.run_steps, "kernel rows: 0 = no run targets (kRunStep32, ac_blob.h)");
    app.add_option("--column-shift", o.column_shift, "kernel rows: the columns past the one-byte ones rotated by N")
        ->check(CLI::Range(0, 255));
    app.add_option("--pad-columns", o.pad_columns, "kernel rows: N unused columns appended")->check(CLI::Range(0, 64));
    app.add_option("--case-columns", o.case_columns, "kernel rows: 1 = case columns (ac_case_columns.h; the matcher's default is 0)");
    app.add_flag("--drop-runs", o.drop_runs, "leave out the literals that are one byte repeated (a study)");
    try {
        app.parse(argc, argv);
        if (o.extract.empty() && o.import_rules.empty() && (o.literals.empty() || o.corpus.empty()))
            throw CLI::RequiredError("--literals and --corpus (or --extract, or --import-rules)");
    } catch (const CLI::ParseError &e) {
        return app.exit(e);
    }
    return -1;
}

} // namespace

int main(int argc, char **argv) try {
    Options opt;
    if (const int rc = parse(argc, argv, opt); rc >= 0) return rc;
    if (!opt.extract.empty()) {
        Corpus c = extract_payloads(opt.extract[0]);
        save_corpus(c, opt.extract[1]);
        std::printf("%u payloads, %zu bytes -> %s\n", c.count(), c.bytes.size(), opt.extract[1].c_str());
        return 0;
    }
    if (!opt.import_rules.empty()) {
        const auto lits = import_prefilter_literals(
            std::vector<std::string>(opt.import_rules.begin() + 1, opt.import_rules.end()));
        save_literals(lits, opt.import_rules[0]);
        std::printf("%zu distinct prefilter literals -> %s\n", lits.size(), opt.import_rules[0].c_str());
        return 0;
    }
    const auto all = opt.drop_runs ? drop_byte_runs(load_literals(opt.literals)) : load_literals(opt.literals);
    const Corpus corpus = load_corpus(opt.corpus);
    std::vector<size_t> sweep;
    for (const size_t n : opt.sweep) sweep.push_back(n == 0 || n > all.size() ? all.size() : n);
    const int hs_threads = opt.hs_threads;
    bool failed = false; // an output overflow or a check that differs: the exit status
    std::printf("corpus: %u payloads, %zu bytes (%.1f B mean); %zu literals\n", corpus.count(), corpus.bytes.size(),
                double(corpus.bytes.size()) / corpus.count(), all.size());

    cudaDeviceProp prop{};
    WM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    DeviceInfo dev{prop.multiProcessorCount, prop.sharedMemPerBlockOptin};
    std::printf("device %s, %d SMs, L2 %d MB; host threads for Hyperscan %d\n", prop.name, prop.multiProcessorCount,
                prop.l2CacheSize >> 20, hs_threads);
    cudaStream_t st;
    WM_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

    // Text: the corpus tiled to >= gb GB, in pinned memory and on the device.
    const size_t want = static_cast<size_t>(opt.gb * 1e9);
    const size_t total = tiled_size(corpus, want);
    uint8_t *h_text = nullptr, *d_text = nullptr;
    WM_CUDA_CHECK(cudaHostAlloc(&h_text, total + 64, cudaHostAllocDefault));
    std::vector<uint32_t> offs;
    tile_corpus(corpus, want, h_text, total, offs);
    BatchView big{h_text, offs.data(), static_cast<uint32_t>(offs.size() - 1)};
    WM_CUDA_CHECK(cudaMalloc(&d_text, total + 64));
    WM_CUDA_CHECK(cudaMemset(d_text + total, 0, 64));
    const size_t probe = std::min<size_t>(size_t{1} << 30, total / 2); // bytes per bandwidth probe
    const double h2d_ms = median_ms([&] {
        WM_CUDA_CHECK(cudaMemcpyAsync(d_text, h_text, probe, cudaMemcpyHostToDevice, st));
    }, st, 1, 5);
    const double d2d_ms = median_ms([&] {
        WM_CUDA_CHECK(cudaMemcpyAsync(d_text + probe, d_text, probe, cudaMemcpyDeviceToDevice, st));
    }, st, 1, 5);
    WM_CUDA_CHECK(cudaMemcpy(d_text, h_text, total, cudaMemcpyHostToDevice));
    const double h2d_gbs = probe / 1e6 / h2d_ms, d2d_gbs = 2.0 * probe / 1e6 / d2d_ms;
    std::printf("text %.2f GB (corpus x %zu); pinned H2D %.1f GB/s; device copy %.0f GB/s (read+write)\n", total / 1e9,
                total / corpus.bytes.size(), h2d_gbs, d2d_gbs);

    nlohmann::ordered_json js = {{"device", prop.name},
                                 {"text_bytes", total},
                                 {"corpus_payloads", corpus.count()},
                                 {"corpus_bytes", corpus.bytes.size()},
                                 {"h2d_gbs", h2d_gbs},
                                 {"d2d_gbs", d2d_gbs},
                                 {"hs_threads", hs_threads},
                                 {"runs", nlohmann::ordered_json::array()}};
    auto write_json = [&] { std::ofstream(opt.json) << js.dump() << "\n"; }; // complete after every set
    std::printf("\n%-8s %-10s %9s %9s %9s %14s %12s %10s %10s %9s %9s\n", "patterns", "states", "Count", "Set",
                "Positions", "positions", "distinct", "plug-pin", "plug-page", "HS", "Set/HS");

    for (size_t si = 0; si < sweep.size(); ++si) {
        const auto pats = literal_subset(all, sweep[si], 7);
        const bool full = pats.size() == all.size();
        AcCompileOptions co;
        co.key_bytes = opt.key_bytes;
        co.dense_budget_bytes = opt.dense_mb == "auto" ? tuning::dense_budget_bytes(prop.totalGlobalMem)
                                                            : std::stoul(opt.dense_mb) << 20;
        co.case_groups = opt.case_groups == "split" ? CaseGroups::Split : CaseGroups::Folded;
        co.covered_steps = opt.covered_steps;
        co.run_steps = opt.run_steps;
        co.case_columns = opt.case_columns;
        co.column_shift = opt.column_shift;
        co.pad_columns = opt.pad_columns;
        AcBlob blob = compile_ac(pats, co);
        if (full) std::printf("automaton (kernel rows): %s\n", blob.describe().c_str());
        uint8_t *d_blob;
        WM_CUDA_CHECK(cudaMalloc(&d_blob, blob.bytes.size()));
        WM_CUDA_CHECK(cudaMemcpy(d_blob, blob.bytes.data(), blob.bytes.size(), cudaMemcpyHostToDevice));
        ScanParams p{};
        p.view = make_ac_view(blob.bytes.data(), d_blob);
        if (opt.carveout >= 0) detail::set_kernel_carveout(p.view, opt.carveout);
        p.count_counters = ac_prepare_kernels(dev, p.view);
        if (full)
            std::printf("resident blocks per SM: Count %u, Set %u, Positions %u\n",
                        dev.grid[static_cast<int>(EmitKind::Count)] / prop.multiProcessorCount,
                        dev.grid[static_cast<int>(EmitKind::SetKeys)] / prop.multiProcessorCount,
                        dev.grid[static_cast<int>(EmitKind::Positions)] / prop.multiProcessorCount);
        if (opt.blocks_per_sm)
            for (uint32_t &g : dev.grid) g = std::min<uint32_t>(g, prop.multiProcessorCount * opt.blocks_per_sm);

        // --chunk-mb chunks of the device text. Segments are planned on the host; the matcher
        // builds the same ones on the device for whole-payload runs (ac_plan.h).
        std::vector<DevChunk> chunks;
        ChunkPlanner plan(big, opt.chunk_mb << 20, big.count, tuning::kTileBytes, p.view.max_len);
        for (DevChunk dc; plan.next(dc.c);) {
            // The kernel stages with 16-byte loads from its text base: start the
            // base at the aligned byte before the chunk and shift the segments.
            const uint32_t delta = static_cast<uint32_t>(dc.c.src_begin & 15);
            dc.text_off = dc.c.src_begin - delta;
            for (Segment &sg : dc.c.segs) {
                sg.data_begin += delta;
                sg.data_end += delta;
            }
            WM_CUDA_CHECK(cudaMalloc(&dc.d_segs, dc.c.segs.size() * sizeof(Segment)));
            WM_CUDA_CHECK(cudaMemcpy(dc.d_segs, dc.c.segs.data(), dc.c.segs.size() * sizeof(Segment),
                                     cudaMemcpyHostToDevice));
            chunks.push_back(std::move(dc));
        }
        const uint32_t pos_cap = 400u << 20;
        uint32_t set_cap = 128u << 20; // sizing run; then the measured need + 25%, as the matcher grows
        Match *d_out;
        unsigned long long *d_hash, *d_counters;
        uint32_t *d_count;
        size_t slots = ac_set_hash_slots(set_cap);
        WM_CUDA_CHECK(cudaMalloc(&d_out, size_t{pos_cap} * sizeof(Match)));
        WM_CUDA_CHECK(cudaMalloc(&d_hash, slots * 8));
        constexpr size_t kCountWords = scan_count_words(EmitKind::Positions); // per chunk, the most any kind reads
        WM_CUDA_CHECK(cudaMalloc(&d_count, 4 * kCountWords * chunks.size()));
        uint32_t *d_next_unit = nullptr; // one counter per chunk, zeroed before each pass
        WM_CUDA_CHECK(cudaMalloc(&d_next_unit, 4 * chunks.size()));
        const bool dynamic = opt.dynamic;
        if (opt.unit_index) // made with the segments, as the matcher's runs have theirs
            for (DevChunk &dc : chunks) {
                std::vector<uint32_t> index(ac_unit_index_words(dc.c.tiles));
                unit_index_of_segments(dc.c.segs.data(), static_cast<uint32_t>(dc.c.segs.size()), dc.c.tiles,
                                       tuning::kBlockThreads, index.data());
                WM_CUDA_CHECK(cudaMalloc(&dc.d_unit_index, index.size() * 4));
                WM_CUDA_CHECK(cudaMemcpy(dc.d_unit_index, index.data(), index.size() * 4, cudaMemcpyHostToDevice));
            }
        WM_CUDA_CHECK(cudaMalloc(&d_counters, pats.size() * 8));
        p.d_counters = d_counters;
        size_t most_payloads = 1; // Set: one-byte words for the chunk of most payloads (the chunks run in turn)
        for (const DevChunk &dc : chunks) most_payloads = std::max<size_t>(most_payloads, one_byte_words(dc.c));
        WM_CUDA_CHECK(cudaMalloc(&p.d_one_byte, most_payloads * 4));
        auto params_of = [&](EmitKind kind, size_t k) {
            ScanParams q = p;
            q.d_text = d_text + chunks[k].text_off;
            q.d_segs = chunks[k].d_segs;
            q.num_segs = static_cast<uint32_t>(chunks[k].c.segs.size());
            q.num_tiles = chunks[k].c.tiles;
            q.d_matches = d_out;
            q.d_keys = reinterpret_cast<unsigned long long *>(d_out);
            q.d_hash = d_hash;
            q.hash_mask = static_cast<uint32_t>(slots - 1);
            q.capacity = kind == EmitKind::SetKeys ? set_cap : pos_cap;
            q.d_count = d_count + kCountWords * k;
            q.d_next_unit = dynamic ? d_next_unit + k : nullptr;
            q.d_unit_index = chunks[k].d_unit_index;
            q.one_byte_first = chunks[k].c.first_payload;
            q.one_byte_words = one_byte_words(chunks[k].c);
            return q;
        };
        auto run_all = [&](EmitKind kind) {
            if (dynamic) WM_CUDA_CHECK(cudaMemsetAsync(d_next_unit, 0, 4 * chunks.size(), st));
            for (size_t k = 0; k < chunks.size(); ++k) {
                if (kind == EmitKind::SetKeys) WM_CUDA_CHECK(cudaMemsetAsync(d_hash, 0xff, slots * 8, st));
                ac_dispatch_scan(kind, params_of(kind, k), dev, st);
            }
        };
        auto counted = [&](EmitKind kind) { // total records and any overflow
            std::vector<uint32_t> h(kCountWords * chunks.size());
            WM_CUDA_CHECK(cudaMemsetAsync(d_count, 0, 4 * kCountWords * chunks.size(), st));
            run_all(kind);
            WM_CUDA_CHECK(cudaMemcpyAsync(h.data(), d_count, h.size() * 4, cudaMemcpyDeviceToHost, st));
            WM_CUDA_CHECK(cudaStreamSynchronize(st));
            uint64_t n = 0;
            for (size_t k = 0; k < chunks.size(); ++k) {
                if (h[kCountWords * k] > (kind == EmitKind::SetKeys ? set_cap : pos_cap) || h[kCountWords * k + 1]) {
                    std::printf("WARNING: output overflow in chunk %zu (%u records)\n", k, h[kCountWords * k]);
                    failed = true; // the record counts below are short
                }
                // less the warps' unused slots
                n += h[kCountWords * k] - (kind == EmitKind::Positions ? h[kCountWords * k + 2] : 0);
            }
            return n;
        };
        {
            std::vector<uint32_t> h(kCountWords * chunks.size());
            WM_CUDA_CHECK(cudaMemsetAsync(d_count, 0, 4 * kCountWords * chunks.size(), st));
            run_all(EmitKind::SetKeys);
            WM_CUDA_CHECK(cudaMemcpyAsync(h.data(), d_count, h.size() * 4, cudaMemcpyDeviceToHost, st));
            WM_CUDA_CHECK(cudaStreamSynchronize(st));
            uint32_t most = 0;
            for (size_t k = 0; k < chunks.size(); ++k) most = std::max(most, h[kCountWords * k]);
            set_cap = std::max<uint32_t>(1u << 20, most + most / 4);
            slots = ac_set_hash_slots(set_cap);
        }
        const double ms_count = median_ms([&] { run_all(EmitKind::Count); }, st);
        const double ms_set = median_ms([&] {
            WM_CUDA_CHECK(cudaMemsetAsync(d_count, 0, 4 * kCountWords * chunks.size(), st));
            run_all(EmitKind::SetKeys);
        }, st);
        const double ms_pos = median_ms([&] {
            WM_CUDA_CHECK(cudaMemsetAsync(d_count, 0, 4 * kCountWords * chunks.size(), st));
            run_all(EmitKind::Positions);
        }, st);
        const uint64_t n_pos = counted(EmitKind::Positions), n_set = counted(EmitKind::SetKeys);
        if (full && !opt.unit_trace.empty()) write_unit_trace(opt.unit_trace, [&](EmitKind kind, size_t k, uint4 *d_trace) {
            if (dynamic) WM_CUDA_CHECK(cudaMemsetAsync(d_next_unit + k, 0, 4, st));
            if (kind == EmitKind::SetKeys) WM_CUDA_CHECK(cudaMemsetAsync(d_hash, 0xff, slots * 8, st));
            WM_CUDA_CHECK(cudaMemsetAsync(d_count + kCountWords * k, 0, 4 * kCountWords, st));
            ScanParams q = params_of(kind, k);
            q.d_unit_trace = d_trace;
            ac_dispatch_scan(kind, q, dev, st);
        }, chunks, dev, st);
        for (auto &dc : chunks) cudaFree(dc.d_segs);
        WM_CUDA_CHECK(cudaFree(d_out));
        WM_CUDA_CHECK(cudaFree(d_hash));
        WM_CUDA_CHECK(cudaFree(d_count));
        WM_CUDA_CHECK(cudaFree(d_next_unit));
        for (DevChunk &dc : chunks) WM_CUDA_CHECK(cudaFree(dc.d_unit_index));
        WM_CUDA_CHECK(cudaFree(d_counters));
        WM_CUDA_CHECK(cudaFree(p.d_one_byte));
        WM_CUDA_CHECK(cudaFree(d_blob));
        const double gb = total / 1e9;

        // Plugin path: host batch -> distinct (payload, rule) pairs on the host.
        auto m = GpuMatcher::create(pats, GpuOptions{});
        const size_t pmb = opt.plugin_mb << 20;
        std::vector<uint32_t> poffs;
        uint8_t *pin = m->pinned_buffer(tiled_size(corpus, pmb));
        const size_t pbytes = tile_corpus(corpus, pmb, pin, tiled_size(corpus, pmb), poffs);
        BatchView pb{pin, poffs.data(), static_cast<uint32_t>(poffs.size() - 1)};
        std::vector<Match> out;
        const double t_pin = median_wall([&] { m->scan(pb, OutputMode::Set, out); }, 5);
        std::vector<uint8_t> pageable(pin, pin + pbytes);
        BatchView pgb{pageable.data(), poffs.data(), pb.count};
        const double t_page = median_wall([&] { m->scan(pgb, OutputMode::Set, out); }, 3);

        // Hyperscan peer, set semantics, all host threads, same payloads.
        std::vector<uint32_t> hoffs;
        const size_t hbytes = tiled_size(corpus, opt.hs_mb << 20);
        std::vector<uint8_t> hbuf(hbytes);
        tile_corpus(corpus, hbytes, hbuf.data(), hbytes, hoffs);
        BatchView hb{hbuf.data(), hoffs.data(), static_cast<uint32_t>(hoffs.size() - 1)};
        HsResult hs;
        if (full || opt.hs_sweep) hs = hyperscan_scan(pats, hb, true, hs_threads, 3, false);
        const double hs_gbs = hs.seconds > 0 ? hbytes / 1e9 / hs.seconds : 0;

        std::printf("%-8zu %-10u %9.1f %9.1f %9.1f %14llu %12llu %10.1f %10.2f %9.2f %8.0fx\n", pats.size(),
                    blob.groups.empty() ? 0 : blob.groups[0].states + (blob.groups.size() > 1 ? blob.groups[1].states : 0),
                    gb / (ms_count / 1e3), gb / (ms_set / 1e3), gb / (ms_pos / 1e3), (unsigned long long)n_pos,
                    (unsigned long long)n_set, pbytes / 1e9 / t_pin, pbytes / 1e9 / t_page, hs_gbs,
                    (hs_gbs > 0 ? (gb / (ms_set / 1e3)) / hs_gbs : 0.0));
        std::printf("         %s\n         HS compile %.2f s; plugin %.2f GB batch, %zu distinct pairs\n",
                    blob.describe().c_str(), hs.compile_s, pbytes / 1e9, out.size());
        js["runs"].push_back({{"patterns", pats.size()},
                              {"blob_bytes", blob.bytes.size()},
                              {"kernel_count_gbs", gb / (ms_count / 1e3)},
                              {"kernel_set_gbs", gb / (ms_set / 1e3)},
                              {"kernel_positions_gbs", gb / (ms_pos / 1e3)},
                              {"kernel_count_ms", ms_count},
                              {"kernel_set_ms", ms_set},
                              {"kernel_positions_ms", ms_pos},
                              {"positions", n_pos},
                              {"set_keys", n_set},
                              {"plugin_pinned_gbs", pbytes / 1e9 / t_pin},
                              {"plugin_pageable_gbs", pbytes / 1e9 / t_page},
                              {"plugin_bytes", pbytes},
                              {"hs_gbs", hs_gbs},
                              {"hs_bytes", hbytes},
                              {"hs_compile_s", hs.compile_s},
                              {"kernel_set_over_hs", hs_gbs > 0 ? (gb / (ms_set / 1e3)) / hs_gbs : 0.0},
                              {"plugin_pinned_over_h2d", (pbytes / 1e9 / t_pin) / h2d_gbs}});
        write_json();
        if (full) { // differential check on real payloads: GPU vs Hyperscan
            BatchView one{corpus.bytes.data(), corpus.offsets.data(), corpus.count()};
            std::vector<Match> gset, gpos;
            m->scan(one, OutputMode::Set, gset);
            m->scan(one, OutputMode::Positions, gpos);
            HsResult hset = hyperscan_scan(pats, one, true, hs_threads, 1, true);
            HsResult hall = hyperscan_scan(pats, one, false, hs_threads, 1, true);
            // Set: the (payload, pattern) pairs; positions: every (payload, end, pattern), not only their number.
            const bool same_set = same_sorted(gset, hset.reports, [](const Match &a, const Match &b) {
                return a.payload != b.payload ? a.payload < b.payload : a.pattern < b.pattern;
            });
            const bool same_pos = same_sorted(gpos, hall.reports, [](const Match &a, const Match &b) {
                return a.payload != b.payload ? a.payload < b.payload
                                              : a.end != b.end ? a.end < b.end : a.pattern < b.pattern;
            });
            std::printf("CHECK real payloads (%zu B): GPU set %zu vs HS set %zu -> %s; GPU positions %zu vs HS "
                        "matches %llu -> %s\n",
                        corpus.bytes.size(), gset.size(), hset.reports.size(), same_set ? "EQUAL" : "DIFFERENT",
                        gpos.size(), (unsigned long long)hall.matches, same_pos ? "EQUAL" : "DIFFERENT");
            js["runs"].push_back({{"check", "real_payloads"},
                                  {"set_equal", same_set},
                                  {"positions_equal", same_pos},
                                  {"gpu_set", gset.size()},
                                  {"gpu_positions", gpos.size()},
                                  {"hs_matches", hall.matches}});
            write_json();
            failed = failed || !same_set || !same_pos; // a disagreement with Hyperscan is an error
        }
    }
    std::printf("\nGB/s = 1e9 bytes per second of payload text. Set/HS = kernel Set over Hyperscan (%d threads, "
                "SINGLEMATCH). JSON: %s\n",
                hs_threads, opt.json.c_str());
    cudaFreeHost(h_text);
    cudaFree(d_text);
    if (failed) std::fprintf(stderr, "bench_ac_kernel: FAILED: an output overflowed or the GPU differs from Hyperscan\n");
    return failed ? 1 : 0;
} catch (const std::exception &e) {
    std::fprintf(stderr, "bench_ac_kernel: %s\n", e.what());
    return 1;
}
