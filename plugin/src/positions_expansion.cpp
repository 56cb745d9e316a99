#include "positions_expansion.h"

#include "capture/worker_pool.h"
#include "in_order_handoff.h"

#include <algorithm>

namespace wm {

namespace {

// A chunk smaller than this is expanded on the calling thread in one slice;
// slices are at least this big (waking the pool costs ~10 us).
constexpr uint32_t kMinSliceMatches = 16384;
// Slices per expanding thread: threads that finish early take more (a busy
// core, a slice of long payloads with many rules per match), and the sink
// starts on the first slice sooner.
constexpr uint32_t kSlicesPerThread = 4;

const gpu::PayloadMeta *gpu_meta(const wm_payload_meta_t *m) {
    static_assert(sizeof(gpu::PayloadMeta) == sizeof(wm_payload_meta_t), "gpu::PayloadMeta mirrors wm_payload_meta_t");
    return reinterpret_cast<const gpu::PayloadMeta *>(m);
}

// Rule positions i of pattern `pattern` whose scope fits m (all of them
// when m is null), ascending: f(i) for each.
template <typename F>
inline void for_each_fitting(const PatternRules &r, uint32_t pattern, const gpu::PayloadMeta *m, F f) {
    const uint32_t b = r.rule_begin[pattern], e = r.rule_begin[pattern + 1];
    for (uint32_t i = b; i < e; ++i)
        if (!m || gpu::scope_applies(r.scopes, r.scopes.entry[i], *m)) f(i);
}

// One (payload, end)'s rule matches in order (mostly they are: one pattern).
void sort_group(Match *b, Match *e) {
    if (e - b > 1 && !std::is_sorted(b, e, by_rule_then_start)) std::sort(b, e, by_rule_then_start);
}

// Closes the (payload, end) group out[group, n): sorted, then (first: not
// null) only its first matches per (payload, rule) kept. Returns the new n.
size_t close_group(Match *out, size_t group, size_t n, FirstMatchPerRule *first) {
    sort_group(out + group, out + n);
    if (!first) return n;
    size_t kept = group;
    for (size_t i = group; i < n; ++i)
        if (first->first(out[i])) out[kept++] = out[i];
    return kept;
}

// Expands sorted device matches [b, e) of c into out; returns the entries
// written. A (payload, end) group gets its rules from its patterns in pattern
// order, each pattern's ascending: re-sorted only when two patterns' rules
// interleave. first (may be null): only the slice's first match of each
// (payload, rule) is kept.
size_t expand_slice(const gpu::PositionsChunk &c, uint32_t b, uint32_t e, const PatternRules &r,
                    const wm_payload_meta_t *meta, Match *out, FirstMatchPerRule *first) {
    const gpu::PayloadMeta *pm = gpu_meta(meta);
    const bool filter = pm && r.constrained;
    size_t n = 0, group = 0;
    uint32_t payload = ~0u, end = ~0u;
    for (uint32_t k = b; k < e; ++k) {
        const gpu::Match m = c.codec.decode(c.keys[k]);
        if (m.payload != payload || m.end != end) {
            n = close_group(out, group, n, first);
            group = n, payload = m.payload, end = m.end;
        }
        const uint32_t start = m.end - r.len[m.pattern];
        for_each_fitting(r, m.pattern, filter ? &pm[m.payload] : nullptr,
                         [&](uint32_t i) { out[n++] = Match{r.rules[i], m.payload, start, m.end}; });
    }
    return close_group(out, group, n, first);
}

} // namespace

PositionsExpander::PositionsExpander(unsigned threads) : threads_(std::max(threads, 1u)) {}

PositionsExpander::~PositionsExpander() = default;

bool PositionsExpander::expand(const gpu::PositionsChunk &c, const PatternRules &r, const wm_payload_meta_t *meta,
                               const Sink &sink, Wanted wanted) {
    if (c.count == 0) return true;
    if (!c.sorted()) return expand_unsorted(c, r, meta, sink);
    const uint32_t n = c.count;
    const uint32_t slices =
        threads_ > 1 ? std::clamp<uint32_t>(n / kMinSliceMatches, 1, (threads_ - 1) * kSlicesPerThread) : 1;
    // Slice k starts near k * n / slices, moved on to a (payload, end) group's
    // first match: a group is re-sorted in one piece.
    slice_begin_.assign(slices + 1, n);
    slice_begin_[0] = 0;
    for (uint32_t k = 1; k < slices; ++k) {
        uint32_t at = std::max(static_cast<uint32_t>(uint64_t{k} * n / slices), slice_begin_[k - 1]);
        while (at > 0 && at < n && (c.keys[at] >> c.codec.end_shift) == (c.keys[at - 1] >> c.codec.end_shift)) ++at;
        slice_begin_[k] = at;
    }
    if (slice_buf_.size() < slices) slice_buf_.resize(slices);
    slice_n_.assign(slices, 0);
    const bool firsts = wanted == Wanted::FirstPerRule && r.num_rules > 0; // a hint: unknown rules keep all
    if (firsts && firsts_.empty()) firsts_.assign(threads_, FirstMatchPerRule(r.num_rules));
    // Slice k into its own buffer, sized to its most entries (every rule of
    // its patterns) while its keys are in cache; buffers only grow.
    // thread: the expanding thread's index (0: the calling thread, which
    // may itself run a job of another pool).
    auto write = [&](uint32_t k, size_t thread) {
        size_t most = 0;
        for (uint32_t i = slice_begin_[k]; i < slice_begin_[k + 1]; ++i) {
            const uint32_t p = c.codec.decode(c.keys[i]).pattern;
            most += r.rule_begin[p + 1] - r.rule_begin[p];
        }
        std::vector<Match> &b = slice_buf_[k];
        if (b.size() < most) b.resize(most);
        FirstMatchPerRule *first = nullptr;
        if (firsts) {
            first = &firsts_[thread];
            first->new_batch();
        }
        slice_n_[k] = expand_slice(c, slice_begin_[k], slice_begin_[k + 1], r, meta, b.data(), first);
    };
    if (slices == 1) {
        write(0, 0);
        return slice_n_[0] == 0 || sink(slice_buf_[0].data(), slice_n_[0]);
    }
    // The callbacks, serial by contract and the bound of this path, overlap
    // the expansion of what follows; the calling thread only delivers.
    if (!pool_) pool_ = std::make_unique<capture::WorkerPool>(threads_);
    return hand_over_in_order(*pool_, slices, ready_, CallerRole::OnlyHandsOver,
                              [&](size_t k) { write(static_cast<uint32_t>(k), capture::WorkerPool::this_thread()); },
                              [&](size_t k) { return slice_n_[k] == 0 || sink(slice_buf_[k].data(), slice_n_[k]); });
}

// A chunk too wide for sorted keys (rare: its payload, end and pattern fields
// need more than 63 bits) comes back in kernel order: expanded and sorted
// here on the calling thread.
bool PositionsExpander::expand_unsorted(const gpu::PositionsChunk &c, const PatternRules &r,
                                        const wm_payload_meta_t *meta, const Sink &sink) {
    const gpu::PayloadMeta *pm = meta && r.constrained ? gpu_meta(meta) : nullptr;
    unsorted_.clear();
    for (uint32_t k = 0; k < c.count; ++k) {
        gpu::Match m;
        if (!c.get(k, &m)) continue;
        const uint32_t start = m.end - r.len[m.pattern];
        for_each_fitting(r, m.pattern, pm ? &pm[m.payload] : nullptr,
                         [&](uint32_t i) { unsorted_.push_back(Match{r.rules[i], m.payload, start, m.end}); });
    }
    sort_matches(unsorted_);
    return unsorted_.empty() || sink(unsorted_.data(), unsorted_.size());
}

} // namespace wm
