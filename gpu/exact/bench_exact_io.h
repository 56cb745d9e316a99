// gpu/exact/bench_exact_io.h - the two small input files of `bench_exact
// engine`, written by bench_exact_export where the rules and captures are.
#pragma once

#include "gpu/gpu_matcher.h"

#include <cctype>
#include <cstdint>
#include <fstream>
#include <sstream>
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

// Every line must be whole: a bad one fails with path:line, not a shorter set.
inline std::vector<Literal> read_literals(const std::string &path) {
    std::ifstream f(path);
    if (!f) throw std::runtime_error("cannot read " + path);
    std::vector<Literal> out;
    std::string line;
    for (size_t no = 1; std::getline(f, line); ++no) {
        if (line.empty()) continue;
        std::istringstream in(line);
        int nc = 0;
        Literal l;
        std::string hex, extra;
        const auto bad = [&](const std::string &why) {
            return std::runtime_error(path + ":" + std::to_string(no) + ": " + why + " (want: nocase offset depth hex)");
        };
        if (!(in >> nc >> l.offset >> l.depth >> hex) || (in >> extra)) throw bad("malformed line");
        if (hex.empty() || hex.size() % 2) throw bad("odd or empty hex bytes");
        for (size_t i = 0; i < hex.size(); i += 2) {
            const auto nibble = [&](char c) {
                if (!std::isxdigit(static_cast<unsigned char>(c))) throw bad("non-hex digit '" + std::string(1, c) + "'");
                return std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) - 'a' + 10);
            };
            l.bytes += static_cast<char>(nibble(hex[i]) << 4 | nibble(hex[i + 1]));
        }
        l.nocase = nc != 0;
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
    const auto cut = [&](const char *what) { return std::runtime_error(path + ": corpus cut short in its " + what); };
    uint32_t count = 0;
    if (!f.read(reinterpret_cast<char *>(&count), 4)) throw cut("payload count");
    std::vector<uint32_t> lens(count);
    if (!f.read(reinterpret_cast<char *>(lens.data()), std::streamsize{count} * 4)) throw cut("payload lengths");
    Corpus one;
    for (uint32_t len : lens) {
        if (one.offsets.back() + uint64_t{len} > UINT32_MAX) throw std::runtime_error(path + ": corpus of 4 GB or more");
        one.offsets.push_back(one.offsets.back() + len);
    }
    one.data.resize(one.offsets.back());
    if (!f.read(one.data.data(), static_cast<std::streamsize>(one.data.size()))) throw cut("payload bytes");
    Corpus c = one; // repeat the capture's payloads up to the batch size
    while (c.data.size() < min_bytes && !one.data.empty()) {
        const uint32_t base = static_cast<uint32_t>(c.data.size());
        c.data += one.data;
        for (size_t i = 1; i < one.offsets.size(); ++i) c.offsets.push_back(base + one.offsets[i]);
    }
    return c;
}

} // namespace wm::gpu::exact::bench
