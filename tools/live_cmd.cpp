// `warpmatch live`: open the interface, scan until SIGINT/SIGTERM (or
// --duration), then let the library drain the capture and flush every batch,
// and print the stats. Alerts go out line-buffered as batches complete.
#include "live_cmd.h"

#include "cli_checks.h"
#include "cli_output.h"

#include "warpmatch.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <sys/time.h>
#include <thread>

namespace {

wm_live_t *g_live = nullptr; // for the signal handler only

extern "C" void on_stop_signal(int) { wm_live_stop(g_live); } // async-signal-safe

void install_handlers(double duration_s) {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    if (duration_s > 0) {
        sigaction(SIGALRM, &sa, nullptr);
        itimerval t{};
        t.it_value.tv_sec = static_cast<time_t>(duration_s);
        t.it_value.tv_usec = static_cast<suseconds_t>((duration_s - t.it_value.tv_sec) * 1e6);
        if (t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0) t.it_value.tv_usec = 1; // zero would disarm it
        setitimer(ITIMER_REAL, &t, nullptr);
    }
}

std::string stats_line(const wm_live_t *live, bool streams) {
    wm_live_stats_t st;
    wm_live_stats_init(&st);
    wm_stream_stats_t sst;
    wm_stream_stats_init(&sst);
    wm_live_stats(live, &st, &sst);
    char *a = nullptr, *b = nullptr, *c = nullptr;
    wm_replay_stats_to_json(&st.replay, &a);
    wm_live_stats_to_json(&st, &b);
    wm_stream_stats_to_json(&sst, &c);
    auto j = nlohmann::ordered_json::parse(a ? a : "{}");
    if (b) j["stats"]["live"] = nlohmann::ordered_json::parse(b);
    if (streams && c) j["stats"]["streams"] = nlohmann::ordered_json::parse(c);
    wm_free(a), wm_free(b), wm_free(c);
    fmt::print(stderr,
               "warpmatch: {} packets, {} alerts, {} batches; pcap received {}, dropped {} "
               "(kernel) {} (interface); batch latency p50 {:.2f} ms, p99 {:.2f} ms, max {:.2f} ms\n",
               st.replay.capture.packets, st.replay.alerts, st.replay.batches, st.pcap_received,
               st.pcap_dropped, st.pcap_if_dropped, st.latency_p50_ms, st.latency_p99_ms,
               st.latency_max_ms);
    return j.dump();
}

} // namespace

CLI::App *add_live_command(CLI::App &app, LiveArgs &a) {
    auto *c = app.add_subcommand(
        "live", "scan a network interface until SIGINT/SIGTERM; needs CAP_NET_RAW, not root "
                "(setcap cap_net_raw,cap_net_admin+eip on the binary)");
    c->add_option("-i,--interface", a.interface, "interface to capture on")->required();
    c->add_option("-r,--rules", a.rules, "YAML rule file")->required();
    c->add_option("--bpf", a.bpf, "capture filter (tcpdump syntax)");
    c->add_option("--tunnel-ports", a.tunnel_ports,
                  "UDP tunnels' ports, e.g. \"vxlan=4789,8472;teredo=off\" (as replay's)");
    c->add_option("--snaplen", a.snaplen, "bytes kept per packet")->check(CLI::Range(1, 262144));
    c->add_option("--buffer-mb", a.buffer_mb, "kernel capture buffer in MiB")->check(CLI::Range(1, 2047));
    c->add_flag("--immediate", a.immediate, "deliver every packet at once (lower latency, more CPU)");
    c->add_option("--max-latency-ms", a.max_latency_ms,
                  "scan a batch at the latest this long after its first packet")
        ->check(CLI::Range(1u, 3600000u));
    c->add_option("--batch-mb", a.batch_mb, "close a batch at this size (0: by backend: 1 CPU; GPU 2 with --streams, else 32)")
        ->check(finite_range(0, 4095));
    c->add_flag("--streams,!--no-streams", a.streams,
                "reassemble TCP and IP fragments, match across segments (default off)");
    c->add_option("-o,--output", a.output, "write alerts and stats here instead of stdout");
    c->add_option("-b,--backend", a.backend, "auto|cpu|gpu")
        ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    c->add_option("--matches", a.matches, "auto|positions|set (streams need positions)")
        ->check(CLI::IsMember({"auto", "positions", "set"}));
    c->add_flag("--verify", a.verify,
                "cross-check GPU batches against Hyperscan, stream windows against "
                "Hyperscan stream mode");
    c->add_option("--duration", a.duration_s, "stop after this many seconds (0: on a signal)")
        ->check(finite_range(0, 366 * 86400.0)); // setitimer's range, and a year is enough
    c->add_option("--device", a.device, "CUDA device ordinal");
    c->add_option("--cpu-threads", a.cpu_threads,
                  "threads Hyperscan scans a batch with on the CPU backend and for --verify "
                  "(default: every core)");
    add_gpu_wait_option(c, a.gpu_wait);
    c->add_flag("-q,--quiet", a.quiet, "print only the stats, not the alerts");
    c->add_flag("--payload", a.payload, "alerts carry the packet's payload: base64 and printable (as Suricata's)");
    refuse_set_matches_with_streams(c, a.streams, a.matches);
    return c;
}

