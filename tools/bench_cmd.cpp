// `warpmatch bench`: one corpus, every engine through the public API, same
// run, with matches delivered by callback (wm_scan_batch) and as set arrays
// (wm_scan_batch_set). Prints a table and writes JSON. Kernel-only timings live in
// gpu/bench_ac_kernel (they need the device-resident corpus).
#include "bench_cmd.h"
#include "cli_checks.h"

#include "warpmatch_stream.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Corpus {
    std::vector<uint8_t> data;
    std::vector<uint64_t> offsets{0}; // corpus may exceed 4 GiB
    std::vector<wm_payload_meta_t> meta;
};

// Payloads of a capture, repeated until the corpus reaches target bytes.
bool load_corpus(const std::string &pcap, size_t target, Corpus &c) {
    wm_capture_t *cap = nullptr;
    wm_error_t *err = nullptr;
    if (wm_capture_open_offline(pcap.c_str(), &cap, &err) != WM_SUCCESS) {
        fmt::print(stderr, "bench: {}\n", err ? err->message : pcap);
        wm_error_free(err);
        return false;
    }
    Corpus one; // one pass over the capture
    wm_packet_t p;
    wm_packet_init(&p);
    int rc;
    while ((rc = wm_capture_next(cap, &p, &err)) == WM_SUCCESS) {
        one.data.insert(one.data.end(), p.payload, p.payload + p.payload_len);
        one.offsets.push_back(one.data.size());
        one.meta.push_back({p.proto, p.src_port, p.dst_port});
    }
    wm_capture_close(cap);
    // A truncated or corrupt capture would make a corpus of its first part: refuse it.
    if (rc != WM_END) {
        fmt::print(stderr, "bench: {} ({}): {}\n", pcap, wm_status_name(rc), err && err->message ? err->message : "");
        wm_error_free(err);
        return false;
    }
    if (one.data.empty()) {
        fmt::print(stderr, "bench: {} has no TCP or UDP payload bytes to make a corpus of\n", pcap);
        return false;
    }
    c.data.reserve(target + one.data.size());
    while (c.data.size() < target) {
        size_t base = c.data.size();
        c.data.insert(c.data.end(), one.data.begin(), one.data.end());
        for (size_t i = 1; i < one.offsets.size(); ++i)
            c.offsets.push_back(base + one.offsets[i]);
        c.meta.insert(c.meta.end(), one.meta.begin(), one.meta.end());
    }
    return true;
}

// Batches of about batch_bytes over the corpus (offsets are 32-bit, so a
// batch's offsets are rebased to its first payload).
struct Batches {
    std::vector<std::vector<uint32_t>> offsets;
    std::vector<wm_batch_t> views;
};

Batches make_batches(const Corpus &c, size_t batch_bytes) {
    Batches b;
    size_t n = c.meta.size(), i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && c.offsets[j + 1] - c.offsets[i] <= batch_bytes)
            ++j;
        j = std::max(j, i + 1);
        std::vector<uint32_t> off;
        for (size_t k = i; k <= j; ++k)
            off.push_back(static_cast<uint32_t>(c.offsets[k] - c.offsets[i]));
        b.offsets.push_back(std::move(off));
        i = j;
    }
    i = 0;
    for (auto &off : b.offsets) {
        b.views.push_back(wm_batch_t{c.data.data() + c.offsets[i], off.data(), off.size() - 1,
                                     c.meta.data() + i});
        i += off.size() - 1;
    }
    return b;
}

int count_match(uint32_t, uint32_t, uint32_t, uint32_t, void *ctx) {
    ++*static_cast<uint64_t *>(ctx);
    return 0;
}

struct Result {
    std::string name;
    double seconds = 0;
    uint64_t matches = 0;
    double engine = 0, ordering = 0, delivery = 0; // summed over scanners and repeats
    double create = 0; // replay rows: wm_scanner_create() seconds (the row's scanner was new)
    double gb_per_s(size_t bytes) const { return bytes / seconds / 1e9; }
};

