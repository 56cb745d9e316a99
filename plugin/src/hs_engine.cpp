#include "hs_engine.h"

#include "in_order_handoff.h"
#include "status_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wm {

HyperscanEngine::HyperscanEngine(const CompiledRuleSet &rs, unsigned threads)
    : rs_(rs), threads_(std::clamp(threads, 1u, 256u)) {
    for (const auto &r : rs.rules()) {
        len_.push_back(static_cast<uint32_t>(r.pattern.size()));
        offset_.push_back(r.offset);
        depth_.push_back(r.depth);
    }
    lanes_.resize(threads_);
    if (!rs.hs_database())
        return;
    for (size_t t = 0; t < lanes_.size(); ++t) {
        hs_scratch_t *s = nullptr;
        const hs_error_t rc = t == 0 ? hs_alloc_scratch(rs.hs_database(), &s)
                                     : hs_clone_scratch(lanes_[0].scratch.get(), &s);
        if (rc != HS_SUCCESS)
            throw StatusError(rc == HS_NOMEM ? WM_NOMEM : WM_ENGINE_ERROR,
                              fmt::format("{} failed for thread {} (error {})",
                                          t == 0 ? "hs_alloc_scratch" : "hs_clone_scratch", t, rc));
        lanes_[t].scratch.reset(s);
    }
}

HyperscanEngine::~HyperscanEngine() = default;

namespace {
struct CallbackCtx {
    const uint32_t *len, *offset, *depth;
    std::vector<Match> *out;
    uint32_t payload;
    // Set and first-per-rule modes: seen[rule] == stamp when the rule
    // already matched this payload, so repeats are dropped in O(1) without
    // sorting; where[rule] is then its entry in out (first per rule: an
    // earlier match replaces it, whatever order Hyperscan reports in).
    uint64_t *seen;
    uint32_t *where;
    uint64_t stamp;
};

int on_match(unsigned id, unsigned long long, unsigned long long to, unsigned, void *p) {
    auto *c = static_cast<CallbackCtx *>(p);
    uint32_t end = static_cast<uint32_t>(to);
    uint32_t start = end - c->len[id];
    if (start < c->offset[id])
        return 0;
    if (c->depth[id] != 0 && end > c->offset[id] + c->depth[id])
        return 0;
    if (!c->seen) { // every match
        c->out->push_back(Match{id, c->payload, start, end});
        return 0;
    }
    if (c->seen[id] != c->stamp) {
        c->seen[id] = c->stamp;
        if (c->where)
            c->where[id] = static_cast<uint32_t>(c->out->size());
        c->out->push_back(c->where ? Match{id, c->payload, start, end} : Match{id, c->payload, 0, 0});
        return 0;
    }
    if (c->where) { // a repeat: the earlier of the two stays
        Match &kept = (*c->out)[c->where[id]];
        if (end < kept.end || (end == kept.end && start < kept.start))
            kept.start = start, kept.end = end;
    }
    return 0;
}
} // namespace

void HyperscanEngine::scan_run(Lane &lane, const BatchView &batch, size_t begin, size_t end, Keep keep,
                               std::vector<Match> &out) {
    const bool dedupe = keep != Keep::Every;
    if (dedupe && lane.seen.size() != len_.size())
        lane.seen.assign(len_.size(), 0);
    if (keep == Keep::FirstPerRule && lane.where.size() != len_.size())
        lane.where.assign(len_.size(), 0);
    CallbackCtx ctx{len_.data(), offset_.data(), depth_.data(), &out, 0, dedupe ? lane.seen.data() : nullptr,
                    keep == Keep::FirstPerRule ? lane.where.data() : nullptr, 0};
    for (size_t i = begin; i < end; ++i) {
        const uint32_t n = batch.payload_len(i);
        if (n == 0)
            continue;
        ctx.payload = static_cast<uint32_t>(i);
        ctx.stamp = ++lane.stamp;
        const hs_error_t rc = hs_scan(rs_.hs_database(), reinterpret_cast<const char *>(batch.payload(i)), n, 0,
                                      lane.scratch.get(), on_match, &ctx);
        if (rc != HS_SUCCESS)
            throw StatusError(WM_ENGINE_ERROR, fmt::format("hs_scan failed on payload {} (error {})", i, rc));
    }
}

