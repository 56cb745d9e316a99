// warpmatch: command-line front end. Thin by design: it parses arguments and
// prints; every piece of logic is in libwarpmatch behind warpmatch.h.
#include "bench_cmd.h"
#include "cli_checks.h"
#include "cli_output.h"
#ifdef WM_HAVE_LIVE_CMD
#include "live_cmd.h"
#endif
#include "warpmatch.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

struct ReplayArgs {
    std::string capture, rules, output, backend = "auto", matches = "auto";
    std::string bpf;          // capture filter, tcpdump syntax
    std::string tunnel_ports; // the UDP tunnels' ports ("" for the standard ones)
    bool verify = false, quiet = false;
    bool payload = false; // alerts carry payload (base64) and payload_printable
    bool streams = false; // TCP reassembly + matches across segments (docs/streams.md)
    unsigned verify_sample = 0;
    int device = 0;
    unsigned read_threads = 0; // 0: the library's default
    unsigned cpu_threads = 0;  // 0: every core
    size_t window_mb = 0;
    int gpu_wait = WM_GPU_WAIT_SPIN;
    int payload_layout = WM_PAYLOADS_AUTO;
};

void on_progress(uint64_t packets, uint64_t bytes, double seconds, void *) {
    fmt::print(stderr, "\r{} packets, {:.1f} MB, {:.2f} Gbit/s   ", packets, bytes / 1e6,
               seconds > 0 ? bytes * 8 / seconds / 1e9 : 0.0);
}

int run_replay(const ReplayArgs &a) {
    if (same_file_as_any(a.output, {a.capture, a.rules})) {
        fmt::print(stderr, "warpmatch: -o {} is the capture or the rule file; not overwriting it\n", a.output);
        return 1;
    }
    wm_error_t *err = nullptr;
    wm_ruleset_t *rs = nullptr;
    if (int rc = wm_ruleset_load_file(a.rules.c_str(), &rs, &err))
        return report_failure(rc, err, "loading rules");
    wm_scanner_options_t opts;
    wm_scanner_options_init(&opts);
    opts.backend = a.backend == "cpu" ? WM_BACKEND_CPU
                   : a.backend == "gpu" ? WM_BACKEND_GPU
                                        : WM_BACKEND_AUTO;
    // Streams suppress matches in carried bytes by position: auto means
    // positions there, on the GPU too.
    opts.output_mode = a.matches == "set"                        ? WM_OUTPUT_SET
                       : a.matches == "positions" || a.streams ? WM_OUTPUT_POSITIONS
                                                  : WM_OUTPUT_AUTO;
    opts.verify_every = a.verify_sample ? a.verify_sample : (a.verify ? 1 : 0);
    opts.gpu_device = a.device;
    opts.cpu_threads = a.cpu_threads ? a.cpu_threads : std::max(1u, std::thread::hardware_concurrency());
    opts.gpu_wait = a.gpu_wait;
    wm_scanner_t *sc = nullptr;
    if (int rc = wm_scanner_create(rs, &opts, &sc, &err)) {
        wm_ruleset_free(rs);
        return report_failure(rc, err, "creating the scanner");
    }
    fmt::print(stderr, "warpmatch: backend {}\n", wm_scanner_backend_reason(sc));

    FILE *out = stdout;
    if (!a.output.empty() && !(out = std::fopen(a.output.c_str(), "w"))) {
        fmt::print(stderr, "warpmatch: cannot write {}: {}\n", a.output, std::strerror(errno));
        wm_scanner_free(sc);
        wm_ruleset_free(rs);
        return 1;
    }
    AlertPrinter sink{rs, out, a.payload ? unsigned{WM_EVE_PAYLOAD | WM_EVE_PAYLOAD_PRINTABLE} : 0u};
    wm_replay_stats_t st;
    wm_replay_stats_init(&st);
    bool tty = isatty(STDERR_FILENO);
    wm_replay_options_t ro;
    wm_replay_options_init(&ro);
    ro.streams = a.streams;
    ro.verify_streams = a.streams && a.verify; // Hyperscan stream mode as the oracle
    ro.read_threads = a.read_threads;
    ro.window_bytes = a.window_mb << 20;
    ro.bpf = a.bpf.c_str();
    ro.tunnel_ports = a.tunnel_ports.c_str();
    ro.payload_layout = a.payload_layout;
    wm_stream_stats_t sst;
    wm_stream_stats_init(&sst);
    // -q: no alert callback, so the library only counts them.
    int rc = wm_replay_file_ex(sc, a.capture.c_str(), &ro, a.quiet ? nullptr : print_alert, &sink,
                               tty ? on_progress : nullptr, nullptr, &st, &sst, &err);
    if (tty)
        fmt::print(stderr, "\n");
    // Refused before the capture was read (WM_INVALID, nothing counted): no stats to print.
    const bool read_capture = rc != WM_INVALID || st.capture.packets != 0;
    char *json = nullptr, *stream_json = nullptr;
    if (read_capture && wm_replay_stats_to_json(&st, &json) == WM_SUCCESS) {
        auto j = nlohmann::ordered_json::parse(json);
        if (a.streams && wm_stream_stats_to_json(&sst, &stream_json) == WM_SUCCESS)
            j["stats"]["streams"] = nlohmann::ordered_json::parse(stream_json);
        if (!a.bpf.empty()) j["stats"]["bpf"] = a.bpf; // the counters are of the records it accepted
        if (!a.tunnel_ports.empty()) j["stats"]["tunnel_ports"] = a.tunnel_ports; // the counters depend on them
        fmt::print(out, "{}\n", j.dump());
    }
    wm_free(json);
    wm_free(stream_json);
    const bool written = finish_output(out, a.output.empty() ? "standard output" : a.output);
    if (read_capture)
        fmt::print(stderr,
                   "warpmatch: {} packets, {} payloads ({:.1f} MB), {} alerts in {:.3f} s "
                   "({:.2f} Gbit/s of payload)\n",
                   st.capture.packets, st.capture.payloads, st.capture.payload_bytes / 1e6, st.alerts,
                   st.seconds, st.gbit_per_s);
    if (const uint64_t n = st.capture.skipped[WM_SKIP_UNSUPPORTED_LINK])
        fmt::print(stderr, "warpmatch: warning: {} packets skipped: a link type warpmatch does not decode\n", n);
    // A write that failed stopped the scan through the alert callback: that is the error to name.
    if (!written && rc == WM_SCAN_TERMINATED) {
        wm_error_free(err);
        rc = WM_SUCCESS;
    }
    int status = report_failure(rc, err, fmt::format("replaying {}", a.capture).c_str());
    if (!written) status = 1;
    wm_scanner_free(sc);
    wm_ruleset_free(rs);
    return status;
}

