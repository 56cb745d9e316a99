// gpu/exact/bench_exact_main.cpp - bench_exact: seed tables and engine routing. Every flag is in usage(); bad arguments print it.
#include "gpu/exact/bench_exact_common.h"
#include "gpu/exact/exact_matcher.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace wm::gpu::exact::bench;

static int usage(const char *why) {
    if (why) std::fprintf(stderr, "bench_exact: %s\n", why);
    std::fprintf(stderr,
                 "usage: bench_exact tables [--sizes 20,22,24,26,28,30] [--m 1000] [--reps 10] [--cpu-reps 3] [--json F]\n"
                 "       bench_exact engine --literals F --corpus F [--batch-mb 64] [--reps 10] [--json F]\n"

                 "  tables: the seed's Tables 1-4 (brute force, duel, KMP) + device-resident kernel throughput\n"
                 "  engine: ET Open literals > 32/64/128 B: long literal (duel) matcher vs Aho-Corasick\n"
                 "  (engine inputs: bench_exact_export, run where the rules and captures are)\n");
    return 2;
}

int main(int argc, char **argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // keep partial output if a run is cut short
    if (argc < 2) return usage("missing subcommand");
    const std::string cmd = argv[1];
    Options o;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) return usage(("missing value for " + a).c_str());
        const std::string v = argv[++i];
        if (a == "--sizes") {
            o.log_sizes.clear();
            std::stringstream ss(v);
            for (std::string t; std::getline(ss, t, ',');) o.log_sizes.push_back(std::stoi(t));
        } else if (a == "--m") o.m = std::stoul(v);
        else if (a == "--reps") o.reps = std::stoi(v);
        else if (a == "--cpu-reps") o.cpu_reps = std::stoi(v);
        else if (a == "--json") o.json_path = v;
        else if (a == "--literals") o.literals_path = v;
        else if (a == "--corpus") o.corpus_path = v;
        else if (a == "--batch-mb") o.batch_bytes = std::stoul(v) << 20;
        else return usage(("unknown flag " + a).c_str());
    }
    if (o.reps < 1 || o.cpu_reps < 1 || o.m < 1) return usage("reps and m must be >= 1");
    try {
        std::string why;
        if (!wm::gpu::exact::exact_gpu_usable(0, &why)) {
            std::fprintf(stderr, "bench_exact: no usable GPU: %s\n", why.c_str());
            return 1;
        }
        nlohmann::json out;
        int bad = 0;
        if (cmd == "tables") bad = run_seed_tables(o, out);
        else if (cmd == "engine") {
            if (o.literals_path.empty() || o.corpus_path.empty()) return usage("engine needs --literals and --corpus");
            bad = run_engine(o, out);
        } else return usage(("unknown subcommand " + cmd).c_str());
        std::ofstream(o.json_path) << out.dump(2) << '\n';
        std::printf("\nwrote %s%s\n", o.json_path.c_str(), bad ? " -- DISAGREEMENTS FOUND" : "");
        return bad ? 1 : 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_exact: %s\n", e.what());
        return 1;
    }
}
