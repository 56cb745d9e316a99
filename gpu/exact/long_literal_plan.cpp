// gpu/exact/long_literal_plan.cpp - host parts of the long literal matcher
// and its CPU implementation.
#include "gpu/exact/long_literal_plan.h"

#include "gpu/exact/exact_cpu.h"

#include <algorithm>
#include <cstring>

namespace wm::gpu::exact {

LiteralSet prepare_literals(const std::vector<Literal> &literals) {
    LiteralSet s;
    s.literals = literals;
    s.prepared.reserve(literals.size());
    for (const auto &l : literals) {
        s.prepared.push_back(prepare_pattern(l.bytes, l.nocase));
        s.max_m = std::max(s.max_m, s.prepared.back().m());
    }
    return s;
}

std::vector<PayloadChunk> plan_chunks(const BatchView &b, size_t max_bytes) {
    std::vector<PayloadChunk> out;
    uint32_t first = 0;
    while (first < b.count) {
        uint32_t last = first + 1;
        while (last < b.count && b.offsets[last + 1] - b.offsets[first] <= max_bytes) ++last;
        out.push_back(PayloadChunk{first, last});
        first = last;
    }
    return out;
}

bool map_occurrence(const LiteralSet &set, const BatchView &b, const PayloadChunk &c, uint32_t k,
                    uint32_t start, Match *out) {
    const uint64_t abs = uint64_t{b.offsets[c.first]} + start;
    const uint32_t *lo = b.offsets + c.first, *hi = b.offsets + c.last + 1;
    const uint32_t payload = static_cast<uint32_t>(std::upper_bound(lo, hi, abs) - b.offsets) - 1;
    const uint32_t m = set.prepared[k].m();
    if (abs + m > b.offsets[payload + 1]) return false; // spans two payloads
    const uint64_t s = abs - b.offsets[payload], e = s + m;
    const Literal &l = set.literals[k];
    if (s < l.offset || (l.depth != 0 && e > uint64_t{l.offset} + l.depth)) return false;
    *out = Match{k, payload, static_cast<uint32_t>(e)};
    return true;
}

BatchView packed_batch(const BatchView &batch, std::vector<uint8_t> &buf) {
    if (!batch.sources || batch.count == 0) return batch;
    buf.resize(batch.offsets[batch.count]);
    for (uint32_t i = 0; i < batch.count; ++i)
        if (const uint32_t n = batch.offsets[i + 1] - batch.offsets[i])
            std::memcpy(buf.data() + batch.offsets[i], batch.data + batch.sources[i], n);
    return BatchView{buf.data(), batch.offsets, batch.count};
}

} // namespace wm::gpu::exact

namespace wm::gpu {

void long_literal_scan_cpu(const std::vector<Literal> &literals, const BatchView &in_batch,
                           std::vector<Match> &out) {
    out.clear();
    std::vector<uint8_t> packed;
    const BatchView batch = exact::packed_batch(in_batch, packed);
    const exact::LiteralSet set = exact::prepare_literals(literals);
    for (const auto &c : exact::plan_chunks(batch, size_t{64} << 20)) {
        const uint8_t *text = batch.data + batch.offsets[c.first];
        const uint64_t n = batch.offsets[c.last] - batch.offsets[c.first];
        for (uint32_t k = 0; k < set.prepared.size(); ++k)
            for (uint32_t s : exact::duel_search_cpu(text, n, set.prepared[k].view())) {
                Match mt;
                if (exact::map_occurrence(set, batch, c, k, s, &mt)) out.push_back(mt);
            }
    }
}

} // namespace wm::gpu
