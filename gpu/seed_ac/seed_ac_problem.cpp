// gpu/seed_ac/seed_ac_problem.cpp - random inputs, packing, naive counting.
#include "gpu/seed_ac/seed_ac_problem.h"

#include "gpu/seed_ac/seed_ac_hd.h"
#include "gpu/seed_ac/seed_ac_walk.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace wm::seed_ac {

std::vector<Pattern> random_patterns(int count, int length, int alphabet, uint64_t seed) {
    std::vector<Pattern> out(count, Pattern(length));
    for (int k = 0; k < count; ++k)
        for (int j = 0; j < length; ++j)
            out[k][j] = static_cast<uint8_t>(
                random_char(seed, static_cast<uint64_t>(k) * length + j, alphabet));
    return out;
}

std::vector<uint8_t> random_text(uint64_t length, int alphabet, uint64_t seed) {
    std::vector<uint8_t> text(length);
    const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
    const uint64_t chunk = (length + workers - 1) / workers;
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            const uint64_t b = std::min(length, w * chunk), e = std::min(length, b + chunk);
            for (uint64_t i = b; i < e; ++i)
                text[i] = static_cast<uint8_t>(random_char(seed, i, alphabet));
        });
    for (auto &t : pool) t.join();
    return text;
}

std::vector<uint32_t> pack_text(const std::vector<uint8_t> &text, int bits, uint64_t min_words) {
    if (bits != 1 && bits != 2 && bits != 4 && bits != 8)
        throw std::invalid_argument("packed width must be 1, 2, 4 or 8 bits");
    const uint32_t per = 32u / bits;
    std::vector<uint32_t> words(std::max<uint64_t>(min_words, words_for(text.size(), bits)), 0u);
    for (uint64_t i = 0; i < text.size(); ++i) {
        if (text[i] >> bits) throw std::invalid_argument("character does not fit the packed width");
        words[i / per] |= static_cast<uint32_t>(text[i]) << ((i % per) * bits);
    }
    return words;
}

std::vector<uint64_t> naive_counts(const std::vector<uint8_t> &text,
                                   const std::vector<Pattern> &patterns) {
    std::vector<uint64_t> out(patterns.size(), 0);
    for (size_t k = 0; k < patterns.size(); ++k) {
        const Pattern &p = patterns[k];
        if (p.empty() || p.size() > text.size()) continue;
        for (size_t i = 0; i + p.size() <= text.size(); ++i)
            out[k] += std::memcmp(&text[i], p.data(), p.size()) == 0;
    }
    return out;
}

} // namespace wm::seed_ac
