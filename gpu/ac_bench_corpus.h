// gpu/ac_bench_corpus.h - benchmark inputs (host only): real payloads from a
// capture, saved as a compact corpus file, tiled to any size; literal lists.
#pragma once

#include "gpu/gpu_matcher.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wm::gpu::bench {

struct Corpus {
    std::vector<uint8_t> bytes;
    std::vector<uint32_t> offsets{0}; // count + 1 entries
    uint32_t count() const { return static_cast<uint32_t>(offsets.size() - 1); }
};

// Payloads given as strings, back to back (tests and small models).
inline Corpus corpus_of(const std::vector<std::string> &payloads) {
    Corpus c;
    for (const auto &p : payloads) {
        c.bytes.insert(c.bytes.end(), p.begin(), p.end());
        c.offsets.push_back(static_cast<uint32_t>(c.bytes.size()));
    }
    return c;
}

// Every non-empty TCP/UDP payload of `pcap`, in capture order (plugin decoder).
Corpus extract_payloads(const std::string &pcap);
// File format: "WMC1", uint64 count, uint32 offsets[count + 1], bytes.
void save_corpus(const Corpus &c, const std::string &path);
Corpus load_corpus(const std::string &path);
// Whole copies of `c` back to back until at least `min_bytes` (at most 4 GB - 1,
// the uint32 offset limit), into caller memory `dst` of capacity `cap` bytes;
// fills offsets. Returns the bytes written.
size_t tile_corpus(const Corpus &c, size_t min_bytes, uint8_t *dst, size_t cap, std::vector<uint32_t> &offsets);
// Bytes tile_corpus() will write for `min_bytes`.
size_t tiled_size(const Corpus &c, size_t min_bytes);

// The distinct (bytes, nocase) prefilter literals of Suricata/Snort rule files
// (rules/ import: fast_pattern else longest content), sorted; offset/depth are
// per rule and left out (the benchmark measures the literal set).
std::vector<Literal> import_prefilter_literals(const std::vector<std::string> &rule_files);
void save_literals(const std::vector<Literal> &v, const std::string &path);
// "<nocase 0|1>\t<hex bytes>" per line.
std::vector<Literal> load_literals(const std::string &path);
// The literals that are not one byte repeated (case-folded when nocase):
// drops 1-byte literals and runs such as |00 00 00| or "aaaa" (40 of the ET
// set's 17,918, which give 78% of its Set hits on real traffic: a study of
// what such hits cost, PERFORMANCE.md run 259).
std::vector<Literal> drop_byte_runs(const std::vector<Literal> &all);
// Whether l is one byte repeated (case-folded when nocase): what drop_byte_runs leaves out.
bool is_byte_run(const Literal &l);
// First n of a fixed-seed shuffle (n >= size: all, shuffled): the sweep's subsets.
std::vector<Literal> literal_subset(const std::vector<Literal> &all, size_t n, uint32_t seed);

} // namespace wm::gpu::bench