int run_live(const LiveArgs &a) {
    wm_error_t *err = nullptr;
    wm_ruleset_t *rs = nullptr;
    if (int rc = wm_ruleset_load_file(a.rules.c_str(), &rs, &err))
        return report_failure(rc, err, "loading rules");
    wm_scanner_options_t so;
    wm_scanner_options_init(&so);
    so.backend = a.backend == "cpu" ? WM_BACKEND_CPU : a.backend == "gpu" ? WM_BACKEND_GPU
                                                                         : WM_BACKEND_AUTO;
    so.output_mode = a.matches == "set" ? WM_OUTPUT_SET
                     : a.matches == "positions" || a.streams ? WM_OUTPUT_POSITIONS
                                                             : WM_OUTPUT_AUTO;
    so.verify_every = a.verify ? 1 : 0;
    so.gpu_device = a.device;
    so.cpu_threads = a.cpu_threads ? a.cpu_threads : std::max(1u, std::thread::hardware_concurrency());
    so.gpu_wait = a.gpu_wait;
    wm_scanner_t *sc = nullptr;
    if (int rc = wm_scanner_create(rs, &so, &sc, &err)) {
        wm_ruleset_free(rs);
        return report_failure(rc, err, "creating the scanner");
    }
    wm_live_options_t lo;
    wm_live_options_init(&lo);
    lo.interface = a.interface.c_str();
    lo.bpf = a.bpf.c_str();
    lo.tunnel_ports = a.tunnel_ports.c_str();
    lo.snaplen = a.snaplen;
    lo.buffer_mb = a.buffer_mb;
    lo.immediate = a.immediate;
    lo.max_latency_ms = a.max_latency_ms;
    lo.max_batch_bytes = static_cast<uint64_t>(a.batch_mb * (1 << 20));
    lo.streams = a.streams;
    lo.verify_streams = a.streams && a.verify;
    int status = 1;
    const bool overwrites_rules = same_file_as_any(a.output, {a.rules}); // before fopen truncates it
    FILE *out = overwrites_rules ? nullptr : a.output.empty() ? stdout : std::fopen(a.output.c_str(), "w");
    if (overwrites_rules) {
        fmt::print(stderr, "warpmatch: -o {} is the rule file; not overwriting it\n", a.output);
    } else if (!out) {
        fmt::print(stderr, "warpmatch: cannot write {}: {}\n", a.output, std::strerror(errno));
    } else if (int rc = wm_live_open(&lo, &g_live, &err)) {
        status = report_failure(rc, err, fmt::format("opening {}", a.interface));
    } else {
        setvbuf(out, nullptr, _IOLBF, 0); // alerts leave as their batch completes
        install_handlers(a.duration_s);
        fmt::print(stderr, "warpmatch: backend {}\nwarpmatch: capturing on {}\n",
                   wm_scanner_backend_reason(sc), a.interface);
        AlertPrinter sink{rs, out, a.payload ? unsigned{WM_EVE_PAYLOAD | WM_EVE_PAYLOAD_PRINTABLE} : 0u};
        const int run_rc = wm_live_run(g_live, sc, a.quiet ? nullptr : print_alert, &sink, &err); // -q: counted only
        if (run_rc != WM_INVALID) fmt::print(out, "{}\n", stats_line(g_live, a.streams)); // else nothing ran
        status = run_rc == WM_SUCCESS ? 0
                                      : report_failure(run_rc, err, fmt::format("capturing on {}", a.interface));
        wm_live_t *live = g_live;
        g_live = nullptr;
        wm_live_close(live);
    }
    if (out && !finish_output(out, a.output.empty() ? "standard output" : a.output)) status = 1;
    wm_scanner_free(sc);
    wm_ruleset_free(rs);
    return status;
}
