// gpu/seed_ac/seed_ac_cpu_walk.cpp - host walks sharing the kernels' per-thread code.
#include "gpu/seed_ac/seed_ac_cpu_walk.h"

#include "gpu/seed_ac/seed_ac_walk.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace wm::seed_ac {
namespace {

template <int kBits>
void walk_all(const Automaton &a, const uint32_t *words, uint64_t length, const WalkOptions &opt,
              std::vector<uint64_t> &visits) {
    const auto src = [words](uint64_t w) { return words[w]; };
    const int32_t first_leaf = opt.leaves_only ? a.first_leaf : 0;
    const auto count = [&visits, first_leaf](int32_t s) {
        if (s >= first_leaf) ++visits[s];
    };
    for (uint64_t b = 0; b < length; b += opt.tile)
        walk_tile<kBits>(a.next.data(), a.alphabet, src, b,
                         std::min(length, b + opt.tile + opt.overlap), count);
}

} // namespace

std::vector<uint64_t> cpu_walk(const Automaton &a, const uint32_t *words, int bits, uint64_t length,
                               const WalkOptions &opt) {
    if (opt.tile == 0 || opt.tile % 32 != 0) throw std::invalid_argument("tile must be a multiple of 32");
    if (opt.leaves_only && a.first_leaf < 0)
        throw std::invalid_argument("leaf-only counting needs equal-length patterns in breadth-first order");
    std::vector<uint64_t> visits(a.num_states, 0);
    switch (bits) {
    case 1: walk_all<1>(a, words, length, opt, visits); break;
    case 2: walk_all<2>(a, words, length, opt, visits); break;
    case 4: walk_all<4>(a, words, length, opt, visits); break;
    case 8: walk_all<8>(a, words, length, opt, visits); break;
    default: throw std::invalid_argument("bits must be 1, 2, 4 or 8");
    }
    return visits;
}

std::vector<uint64_t> cpu_peer_visits(const Automaton &a, const uint8_t *text, uint64_t length,
                                      unsigned threads) {
    if (a.first_leaf < 0 || a.pattern_length <= 0)
        throw std::invalid_argument("CPU peer needs equal-length patterns in breadth-first order");
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    // Word-aligned chunks of at least 1 MiB characters, a few per thread for balance.
    const uint64_t want = std::max<uint64_t>(1u << 20, length / (4ull * threads) + 1);
    const uint64_t chunk = (want + 31) / 32 * 32;
    const uint64_t num_chunks = (length + chunk - 1) / chunk;
    const uint64_t overlap = static_cast<uint64_t>(a.pattern_length) - 1;
    const int32_t first_leaf = a.first_leaf;
    std::vector<std::vector<uint64_t>> local(threads);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            std::vector<uint64_t> &v = local[t];
            v.assign(a.num_states - first_leaf, 0);
            uint64_t *leaf = v.data() - first_leaf;
            // The byte text read as the bits = 8 word layout, never past `length`.
            const auto src = [text, length](uint64_t w) {
                uint32_t x = 0;
                if (4 * w + 4 <= length) {
                    std::memcpy(&x, text + 4 * w, 4);
                    return x;
                }
                for (uint64_t i = 4 * w; i < length; ++i) x |= uint32_t(text[i]) << (8 * (i - 4 * w));
                return x;
            };
            const auto count = [leaf, first_leaf](int32_t s) {
                if (s >= first_leaf) ++leaf[s];
            };
            for (uint64_t c = t; c < num_chunks; c += threads) {
                const uint64_t b = c * chunk;
                walk_tile<8>(a.next.data(), a.alphabet, src, b, std::min(length, b + chunk + overlap),
                             count);
            }
        });
    for (auto &th : pool) th.join();
    std::vector<uint64_t> visits(a.num_states, 0);
    for (const auto &v : local)
        for (size_t k = 0; k < v.size(); ++k) visits[first_leaf + k] += v[k];
    return visits;
}

} // namespace wm::seed_ac