// Scans every batch with `threads` scanners in parallel (batch i on thread
// i % threads). Returns seconds, or -1 when the backend is unavailable.
// pinned: the corpus is first copied (untimed) into the scanner's own batch
// buffer, as a capture loop would write payloads in place; the GPU then
// copies straight from page-locked memory.
// Delivery: a callback per match (wm_scan_batch), one array of set hits per
// batch (wm_scan_batch_set, summed the same way), or the same arrays with the
// batches pipelined `depth` deep (wm_scan_batch_set_submit: batches i + 1 ..
// i + depth - 1 are submitted before batch i is collected).
enum class Delivery { Callback, SetArray, SetPipelined };

Result run_scanners(const wm_ruleset_t *rs, const Corpus &c, const Batches &b, const wm_scanner_options_t &o,
                    int threads, const std::string &name, int repeats, bool pinned = false,
                    Delivery delivery = Delivery::Callback, int depth = WM_SET_PIPELINE_DEPTH) {
    Result r{name};
    std::vector<wm_scanner_t *> sc(threads, nullptr);
    for (auto &s : sc) {
        wm_error_t *err = nullptr;
        if (wm_scanner_create(rs, &o, &s, &err) != WM_SUCCESS) {
            fmt::print(stderr, "bench: {} skipped: {}\n", name, err ? err->message : "");
            wm_error_free(err);
            r.seconds = -1;
            for (auto *x : sc)
                wm_scanner_free(x);
            return r;
        }
    }
    std::vector<wm_batch_t> views = b.views;
    if (pinned) {
        uint8_t *buf = nullptr;
        wm_error_t *err = nullptr;
        if (wm_scanner_batch_buffer(sc[0], c.data.size(), &buf, &err) != WM_SUCCESS) {
            fmt::print(stderr, "bench: {} skipped: {}\n", name, err ? err->message : "no batch buffer");
            wm_error_free(err);
            r.seconds = -1;
            for (auto *x : sc)
                wm_scanner_free(x);
            return r;
        }
        std::copy(c.data.begin(), c.data.end(), buf);
        for (auto &v : views)
            v.data = buf + (v.data - c.data.data());
    }
    // One untimed pass first: every row, the CPU peer's included, is timed
    // warm (scratch touched, pages faulted in, GPU buffers grown), then the
    // median of `repeats`.
    std::vector<double> times;
    for (int rep = -1; rep < repeats; ++rep) {
        std::vector<uint64_t> matches(threads, 0);
        auto t0 = Clock::now();
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                if (delivery == Delivery::SetPipelined) {
                    auto collect = [&] {
                        const wm_set_hit_t *hits = nullptr;
                        size_t n = 0;
                        wm_scan_batch_set_collect(sc[t], &hits, &n, nullptr);
                        matches[t] += n;
                    };
                    int pending = 0;
                    for (size_t i = t; i < views.size(); i += threads) {
                        wm_scan_batch_set_submit(sc[t], &views[i], nullptr);
                        if (++pending == depth) collect(), --pending;
                    }
                    for (; pending > 0; --pending) collect();
                    return;
                }
                for (size_t i = t; i < views.size(); i += threads) {
                    if (delivery == Delivery::Callback) {
                        wm_scan_batch(sc[t], &views[i], count_match, &matches[t], nullptr);
                        continue;
                    }
                    const wm_set_hit_t *hits = nullptr;
                    size_t n = 0;
                    wm_scan_batch_set(sc[t], &views[i], &hits, &n, nullptr);
                    matches[t] += n;
                }
            });
        for (auto &th : pool)
            th.join();
        if (rep >= 0) times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
        r.matches = 0;
        for (auto m : matches)
            r.matches += m;
    }
    std::sort(times.begin(), times.end());
    r.seconds = times[times.size() / 2];
    for (auto *x : sc) {
        wm_scanner_stats_t st;
        wm_scanner_stats_init(&st);
        wm_scanner_stats(x, &st);
        r.engine += st.engine_seconds / (repeats + 1); // the warm-up pass included
        r.ordering += st.ordering_seconds / (repeats + 1);
        r.delivery += st.delivery_seconds / (repeats + 1);
        wm_scanner_free(x);
    }
    return r;
}

