// gpu/exact/bench_exact_main.cpp - bench_exact: seed tables and engine routing.
//
//   bench_exact tables [--sizes 20,22,24,26,28,30] [--m 1000] [--reps 10] [--cpu-reps 3] [--json F]
//   bench_exact engine --literals F --corpus F [--batch-mb 64] [--reps 10] [--json F]
//
// tables: the seed's Tables 1-4 (brute force, duel, KMP) + device-resident kernel throughput.
// engine: ET Open literals > 32/64/128 B: long literal (duel) matcher vs Aho-Corasick (inputs:
// bench_exact_export, run where the rules and captures are). Options by CLI11 (`bench_exact tables --help`).
#include "gpu/exact/bench_exact_common.h"
#include "gpu/exact/exact_matcher.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

using namespace wm::gpu::exact::bench;

namespace {

enum class Command { Tables, Engine };

// Parses argv into o and cmd; returns -1 to go on, else the exit status (help, or an error already printed).
int parse(int argc, char **argv, Options &o, Command &cmd) {
    CLI::App app{"Exact long-pattern matching: the seed's tables and the engine's routing of long literals"};
    app.option_defaults()->always_capture_default();
    app.require_subcommand(1);
    CLI::App *tables = app.add_subcommand(
        "tables", "the seed's Tables 1-4 (brute force, duel, KMP) + device-resident kernel throughput");
    tables->add_option("--sizes", o.log_sizes, "log2 of the text sizes")
        ->delimiter(',')
        ->check(CLI::Range(10, 31)); // 1 KiB .. 2 GiB: the matcher takes texts below 2^32 bytes
    tables->add_option("--m", o.m, "pattern length")->check(CLI::Range(1u, 65535u)); // ExactMatcher's limit
    tables->add_option("--cpu-reps", o.cpu_reps, "repeats of the CPU peers")
        ->check(CLI::Range(1, std::numeric_limits<int>::max()));
    CLI::App *engine = app.add_subcommand(
        "engine", "ET Open literals > 32/64/128 B: long literal (duel) matcher vs Aho-Corasick");
    engine->footer("(engine inputs: bench_exact_export, run where the rules and captures are)");
    engine->add_option("--literals", o.literals_path, "literal file (bench_exact_export)")
        ->required()
        ->check(CLI::ExistingFile);
    engine->add_option("--corpus", o.corpus_path, "corpus file (bench_exact_export)")
        ->required()
        ->check(CLI::ExistingFile);
    size_t batch_mb = o.batch_bytes >> 20;
    engine->add_option("--batch-mb", batch_mb, "MB of payloads per batch (the corpus repeated)")
        ->check(CLI::Range(1, 4095)); // 32-bit payload offsets
    for (CLI::App *sub : {tables, engine}) {
        sub->add_option("--reps", o.reps, "timed repeats (median)")
            ->check(CLI::Range(1, std::numeric_limits<int>::max()));
        sub->add_option("--json", o.json_path, "results file");
    }
    CLI11_PARSE(app, argc, argv);
    cmd = tables->parsed() ? Command::Tables : Command::Engine;
    o.batch_bytes = batch_mb << 20;
    return -1;
}

} // namespace

int main(int argc, char **argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // keep partial output if a run is cut short
    Options o;
    Command cmd{};
    if (const int rc = parse(argc, argv, o, cmd); rc >= 0) return rc;
    try {
        std::string why;
        if (!wm::gpu::exact::exact_gpu_usable(0, &why)) {
            std::fprintf(stderr, "bench_exact: no usable GPU: %s\n", why.c_str());
            return 1;
        }
        nlohmann::json out;
        const int bad = cmd == Command::Tables ? run_seed_tables(o, out) : run_engine(o, out);
        std::ofstream(o.json_path) << out.dump(2) << '\n';
        std::printf("\nwrote %s%s\n", o.json_path.c_str(), bad ? " -- DISAGREEMENTS FOUND" : "");
        return bad ? 1 : 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_exact: %s\n", e.what());
        return 1;
    }
}