void HyperscanEngine::scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) {
    if (!lanes_[0].scratch || batch.count == 0)
        return;
    const Keep keep = mode == WM_OUTPUT_SET ? Keep::Set : Keep::Every;
    const std::vector<size_t> cut = cut_runs(batch, size_t{threads_} * kRunsPerThread);
    const size_t runs = cut.size() - 1;
    if (runs <= 1) { // straight into out when it is empty (the scanner's case)
        if (run_out_.empty())
            run_out_.resize(1);
        std::vector<Match> &mine = out.empty() ? out : run_out_[0];
        mine.clear();
        scan_run(lanes_[0], batch, 0, batch.count, keep, mine);
        sort_matches(mine);
        if (&mine != &out)
            out.insert(out.end(), mine.begin(), mine.end());
        return;
    }
    if (!pool_)
        pool_ = std::make_unique<capture::WorkerPool>(threads_);
    if (run_out_.size() < runs)
        run_out_.resize(runs);
    // Each run is put in the canonical order on its own thread: the runs
    // hold increasing payloads, so the joined matches are in order too and
    // the scanner's sort_matches() only checks that. (Positions on ET and
    // merged-zeek: ~4 M matches, whose sort on the scanning thread took as
    // long as the scan itself on two threads.)
    pool_->run(runs, [&](size_t k) {
        run_out_[k].clear();
        scan_run(lanes_[capture::WorkerPool::this_thread()], batch, cut[k], cut[k + 1], keep, run_out_[k]);
        sort_matches(run_out_[k]);
    });
    size_t total = out.size();
    for (size_t k = 0; k < runs; ++k) total += run_out_[k].size();
    out.reserve(total);
    for (size_t k = 0; k < runs; ++k) out.insert(out.end(), run_out_[k].begin(), run_out_[k].end());
}

// Run k: the payloads starting in its share [k, k + 1) * bytes / runs of the
// batch's bytes; at most max_runs runs of kMinRunBytes, one per payload.
std::vector<size_t> HyperscanEngine::cut_runs(const BatchView &batch, size_t max_runs) const {
    const uint32_t first = batch.offsets[0], bytes = batch.offsets[batch.count] - first;
    const size_t runs = std::max<size_t>(1, std::min<size_t>({max_runs, bytes / kMinRunBytes, batch.count}));
    std::vector<size_t> cut(runs + 1, batch.count);
    cut[0] = 0;
    for (size_t k = 1; k < runs; ++k) {
        const uint32_t at = first + static_cast<uint32_t>(uint64_t{bytes} * k / runs);
        cut[k] = static_cast<size_t>(std::lower_bound(batch.offsets, batch.offsets + batch.count, at) - batch.offsets);
    }
    return cut;
}

bool HyperscanEngine::scan_positions(const BatchView &batch, const Sink &sink, Wanted wanted) {
    if (!lanes_[0].scratch || batch.count == 0)
        return true;
    // Run k's matches in order, outside the rules' scopes dropped.
    auto scan_one = [&](Lane &lane, size_t begin, size_t end, std::vector<Match> &out) {
        out.clear();
        scan_run(lane, batch, begin, end, wanted == Wanted::FirstPerRule ? Keep::FirstPerRule : Keep::Every, out);
        sort_matches(out);
        if (batch.meta && rs_.constrained())
            out.erase(std::remove_if(out.begin(), out.end(),
                                     [&](const Match &m) { return !rs_.applies(m.rule, batch.meta[m.payload]); }),
                      out.end());
    };
    const std::vector<size_t> cut = cut_runs(batch, size_t{threads_} * kRunsPerThread);
    const size_t runs = cut.size() - 1;
    if (run_out_.size() < runs)
        run_out_.resize(runs);
    if (runs == 1 || threads_ == 1) {
        scan_one(lanes_[0], 0, batch.count, run_out_[0]);
        return run_out_[0].empty() || sink(run_out_[0].data(), run_out_[0].size());
    }
    if (!pool_)
        pool_ = std::make_unique<capture::WorkerPool>(threads_);
    return hand_over_in_order(
        *pool_, runs, run_ready_, CallerRole::MakesWhileWaiting,
        [&](size_t k) { scan_one(lanes_[capture::WorkerPool::this_thread()], cut[k], cut[k + 1], run_out_[k]); },
        [&](size_t k) { return run_out_[k].empty() || sink(run_out_[k].data(), run_out_[k].size()); });
}

} // namespace wm