// Replay of a capture end to end (read, decode, scan, alerts to a callback
// that only counts them; with window_alerts, one call per window with its
// alerts as an array), through wm_replay_file_ex with the default tuning.
// The scanner's engine and callback seconds say whether the scan or the
// reading (the rest of the wall time) bounds it. With warm_runs > 0 the same
// scanner replays the file again that many times and the second row is the
// fastest of those: the first replay on a new scanner also page-locks its
// window buffers (once per scanner, as a long-running host keeps it).
std::vector<Result> run_replay(const wm_ruleset_t *rs, const std::string &pcap, const wm_scanner_options_t &o,
                               const std::string &name, size_t *payload_bytes = nullptr, int warm_runs = 0,
                               bool window_alerts = false, unsigned read_threads = 0, unsigned window_mb = 0,
                               int payload_layout = WM_PAYLOADS_AUTO) {
    std::vector<Result> out;
    wm_scanner_t *sc = nullptr;
    const auto t0 = Clock::now();
    if (wm_scanner_create(rs, &o, &sc, nullptr) != WM_SUCCESS) {
        Result r{name};
        r.seconds = -1;
        return {r};
    }
    const double create = std::chrono::duration<double>(Clock::now() - t0).count();
    wm_scanner_stats_t before;
    wm_scanner_stats_init(&before);
    for (int run = 0; run <= warm_runs; ++run) {
        Result r{run == 0 ? name : name + " (scanner warm)"};
        r.create = run == 0 ? create : 0;
        wm_replay_stats_t st;
        wm_replay_stats_init(&st);
        wm_replay_options_t ro;
        wm_replay_options_init(&ro);
        ro.read_threads = read_threads;
        ro.window_bytes = uint64_t{window_mb} << 20;
        ro.payload_layout = payload_layout;
        auto count = [](const wm_alert_t *, void *) { return 0; };
        if (window_alerts) // the alerts as one array per window, no call per alert
            ro.on_window_alerts = [](const wm_packet_t *, size_t, const wm_set_hit_t *, size_t, void *) { return 0; };
        const bool ok = wm_replay_file_ex(sc, pcap.c_str(), &ro, count, nullptr, nullptr, nullptr, &st, nullptr,
                                          nullptr) == WM_SUCCESS;
        r.seconds = ok ? st.seconds : -1;
        r.matches = st.alerts;
        if (payload_bytes) *payload_bytes = st.capture.payload_bytes;
        wm_scanner_stats_t ss;
        wm_scanner_stats_init(&ss);
        wm_scanner_stats(sc, &ss);
        r.engine = ss.engine_seconds - before.engine_seconds;
        r.ordering = ss.ordering_seconds - before.ordering_seconds;
        r.delivery = ss.delivery_seconds - before.delivery_seconds;
        before = ss;
        if (run <= 1) out.push_back(r);
        else if (r.seconds > 0 && r.seconds < out[1].seconds) out[1] = r;
    }
    wm_scanner_free(sc);
    return out;
}

} // namespace

