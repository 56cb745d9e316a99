// gpu/exact/bench_exact_export.cpp - bench_exact_export: ET Open rule files +
// a pcap -> the literal and corpus files `bench_exact engine` reads on the GPU
// machine (host only; kept apart so bench_exact needs no libpcap there).
//
//   bench_exact_export --rules-dir DIR --pcap F --literals OUT --corpus OUT [--corpus-mb 4]
#include "capture/offline_capture.h"
#include "gpu/exact/bench_exact_io.h"
#include "rules/ids_import.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <tuple>

using namespace wm::gpu;
using namespace wm::gpu::exact::bench;

namespace {

// Command-line options (CLI11: unknown options and out-of-range values are refused).
struct Options {
    std::string rules_dir, pcap_path, literals_path, corpus_path;
    size_t corpus_mb = 4;
};

int export_inputs(const Options &o) {
    std::vector<std::string> files;
    for (const auto &e : std::filesystem::directory_iterator(o.rules_dir))
        if (e.path().extension() == ".rules") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    const auto imp = wm::rules::import_ids_rules(files);
    std::set<std::tuple<std::string, bool, uint32_t, uint32_t>> seen;
    std::vector<Literal> lits;
    for (const auto &r : imp.rules.rules)
        if (seen.insert({r.pattern, r.nocase, r.offset, r.depth}).second)
            lits.push_back(Literal{r.pattern, r.nocase, r.offset, r.depth});
    write_literals(o.literals_path, lits);
    size_t longest = 0;
    for (const auto &l : lits) longest = std::max(longest, l.bytes.size());
    std::printf("literals: %zu rules imported -> %zu distinct (bytes, nocase, offset, depth), longest %zu -> %s\n",
                imp.rules.rules.size(), lits.size(), longest, o.literals_path.c_str());
    Corpus c;
    wm::capture::OfflineCapture cap(o.pcap_path);
    wm_packet_t pkt{};
    pkt.struct_size = sizeof pkt;
    while (cap.next(&pkt) == WM_SUCCESS && c.data.size() < (o.corpus_mb << 20)) {
        if (pkt.payload_len == 0) continue;
        c.data.append(reinterpret_cast<const char *>(pkt.payload), pkt.payload_len);
        c.offsets.push_back(static_cast<uint32_t>(c.data.size()));
    }
    write_corpus(o.corpus_path, c);
    std::printf("corpus: %zu payloads, %zu bytes from %s -> %s\n", c.offsets.size() - 1, c.data.size(),
                o.pcap_path.c_str(), o.corpus_path.c_str());
    return 0;
}


// Parses argv into o; returns -1 to go on, else the exit status (help, or an error already printed).
int parse(int argc, char **argv, Options &o) {
    CLI::App app{"ET Open rule files + a pcap -> the literal and corpus files `bench_exact engine` reads"};
    app.option_defaults()->always_capture_default();
    app.add_option("--rules-dir", o.rules_dir, "rule files (DIR/*.rules)")->required()->check(CLI::ExistingDirectory);
    app.add_option("--pcap", o.pcap_path, "capture")->required()->check(CLI::ExistingFile);
    app.add_option("--literals", o.literals_path, "out: distinct (bytes, nocase, offset, depth) prefilter literals")
        ->required();
    app.add_option("--corpus", o.corpus_path, "out: the first payloads of the pcap, up to --corpus-mb MiB")
        ->required();
    app.add_option("--corpus-mb", o.corpus_mb, "corpus size in MiB")->check(CLI::Range(1, 4095)); // 32-bit offsets
    CLI11_PARSE(app, argc, argv);
    return -1;
}

} // namespace

int main(int argc, char **argv) {
    Options o;
    if (const int rc = parse(argc, argv, o); rc >= 0) return rc;
    try {
        return export_inputs(o);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_exact_export: %s\n", e.what());
        return 1;
    }
}
