// gpu/exact/bench_exact_io.h - the two small input files of `bench_exact
// engine`, written by bench_exact_export where the rules and captures are.
#pragma once

#include "gpu/gpu_matcher.h"

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace wm::gpu::exact::bench {

// Literal file: one per line, "nocase offset depth hexbytes".
inline void write_literals(const std::string &path, const std::vector<Literal> &lits) {
    std::ofstream f(path);
    for (const auto &l : lits) {
        f << (l.nocase ? 1 : 0) << ' ' << l.offset << ' ' << l.depth << ' ';
        static const char *hex = "0123456789abcdef";
        for (unsigned char c : l.bytes) f << hex[c >> 4] << hex[c & 15];
        f << '\n';
    }
}

inline std::vector<Literal> read_literals(const std::string &path) {
    std::ifstream f(path);
    if (!f) throw std::runtime_error("cannot read " + path);
    std::vector<Literal> out;
    int nc;
    Literal l;
    std::string hex;
    while (f >> nc >> l.offset >> l.depth >> hex) {
        l.nocase = nc != 0;
        l.bytes.clear();
        for (size_t i = 0; i + 1 < hex.size(); i += 2) l.bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
        out.push_back(l);
    }
    return out;
}

struct Corpus {
    std::string data;
    std::vector<uint32_t> offsets{0};
    BatchView view() const {
        return BatchView{reinterpret_cast<const uint8_t *>(data.data()), offsets.data(), static_cast<uint32_t>(offsets.size() - 1)};
    }
};

// Corpus file: u32 count, u32 lengths[count], bytes.
inline void write_corpus(const std::string &path, const Corpus &c) {
    std::ofstream f(path, std::ios::binary);
    const uint32_t count = static_cast<uint32_t>(c.offsets.size() - 1);
    f.write(reinterpret_cast<const char *>(&count), 4);
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t len = c.offsets[i + 1] - c.offsets[i];
        f.write(reinterpret_cast<const char *>(&len), 4);
    }
    f.write(c.data.data(), static_cast<std::streamsize>(c.data.size()));
}

inline Corpus read_corpus(const std::string &path, size_t min_bytes) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot read " + path);
    uint32_t count = 0;
    f.read(reinterpret_cast<char *>(&count), 4);
    std::vector<uint32_t> lens(count);
    f.read(reinterpret_cast<char *>(lens.data()), count * 4);
    Corpus one;
    for (uint32_t len : lens) one.offsets.push_back(one.offsets.back() + len);
    one.data.resize(one.offsets.back());
    f.read(one.data.data(), static_cast<std::streamsize>(one.data.size()));
    Corpus c = one; // repeat the capture's payloads up to the batch size
    while (c.data.size() < min_bytes && !one.data.empty()) {
        const uint32_t base = static_cast<uint32_t>(c.data.size());
        c.data += one.data;
        for (size_t i = 1; i < one.offsets.size(); ++i) c.offsets.push_back(base + one.offsets[i]);
    }
    return c;
}

} // namespace wm::gpu::exact::bench
