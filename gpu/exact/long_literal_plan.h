// gpu/exact/long_literal_plan.h - host parts shared by the CPU and CUDA long
// literal matchers: prepared literals, payload chunks, record -> Match mapping.
#pragma once

#include "gpu/exact/exact_pattern.h"
#include "gpu/exact/long_literal_matcher.h"

#include <vector>

namespace wm::gpu::exact {

struct LiteralSet {
    std::vector<Literal> literals;
    std::vector<PreparedPattern> prepared; // same order (pattern id = index)
    uint32_t max_m = 0;
};
LiteralSet prepare_literals(const std::vector<Literal> &literals);

// Payloads [first, last) of a batch, scanned as one text.
struct PayloadChunk {
    uint32_t first, last;
};
// Consecutive payloads of at most max_bytes together (a larger payload alone).
std::vector<PayloadChunk> plan_chunks(const BatchView &batch, size_t max_bytes);

// The duel scans a chunk's payloads as one text: a batch whose payloads are
// left in place (sources) is packed into `buf` first, and the view of the
// packed copy returned; any other batch is returned as it is.
BatchView packed_batch(const BatchView &batch, std::vector<uint8_t> &buf);

// Maps an occurrence of literal `k` starting at byte `start` of the chunk's
// text to a Match; false when it spans payloads or fails offset/depth.
bool map_occurrence(const LiteralSet &set, const BatchView &batch, const PayloadChunk &c,
                    uint32_t k, uint32_t start, Match *out);

} // namespace wm::gpu::exact