int run_bench(const BenchArgs &a) {
    if (same_file_as_any(a.json, {a.capture, a.rules, a.replay_capture})) {
        fmt::print(stderr, "bench: --json {} is the capture or the rule file; not overwriting it\n", a.json);
        return 1;
    }
    // Refuse an unwritable --json before the runs rather than after them.
    if (!a.json.empty() && !std::ofstream(a.json, std::ios::app)) {
        fmt::print(stderr, "bench: cannot write {}: {}\n", a.json, std::strerror(errno));
        return 1;
    }
    wm_ruleset_t *rs = nullptr;
    wm_error_t *err = nullptr;
    if (wm_ruleset_load_file(a.rules.c_str(), &rs, &err) != WM_SUCCESS) {
        fmt::print(stderr, "bench: {}\n", err ? err->message : "");
        wm_error_free(err);
        return 1;
    }
    Corpus c;
    if (!load_corpus(a.capture, a.corpus_mb << 20, c)) {
        wm_ruleset_free(rs);
        return 1;
    }
    size_t bytes = c.data.size();
    auto batches = make_batches(c, a.batch_mb << 20);
    int cores = a.threads > 0 ? a.threads : static_cast<int>(std::thread::hardware_concurrency());
    // The Hyperscan peer takes batch i on thread i % cores; a few large batches
    // would idle most cores (five 256 MB batches kept 5 of 16 busy, runs
    // 34-55), so its batches are cut to give every thread eight.
    const size_t peer_batch = std::min<size_t>(a.batch_mb << 20, std::max<size_t>(bytes / (8 * cores), 1));
    auto peer_batches = make_batches(c, peer_batch);
    fmt::print("corpus: {} payloads, {:.1f} MB from {} ({} batches of <= {} MB); {} CPU threads; "
               "Hyperscan rows: {} batches of <= {:.1f} MB; pipelined row {} batches deep; GPU waits {}\n",
               c.meta.size(), bytes / 1e6, a.capture, batches.views.size(), a.batch_mb, cores,
               peer_batches.views.size(), peer_batch / 1048576.0, a.depth,
               a.gpu_wait == WM_GPU_WAIT_BLOCK ? "block" : "spin");
    std::fflush(stdout);

    std::vector<Result> res;
    // --rows: only the rows whose name contains one of the given strings.
    auto wanted = [&](const std::string &name) {
        return a.rows.empty() || std::any_of(a.rows.begin(), a.rows.end(), [&](const std::string &r) {
                   return name.find(r) != std::string::npos;
               });
    };
    // A scanner's options: the row's backend, mode and host threads, and
    // --gpu-wait (GPU rows).
    auto options = [&](int backend, int mode, unsigned cpu_threads = 1) {
        wm_scanner_options_t o;
        wm_scanner_options_init(&o);
        o.backend = backend;
        o.output_mode = mode;
        o.cpu_threads = cpu_threads;
        o.gpu_wait = a.gpu_wait;
        return o;
    };
    auto scan_row = [&](const Batches &b, int backend, int mode, int threads, const std::string &name,
                        bool pinned = false, Delivery d = Delivery::Callback, unsigned cpu_threads = 1) {
        if (wanted(name))
            res.push_back(run_scanners(rs, c, b, options(backend, mode, cpu_threads), threads, name, a.repeats,
                                       pinned, d, a.depth));
    };
    // Set mode (distinct rules per payload) is what an IDS consumes; positions
    // materialise ~0.2 matches per byte and measure match delivery instead.
    scan_row(peer_batches, WM_BACKEND_CPU, WM_OUTPUT_SET, cores, "hyperscan-cpu-all-cores set");
    if (a.positions)
        scan_row(peer_batches, WM_BACKEND_CPU, WM_OUTPUT_POSITIONS, cores, "hyperscan-cpu-all-cores positions");
    scan_row(peer_batches, WM_BACKEND_CPU, WM_OUTPUT_SET, cores, "hyperscan-cpu-all-cores set array", false,
             Delivery::SetArray);
    scan_row(batches, WM_BACKEND_GPU, WM_OUTPUT_SET, 1, "gpu plugin-path set array (pinned)", true, Delivery::SetArray);
    scan_row(batches, WM_BACKEND_GPU, WM_OUTPUT_SET, 1, "gpu plugin-path set array pipelined", true,
             Delivery::SetPipelined);
    scan_row(batches, WM_BACKEND_GPU, WM_OUTPUT_SET, 1, "gpu plugin-path set array (pageable)", false,
             Delivery::SetArray);
    scan_row(batches, WM_BACKEND_GPU, WM_OUTPUT_SET, 1, "gpu plugin-path set (pinned input)", true);
    scan_row(batches, WM_BACKEND_GPU, WM_OUTPUT_SET, 1, "gpu plugin-path set (pageable input)");
    // Positions: one scanner, its matches expanded to rules by 1 host thread
    // or by every core (cpu_threads), delivered on the caller's thread.
    if (a.positions) {
        scan_row(batches, WM_BACKEND_GPU, WM_OUTPUT_POSITIONS, 1, "gpu plugin-path positions (pinned)", true);
        scan_row(batches, WM_BACKEND_GPU, WM_OUTPUT_POSITIONS, 1,
                 fmt::format("gpu plugin-path positions (pinned, {} host threads)", cores), true, Delivery::Callback,
                 static_cast<unsigned>(cores));
    }
    std::vector<Result> replays;
    if (wanted("replay cpu (1 thread) set"))
        replays.push_back(
            run_replay(rs, a.capture, options(WM_BACKEND_CPU, WM_OUTPUT_SET), "replay cpu (1 thread) set")[0]);
    // The CPU backend as `warpmatch replay -b cpu` runs it: Hyperscan on every core.
    const std::string cpu_all = fmt::format("replay cpu ({} threads) set", cores);
    if (wanted(cpu_all))
        replays.push_back(run_replay(rs, a.capture, options(WM_BACKEND_CPU, WM_OUTPUT_SET, cores), cpu_all)[0]);
    const std::string cpu_all_positions = fmt::format("replay cpu ({} threads) positions", cores);
    if (a.positions && wanted(cpu_all_positions))
        replays.push_back(
            run_replay(rs, a.capture, options(WM_BACKEND_CPU, WM_OUTPUT_POSITIONS, cores), cpu_all_positions)[0]);
    if (wanted("replay gpu set"))
        replays.push_back(run_replay(rs, a.capture, options(WM_BACKEND_GPU, WM_OUTPUT_SET), "replay gpu set")[0]);
    // Positions: the alerts carry offsets; the scanner's engine seconds (the
    // device and the expansion) against its callback seconds (the replay
    // thread's one alert per (payload, rule)) say which side holds the row.
    if (a.positions && wanted("replay gpu positions"))
        replays.push_back(run_replay(rs, a.capture,
                                     options(WM_BACKEND_GPU, WM_OUTPUT_POSITIONS, static_cast<unsigned>(cores)),
                                     "replay gpu positions")[0]);
    size_t big_payload = 0;
    std::vector<Result> replay_big; // the bigger capture: a new scanner, then warm; per alert, then per window
    for (const bool window_alerts : {false, true}) {
        const std::string name =
            window_alerts ? "replay gpu set, window alerts, --replay-capture" : "replay gpu set, --replay-capture";
        if (a.replay_capture.empty() || !wanted(name)) continue;
        for (Result &r : run_replay(rs, a.replay_capture, options(WM_BACKEND_GPU, WM_OUTPUT_SET), name, &big_payload, 2,
                                    window_alerts, a.read_threads, a.window_mb, a.payload_layout))
            replay_big.push_back(std::move(r));
    }
    // The same replay on the CPU backend (Hyperscan on every core, the same
    // reader, window alerts): the peer that does the GPU row's whole work,
    // file reading included (the x HS column compares with Hyperscan over the
    // corpus in memory, as issue 3 sets its target).
    const std::string cpu_big = fmt::format("replay cpu ({} threads) set, --replay-capture, alerts by window", cores);
    if (!a.replay_capture.empty() && wanted(cpu_big))
        for (Result &r : run_replay(rs, a.replay_capture, options(WM_BACKEND_CPU, WM_OUTPUT_SET, cores), cpu_big,
                                    &big_payload, 1, true, a.read_threads, a.window_mb, a.payload_layout))
            replay_big.push_back(std::move(r));
    const std::string big_positions = "replay gpu positions, --replay-capture";
    if (a.positions && !a.replay_capture.empty() && wanted(big_positions))
        for (Result &r : run_replay(rs, a.replay_capture,
                                    options(WM_BACKEND_GPU, WM_OUTPUT_POSITIONS, static_cast<unsigned>(cores)),
                                    big_positions, &big_payload, 2, false, a.read_threads, a.window_mb,
                                    a.payload_layout))
            replay_big.push_back(std::move(r));
    wm_capture_t *cap = nullptr;
    size_t capture_payload = 0;
    if (wm_capture_open_offline(a.capture.c_str(), &cap, nullptr) == WM_SUCCESS) {
        wm_packet_t p;
        wm_packet_init(&p);
        while (wm_capture_next(cap, &p, nullptr) == WM_SUCCESS)
            capture_payload += p.payload_len;
        wm_capture_close(cap);
    }

    // The set-mode peer: Hyperscan's callback row, else its set-array row (0
    // when --rows left both out: no ratios then).
    const Result *peer = nullptr;
    for (const char *name : {"hyperscan-cpu-all-cores set", "hyperscan-cpu-all-cores set array"})
        for (const Result &r : res)
            if (!peer && r.name == name && r.seconds > 0) peer = &r;
    const double hs = peer ? peer->gb_per_s(bytes) : 0;
    // The GPU rows' bound: the pinned host-to-device copy rate, measured in
    // this run (wm_gpu_h2d_bandwidth) when a GPU row ran.
    double h2d = 0;
    const auto gpu_row = [](const Result &r) { return r.name.find("gpu") != std::string::npos && r.seconds > 0; };
    if (std::any_of(res.begin(), res.end(), gpu_row) || std::any_of(replays.begin(), replays.end(), gpu_row) ||
        std::any_of(replay_big.begin(), replay_big.end(), gpu_row)) {
        wm_error_t *err = nullptr;
        if (wm_gpu_h2d_bandwidth(0, size_t{256} << 20, 10, &h2d, &err) == WM_SUCCESS)
            fmt::print("pinned H2D {:.1f} GB/s (256 MB copies from page-locked memory, median of 10)\n", h2d);
        else
            fmt::print(stderr, "bench: pinned H2D not measured: {}\n", err ? err->message : "");
        wm_error_free(err);
    }
    nlohmann::ordered_json j;
    j["corpus_bytes"] = bytes;
    j["capture"] = a.capture;
    j["rules"] = a.rules;
    j["threads"] = cores;
    j["batches"] = batches.views.size();
    j["hyperscan_batches"] = peer_batches.views.size();
    j["pipeline_depth"] = a.depth;
    j["gpu_wait"] = a.gpu_wait == WM_GPU_WAIT_BLOCK ? "block" : "spin";
    j["hyperscan_peer"] = peer ? peer->name : "";
    j["pinned_h2d_gb_per_s"] = h2d;
    fmt::print("{:<36} {:>10} {:>10} {:>14} {:>10} {:>10}\n", "engine", "seconds", "GB/s", "matches", "x HS",
               "x H2D");
    auto row = [&](const Result &r, size_t nbytes) {
        if (r.seconds < 0) {
            fmt::print("{:<36} {:>10}\n", r.name, "skipped");
            j["results"].push_back({{"name", r.name}, {"skipped", true}});
            return;
        }
        const double gbs = r.gb_per_s(nbytes), to_h2d = h2d > 0 && gpu_row(r) ? gbs / h2d : 0.0;
        fmt::print("{:<36} {:>10.4f} {:>10.3f} {:>14} {:>10.2f} {:>10.2f}", r.name, r.seconds, gbs, r.matches,
                   hs > 0 ? gbs / hs : 0.0, to_h2d);
        if (r.engine > 0)
            fmt::print("   (thread-s: engine {:.3f}, ordering {:.3f}, callbacks {:.3f})", r.engine,
                       r.ordering, r.delivery);
        if (r.create > 0)
            fmt::print("   (scanner created in {:.3f} s, not in the row)", r.create);
        fmt::print("\n");
        j["results"].push_back({{"name", r.name}, {"seconds", r.seconds}, {"gb_per_s", gbs},
                                {"matches", r.matches}, {"ratio_to_hyperscan", hs > 0 ? gbs / hs : 0.0},
                                {"ratio_to_pinned_h2d", to_h2d},
                                {"engine_thread_seconds", r.engine},
                                {"ordering_thread_seconds", r.ordering},
                                {"callback_thread_seconds", r.delivery},
                                {"scanner_create_seconds", r.create}});
    };
    for (const auto &r : res) {
        row(r, bytes);
        std::fflush(stdout);
    }
    for (const Result &r : replays) row(r, capture_payload);
    for (const Result &r : replay_big) row(r, big_payload);
    if (res.empty() && replays.empty() && replay_big.empty()) {
        fmt::print(stderr, "bench: no row's name contains any of --rows\n");
        wm_ruleset_free(rs);
        return 1;
    }
    wm_ruleset_free(rs);
    if (!a.json.empty()) {
        std::ofstream out(a.json);
        out << j.dump(2) << "\n";
        out.close();
        if (!out) {
            fmt::print(stderr, "bench: cannot write {}: {}\n", a.json, std::strerror(errno));
            return 1;
        }
    }
    return 0;
}
