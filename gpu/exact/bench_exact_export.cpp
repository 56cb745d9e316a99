// gpu/exact/bench_exact_export.cpp - bench_exact_export: ET Open rule files +
// a pcap -> the literal and corpus files `bench_exact engine` reads on the GPU
// machine (host only; kept apart so bench_exact needs no libpcap there).
#include "capture/offline_capture.h"
#include "gpu/exact/bench_exact_io.h"
#include "rules/ids_import.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <tuple>

using namespace wm::gpu;
using namespace wm::gpu::exact::bench;

namespace {

struct Options {
    std::string rules_dir, pcap_path, literals_path, corpus_path;
    size_t corpus_max_bytes = 4u << 20;
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
    while (cap.next(&pkt) == WM_SUCCESS && c.data.size() < o.corpus_max_bytes) {
        if (pkt.payload_len == 0) continue;
        c.data.append(reinterpret_cast<const char *>(pkt.payload), pkt.payload_len);
        c.offsets.push_back(static_cast<uint32_t>(c.data.size()));
    }
    write_corpus(o.corpus_path, c);
    std::printf("corpus: %zu payloads, %zu bytes from %s -> %s\n", c.offsets.size() - 1, c.data.size(),
                o.pcap_path.c_str(), o.corpus_path.c_str());
    return 0;
}


int usage(const char *why) {
    std::fprintf(stderr, "bench_exact_export: %s\n"
                 "usage: bench_exact_export --rules-dir DIR --pcap F --literals OUT --corpus OUT [--corpus-mb 4]\n"
                 "  literals: distinct (bytes, nocase, offset, depth) prefilter literals of DIR/*.rules\n"
                 "  corpus:   the first payloads of the pcap, up to --corpus-mb MiB\n", why);
    return 2;
}

} // namespace

int main(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) return usage(("missing value for " + a).c_str());
        const std::string v = argv[++i];
        if (a == "--rules-dir") o.rules_dir = v;
        else if (a == "--pcap") o.pcap_path = v;
        else if (a == "--literals") o.literals_path = v;
        else if (a == "--corpus") o.corpus_path = v;
        else if (a == "--corpus-mb") o.corpus_max_bytes = std::stoul(v) << 20;
        else return usage(("unknown flag " + a).c_str());
    }
    if (o.rules_dir.empty() || o.pcap_path.empty() || o.literals_path.empty() || o.corpus_path.empty())
        return usage("--rules-dir, --pcap, --literals and --corpus are required");
    try {
        return export_inputs(o);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_exact_export: %s\n", e.what());
        return 1;
    }
}
