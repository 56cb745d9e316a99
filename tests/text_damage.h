// tests/text_damage.h - text files with random damage, by seed, for tests
// that hold a parser to its oracle (or to its invariants) on bad input: a cut
// range, inserted punctuation of the format, a line repeated or moved, a
// line's indent changed. One kind of damage, two in a third of the seeds.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>

namespace wm::test {

inline std::string randomly_damaged(std::string text, uint32_t seed, const std::string &punctuation) {
    std::mt19937 rng(seed);
    auto pick = [&](size_t n) { return size_t(rng() % std::max<size_t>(n, 1)); };
    auto line_at = [&](size_t at) { // [begin, end) of the line holding at, its newline included
        const size_t b = text.rfind('\n', at == 0 ? 0 : at - 1), e = text.find('\n', at);
        return std::pair<size_t, size_t>{b == std::string::npos || at == 0 ? 0 : b + 1,
                                         e == std::string::npos ? text.size() : e + 1};
    };
    for (int k = 0, n = 1 + int(pick(3) == 0); k < n && !text.empty(); ++k) {
        const size_t at = pick(text.size());
        const auto [b, e] = line_at(at);
        switch (pick(5)) {
        case 0:
            text.erase(at, 1 + pick(40));
            break;
        case 1:
            for (size_t m = 1 + pick(3); m > 0; --m) text.insert(at, 1, punctuation[pick(punctuation.size())]);
            break;
        case 2:
            text.insert(b, text.substr(b, e - b));
            break;
        case 3: {
            const std::string line = text.substr(b, e - b);
            text.erase(b, e - b);
            text.insert(line_at(pick(text.size())).first, line);
            break;
        }
        default:
            if (pick(2)) text.insert(b, std::string(1 + pick(4), ' '));
            else if (text.compare(b, 2, "  ") == 0) text.erase(b, 2);
        }
    }
    return text;
}

} // namespace wm::test
