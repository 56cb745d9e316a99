#include "engine.h"

#include <algorithm>
#include <cstring>

namespace wm {

BatchView packed_view(const BatchView &batch, std::vector<uint8_t> &buf) {
    if (!batch.sources || batch.count == 0) return batch;
    buf.resize(batch.offsets[batch.count]);
    for (size_t i = 0; i < batch.count; ++i)
        if (const uint32_t n = batch.payload_len(i)) std::memcpy(buf.data() + batch.offsets[i], batch.payload(i), n);
    BatchView v = batch;
    v.data = buf.data();
    v.sources = nullptr;
    return v;
}

namespace {
bool canonical_less(const Match &a, const Match &b) {
    if (a.end != b.end)
        return a.end < b.end;
    if (a.rule != b.rule)
        return a.rule < b.rule;
    return a.start < b.start;
}
// How far m is from the (payload, end, rule, start) order, in one pass
// without a branch per field: the check runs over every batch's matches
// (hundreds of millions a GB in positions mode), and the field compares of a
// lexicographic comparator mispredict whenever a field ties.
enum class Order { Sorted, TiesOnly, Unsorted }; // TiesOnly: sorted by (payload, end)
Order order_of(const std::vector<Match> &m) {
    const size_t n = m.size();
    bool ties = false;
    for (size_t b = 1; b < n; b += 4096) {
        const size_t e = std::min(n, b + 4096);
        bool bad = false;
        for (size_t i = b; i < e; ++i) {
            const Match &x = m[i - 1], &y = m[i];
            const uint64_t x1 = uint64_t{x.payload} << 32 | x.end, y1 = uint64_t{y.payload} << 32 | y.end;
            const uint64_t x2 = uint64_t{x.rule} << 32 | x.start, y2 = uint64_t{y.rule} << 32 | y.start;
            bad |= y1 < x1;
            ties |= (y1 == x1) & (y2 < x2);
        }
        if (bad) return Order::Unsorted;
    }
    return ties ? Order::TiesOnly : Order::Sorted;
}

} // namespace

// Batches carry millions of matches (0.2 per payload byte with ET Open), so
// the payload key is bucketed in O(n) and only each payload's few matches
// are compared: a full comparison sort was the plugin path's bottleneck.
void sort_matches(std::vector<Match> &m) {
    // Already in order: the GPU engine's output (the device sorts by
    // (payload, pattern) or (payload, end, pattern), the engine keeps it
    // through the rule expansion) when no approx/align rules add matches.
    // One O(n) pass, no copy.
    const Order order = order_of(m);
    if (order == Order::Sorted)
        return;
    // Hyperscan reports a payload's matches by end offset, so a run of its
    // matches only needs each end's few rules put in order.
    if (order == Order::TiesOnly) {
        for (size_t i = 0, j; i < m.size(); i = j) {
            for (j = i + 1; j < m.size() && m[j].payload == m[i].payload && m[j].end == m[i].end; ++j) {
            }
            if (j - i > 1)
                std::sort(m.begin() + i, m.begin() + j, canonical_less);
        }
        return;
    }
    if (m.size() < 4096) {
        std::sort(m.begin(), m.end(), [](const Match &a, const Match &b) {
            return a.payload != b.payload ? a.payload < b.payload : canonical_less(a, b);
        });
        return;
    }
    uint32_t payloads = 0;
    for (const auto &x : m)
        payloads = std::max(payloads, x.payload + 1);
    std::vector<uint32_t> start(payloads + 1, 0);
    for (const auto &x : m)
        start[x.payload + 1]++;
    for (uint32_t p = 0; p < payloads; ++p)
        start[p + 1] += start[p];
    std::vector<Match> sorted(m.size());
    std::vector<uint32_t> next(start.begin(), start.end() - 1);
    for (const auto &x : m)
        sorted[next[x.payload]++] = x;
    for (uint32_t p = 0; p < payloads; ++p)
        if (start[p + 1] - start[p] > 1)
            std::sort(sorted.begin() + start[p], sorted.begin() + start[p + 1], canonical_less);
    m.swap(sorted);
}

void to_set(std::vector<Match> &m) {
    for (auto &x : m)
        x.start = x.end = 0;
    sort_matches(m);
    m.erase(std::unique(m.begin(), m.end()), m.end());
}

} // namespace wm