int run_check(const std::string &path) {
    wm_error_t *err = nullptr;
    wm_ruleset_t *rs = nullptr;
    if (int rc = wm_ruleset_load_file(path.c_str(), &rs, &err))
        return report_failure(rc, err, fmt::format("checking {}", path).c_str());
    wm_ruleset_info_t info;
    wm_ruleset_info_init(&info);
    wm_ruleset_info(rs, &info);
    fmt::print("{}: OK\n  rules: {}\n  nocase: {} ({:.1f}%)\n  approximate: {}\n"
               "  shortest pattern: {} bytes\n  longest pattern: {} bytes\n"
               "  content hash: {}\n  CPU database: {} bytes\n",
               path, info.rules, info.nocase_rules,
               info.rules ? 100.0 * info.nocase_rules / info.rules : 0.0, info.approximate_rules,
               info.min_pattern_len, info.max_pattern_len, info.hash, info.database_bytes);
    wm_ruleset_free(rs);
    return 0;
}

int run_import(const std::vector<std::string> &files, const std::string &out, bool verbose) {
    std::vector<const char *> paths;
    for (const auto &f : files)
        paths.push_back(f.c_str());
    wm_import_report_t r;
    wm_import_report_init(&r);
    wm_error_t *err = nullptr;
    if (int rc = wm_rules_import(paths.data(), paths.size(), out.c_str(), &r, &err))
        return report_failure(rc, err, "importing rules");
    fmt::print("imported {} rules ({} distinct patterns) into {}\n"
               "  rule lines read: {} ({} disabled)\n  skipped: no content {}, negated only {}, "
               "parse error {}, duplicate sid {}\n",
               r.rules_imported, r.distinct_patterns, out, r.rules_read, r.rules_disabled,
               r.skipped_no_content, r.skipped_negated_only, r.skipped_parse_error,
               r.skipped_duplicate_sid);
    std::string details = r.details ? r.details : "";
    if (!details.empty()) {
        if (!verbose) {
            size_t pos = 0;
            for (int i = 0; i < 10 && pos != std::string::npos; ++i)
                pos = details.find('\n', pos + 1);
            if (pos != std::string::npos)
                details = details.substr(0, pos + 1) + "  ... (--verbose for all)\n";
        }
        fmt::print("{}", details);
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{"warpmatch: GPU multi-pattern matching for IDS pipelines"};
    app.require_subcommand(1);
    app.set_version_flag("--version", wm_version());

    ReplayArgs ra;
    auto *replay = app.add_subcommand("replay", "scan a pcap/pcapng file and print EVE JSON alerts");
    replay->add_option("capture", ra.capture, "capture file (pcap or pcapng)")->required();
    replay->add_option("-r,--rules", ra.rules, "YAML rule file")->required();
    replay->add_option("--bpf", ra.bpf,
                       "capture filter (tcpdump syntax): other records are left out of the scan and the "
                       "counters; alerts keep the file's packet numbers");
    replay->add_option("--tunnel-ports", ra.tunnel_ports,
                       "UDP tunnels' ports, e.g. \"vxlan=4789,8472;teredo=off\" (vxlan, geneve, gtpu, teredo, ayiya, vxlan-gpe, mpls-udp; "
                       "a tunnel not named keeps its standard port)");
    replay->add_option("-o,--output", ra.output, "write alerts and stats here instead of stdout");
    replay->add_option("-b,--backend", ra.backend, "auto|cpu|gpu")
        ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    replay->add_option("--matches", ra.matches,
                       "positions: alerts carry payload offsets; set: rule ids only (align alerts keep "
                       "their region); auto: positions on CPU, set on GPU")
        ->check(CLI::IsMember({"auto", "positions", "set"}));
    replay->add_flag("--verify", ra.verify,
                     "cross-check every GPU batch against Hyperscan; with --streams also "
                     "every stream window against Hyperscan stream mode");
    replay->add_flag("--streams,!--no-streams", ra.streams,
                     "reassemble TCP (and IP fragments) and match across segments "
                     "(default: off, every payload on its own)");
    replay->add_option("--verify-sample", ra.verify_sample,
                       "cross-check one GPU batch in N against Hyperscan (over --verify's every batch); the "
                       "stream-mode check of --streams runs with --verify only")
        ->check(CLI::Range(0u, 1000000000u));
    replay->add_option("--device", ra.device, "CUDA device ordinal");
    replay->add_option("--read-threads", ra.read_threads,
                       "threads decoding a window of a classic pcap (default: cores - 1, at most 16)");
    replay->add_option("--window-mb", ra.window_mb,
                       "MiB of capture per window (default: 1/8 of the file, 4-16 MiB on the GPU; "
                       "at most 1024 and the file's size)")
        ->check(CLI::Range(size_t{0}, size_t{1024}));
    replay->add_option("--cpu-threads", ra.cpu_threads,
                       "threads Hyperscan scans a batch with on the CPU backend and for --verify "
                       "(default: every core)");
    add_gpu_wait_option(replay, ra.gpu_wait);
    add_payload_layout_option(replay, ra.payload_layout);
    replay->add_flag("-q,--quiet", ra.quiet, "print only the stats, not the alerts");
    replay->add_flag("--payload", ra.payload, "alerts carry the packet's payload: base64 and printable (as Suricata's)");
    refuse_set_matches_with_streams(replay, ra.streams, ra.matches);

    auto *rules = app.add_subcommand("rules", "check or import rule files");
    rules->require_subcommand(1);
    std::string check_path;
    auto *check = rules->add_subcommand("check", "validate a rule file and print a summary");
    check->add_option("rules", check_path, "YAML rule file")->required();
    std::vector<std::string> import_files;
    std::string import_out;
    bool import_verbose = false;
    auto *import = rules->add_subcommand("import", "convert Suricata/Snort 3 rules to warpmatch YAML");
    import->add_option("files", import_files, "Suricata or Snort 3 .rules files")->required();
    import->add_option("-o,--output", import_out, "YAML file to write")->required();
    import->add_flag("-v,--verbose", import_verbose,
                     "list all parse errors and duplicate sids (up to 1000), not only the first 10; rules with "
                     "no content or only negated contents are only counted");

    BenchArgs ba;
    auto *bench = app.add_subcommand("bench", "throughput of every engine on one corpus, same run");
    bench->add_option("capture", ba.capture, "capture whose payloads form the corpus")->required();
    bench->add_option("-r,--rules", ba.rules, "YAML rule file")->required();
    bench->add_option("--corpus-mb", ba.corpus_mb, "tile the payloads up to this many MiB")
        ->check(CLI::Range(size_t{1}, size_t{65536}));
    bench->add_option("--batch-mb", ba.batch_mb, "batch size in MiB (payload offsets are 32-bit)")
        ->check(CLI::Range(size_t{1}, size_t{4095}));
    bench->add_option("--threads", ba.threads, "Hyperscan threads (0: all cores)")->check(CLI::Range(0, 1024));
    bench->add_option("--repeats", ba.repeats, "timed repeats after one untimed warm-up pass (median reported)")
        ->check(CLI::Range(1, 1000));
    bench->add_option("--json", ba.json, "also write the results here");
    bench->add_flag("--positions", ba.positions, "also time positions mode (every match delivered)");
    bench->add_option("--replay-capture", ba.replay_capture,
                      "also replay this capture on the GPU (e.g. the capture tiled to GBs)");
    bench->add_option("--depth", ba.depth, "batches the pipelined row keeps submitted (default: the most allowed)")
        ->check(CLI::Range(1, WM_SET_PIPELINE_DEPTH));
    bench->add_option("--read-threads", ba.read_threads,
                      "replay rows: threads decoding a window of a classic pcap (default: cores - 1, at most 16)")
        ->check(CLI::Range(0u, 64u));
    bench->add_option("--window-mb", ba.window_mb, "replay rows: MiB of capture per window (default: the library's)")
        ->check(CLI::Range(0u, 1024u));
    add_gpu_wait_option(bench, ba.gpu_wait);
    add_payload_layout_option(bench, ba.payload_layout)
        ->description("--replay-capture rows: as replay --payload-layout");
    bench->add_option("--rows", ba.rows, "only the rows whose name contains one of these (comma-separated)")
        ->delimiter(',');

#ifdef WM_HAVE_LIVE_CMD
    LiveArgs la;
    auto *live = add_live_command(app, la);
#endif

    // CLI11 takes an unknown first word for a stray argument ("A subcommand is required"): name it.
    if (argc > 1 && argv[1][0] != '-') {
        const auto known = app.get_subcommands([&](CLI::App *c) { return c->check_name(argv[1]); });
        if (known.empty()) {
            fmt::print(stderr, "warpmatch: unknown command '{}'\nRun with --help for the commands.\n", argv[1]);
            return static_cast<int>(CLI::ExitCodes::ExtrasError);
        }
    }
    CLI11_PARSE(app, argc, argv);
    // replay and live: a reader that goes away (`| head`) must not kill us
    // before the stats and the drain; a failed write stops the scan instead
    // (print_alert). The other commands keep SIGPIPE's quiet exit.
    if (*replay) std::signal(SIGPIPE, SIG_IGN);
#ifdef WM_HAVE_LIVE_CMD
    if (*live) std::signal(SIGPIPE, SIG_IGN);
#endif
    if (*bench)
        return run_bench(ba);
#ifdef WM_HAVE_LIVE_CMD
    if (*live)
        return run_live(la);
#endif
    if (*replay)
        return run_replay(ra);
    if (*check)
        return run_check(check_path);
    if (*import)
        return run_import(import_files, import_out, import_verbose);
    return 2;
}
