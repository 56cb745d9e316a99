// gpu/align/sw_sections.cpp - section planning.
#include "gpu/align/sw_sections.h"

#include "gpu/align/sw_hd.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace wm::align {

std::vector<Section> plan_sections(uint64_t lo, uint64_t hi, uint64_t overlap, uint64_t want, uint64_t min_own) {
    std::vector<Section> out;
    const uint64_t n = hi > lo ? hi - lo : 0;
    if (n > 0) {
        uint64_t count = std::max<uint64_t>(1, std::min<uint64_t>(want, n / std::max<uint64_t>(min_own, 1)));
        const uint64_t own = (n + count - 1) / count;
        for (uint64_t b = lo; b < hi; b += own) {
            const uint64_t e = std::min(hi, b + own);
            out.push_back({b > overlap ? b - overlap : 0, b, e});
        }
    }
    if (out.size() % 2) out.push_back({hi, hi, hi});
    return out;
}

std::vector<Section> payload_sections(const uint32_t *offsets, uint32_t count) {
    std::vector<Section> out;
    for (uint32_t i = 0; i < count; ++i) out.push_back({offsets[i], offsets[i], offsets[i + 1]});
    if (out.size() % 2) out.push_back({offsets[count], offsets[count], offsets[count]});
    return out;
}

std::vector<uint16_t> pad_query(const uint8_t *q, size_t m, size_t rows) {
    if (m > rows) throw std::invalid_argument("pad_query: query of " + std::to_string(m) + " rows exceeds " +
                                              std::to_string(rows));
    std::vector<uint16_t> out(rows, (uint16_t)detail::kQueryPad);
    for (size_t i = 0; i < m; ++i) out[rows - m + i] = q[i];
    return out;
}

} // namespace wm::align
