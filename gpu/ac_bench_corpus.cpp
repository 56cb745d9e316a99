// gpu/ac_bench_corpus.cpp - see ac_bench_corpus.h.
#include "gpu/ac_bench_corpus.h"
#include "gpu/ac_walk.cuh"

#include "capture/offline_capture.h"
#include "rules/ids_import.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <stdexcept>

namespace wm::gpu::bench {

Corpus extract_payloads(const std::string &pcap) {
    capture::OfflineCapture cap(pcap);
    Corpus c;
    wm_packet_t pkt{}; // what wm_packet_init does (that lives in the C API library)
    pkt.struct_size = sizeof pkt;
    while (cap.next(&pkt) == WM_SUCCESS) {
        if (pkt.payload_len == 0) continue;
        c.bytes.insert(c.bytes.end(), pkt.payload, pkt.payload + pkt.payload_len);
        c.offsets.push_back(static_cast<uint32_t>(c.bytes.size()));
    }
    return c;
}

void save_corpus(const Corpus &c, const std::string &path) {
    std::ofstream f(path, std::ios::binary);
    const uint64_t n = c.count();
    f.write("WMC1", 4);
    f.write(reinterpret_cast<const char *>(&n), 8);
    f.write(reinterpret_cast<const char *>(c.offsets.data()), c.offsets.size() * 4);
    f.write(reinterpret_cast<const char *>(c.bytes.data()), c.bytes.size());
    if (!f) throw std::runtime_error("cannot write " + path);
}

Corpus load_corpus(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    char magic[4];
    uint64_t n = 0;
    if (!f.read(magic, 4) || std::memcmp(magic, "WMC1", 4) != 0 || !f.read(reinterpret_cast<char *>(&n), 8))
        throw std::runtime_error(path + ": not a WMC1 corpus");
    Corpus c;
    c.offsets.resize(n + 1);
    f.read(reinterpret_cast<char *>(c.offsets.data()), (n + 1) * 4);
    c.bytes.resize(c.offsets.back());
    f.read(reinterpret_cast<char *>(c.bytes.data()), c.bytes.size());
    if (!f) throw std::runtime_error(path + ": truncated corpus");
    return c;
}

size_t tiled_size(const Corpus &c, size_t min_bytes) {
    const size_t one = c.bytes.size();
    if (one == 0) return 0;
    size_t copies = (min_bytes + one - 1) / one;
    while (copies > 1 && copies * one > UINT32_MAX) --copies;
    return copies * one;
}

size_t tile_corpus(const Corpus &c, size_t min_bytes, uint8_t *dst, size_t cap, std::vector<uint32_t> &offsets) {
    const size_t total = tiled_size(c, min_bytes);
    if (total > cap) throw std::runtime_error("tile_corpus: buffer too small");
    offsets.assign(1, 0);
    for (size_t at = 0; at < total; at += c.bytes.size()) {
        std::memcpy(dst + at, c.bytes.data(), c.bytes.size());
        for (uint32_t i = 1; i <= c.count(); ++i) offsets.push_back(static_cast<uint32_t>(at + c.offsets[i]));
    }
    return total;
}

std::vector<Literal> import_prefilter_literals(const std::vector<std::string> &rule_files) {
    const auto r = rules::import_ids_rules(rule_files);
    std::set<std::pair<std::string, bool>> distinct;
    for (const auto &rule : r.rules.rules) distinct.emplace(rule.pattern, rule.nocase);
    std::vector<Literal> v;
    for (const auto &d : distinct) v.push_back(Literal{d.first, d.second});
    return v;
}

void save_literals(const std::vector<Literal> &v, const std::string &path) {
    std::ofstream f(path);
    static const char *hex = "0123456789abcdef";
    for (const auto &l : v) {
        f << (l.nocase ? '1' : '0') << '\t';
        for (unsigned char c : l.bytes) f << hex[c >> 4] << hex[c & 15];
        f << '\n';
    }
    if (!f) throw std::runtime_error("cannot write " + path);
}

std::vector<Literal> load_literals(const std::string &path) {
    std::ifstream f(path);
    if (!f) throw std::runtime_error("cannot open " + path);
    std::vector<Literal> v;
    std::string line;
    while (std::getline(f, line)) {
        const auto tab = line.find('\t');
        if (tab == std::string::npos) continue;
        Literal l;
        l.nocase = line[0] == '1';
        for (size_t i = tab + 1; i + 1 < line.size(); i += 2)
            l.bytes.push_back(static_cast<char>(std::stoi(line.substr(i, 2), nullptr, 16)));
        if (!l.bytes.empty()) v.push_back(l);
    }
    return v;
}

bool is_byte_run(const Literal &l) {
    auto byte = [&](char c) { const auto u = static_cast<uint8_t>(c); return l.nocase ? fold_ascii(u) : u; };
    bool run = !l.bytes.empty();
    for (char c : l.bytes) run = run && byte(c) == byte(l.bytes[0]);
    return run;
}

std::vector<Literal> drop_byte_runs(const std::vector<Literal> &all) {
    std::vector<Literal> kept;
    for (const Literal &l : all)
        if (!is_byte_run(l)) kept.push_back(l);
    return kept;
}

std::vector<Literal> literal_subset(const std::vector<Literal> &all, size_t n, uint32_t seed) {
    std::vector<Literal> v = all;
    std::shuffle(v.begin(), v.end(), std::mt19937(seed));
    v.resize(std::min(n, v.size()));
    return v;
}

} // namespace wm::gpu::bench
