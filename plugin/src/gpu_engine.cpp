#include "gpu_engine.h"

#include "gpu/gpu_matcher.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

namespace wm {

GpuPatterns gpu_patterns(const CompiledRuleSet &rs) {
    GpuPatterns g;
    std::map<std::tuple<std::string, bool, uint32_t, uint32_t>, uint32_t> index;
    std::vector<uint32_t> rule_index; // per literal rule (scope entry)
    for (size_t i = 0; i < rs.rules().size(); ++i) {
        const auto &r = rs.rules()[i];
        if (!CompiledRuleSet::is_literal(r))
            continue; // approximate and align rules have their own engines
        const auto [it, fresh] = index.try_emplace({r.pattern, r.nocase, r.offset, r.depth},
                                                   static_cast<uint32_t>(g.literals.size()));
        if (fresh)
            g.literals.push_back(gpu::Literal{r.pattern, r.nocase, r.offset, r.depth});
        gpu::PatternScope sc;
        sc.id = r.id;
        sc.proto = r.protocol == rules::Protocol::Tcp   ? WM_PROTO_TCP
                   : r.protocol == rules::Protocol::Udp ? WM_PROTO_UDP
                                                        : 0;
        for (const auto &p : r.ports) sc.ports.push_back({p.lo, p.hi});
        sc.pattern = it->second;
        g.scopes.push_back(std::move(sc));
        rule_index.push_back(static_cast<uint32_t>(i));
    }
    // Rules grouped by pattern: the matcher's own grouping of the entries.
    g.flat = gpu::flatten_scopes(g.scopes, static_cast<uint32_t>(g.literals.size()));
    g.rule_begin = g.flat.entry_begin;
    g.rules.reserve(g.flat.entry.size());
    for (uint32_t e : g.flat.entry) g.rules.push_back(rule_index[e]);
    return g;
}

GpuEngine::GpuEngine(const CompiledRuleSet &rs, const gpu::GpuOptions &opts, unsigned host_threads)
    : num_rules_(static_cast<uint32_t>(rs.rules().size())), expander_(host_threads) {
    GpuPatterns g = gpu_patterns(rs);
    for (const auto &l : g.literals) len_.push_back(static_cast<uint32_t>(l.bytes.size()));
    matcher_ = gpu::GpuMatcher::create(g.literals, opts);
    // scan_set_pairs(): rule ids and protocol/port scopes applied on the device.
    scopes_ = std::move(g.flat);
    matcher_->set_scopes(scopes_); // flattened once, above
    rules_ = std::move(g.rules);
}

GpuEngine::~GpuEngine() = default;

std::string GpuEngine::describe() const { return matcher_->describe(); }

static_assert(gpu::GpuMatcher::kPinnedSlots >= WM_BATCH_BUFFER_SLOTS, "a pinned buffer per batch buffer slot");
static_assert(gpu::GpuMatcher::kPendingBatches >= WM_SET_PIPELINE_DEPTH, "the matcher holds every submitted batch");

uint8_t *GpuEngine::pinned_buffer(size_t bytes, unsigned slot) {
    return matcher_->pinned_buffer(bytes, slot);
}

static_assert(sizeof(gpu::PayloadMeta) == sizeof(wm_payload_meta_t) &&
                  offsetof(gpu::PayloadMeta, proto) == offsetof(wm_payload_meta_t, proto) &&
                  offsetof(gpu::PayloadMeta, src_port) == offsetof(wm_payload_meta_t, src_port) &&
                  offsetof(gpu::PayloadMeta, dst_port) == offsetof(wm_payload_meta_t, dst_port),
              "gpu::PayloadMeta mirrors wm_payload_meta_t");
static_assert(sizeof(gpu::SetPair) == sizeof(wm_set_hit_t) &&
                  offsetof(gpu::SetPair, id) == offsetof(wm_set_hit_t, rule_id) &&
                  offsetof(gpu::SetPair, payload) == offsetof(wm_set_hit_t, payload_index),
              "gpu::SetPair mirrors wm_set_hit_t");

namespace {
gpu::BatchView gpu_view(const BatchView &batch) {
    if (batch.count > std::numeric_limits<uint32_t>::max())
        throw std::invalid_argument("batch too large for the GPU engine");
    return {batch.data, batch.offsets, static_cast<uint32_t>(batch.count), batch.sources};
}
} // namespace

size_t GpuEngine::scan_set_hits(const BatchView &batch, const wm_set_hit_t **hits) {
    const gpu::SetPair *pairs = nullptr;
    const size_t n = matcher_->scan_set_pairs(
        gpu_view(batch), reinterpret_cast<const gpu::PayloadMeta *>(batch.meta), &pairs);
    *hits = reinterpret_cast<const wm_set_hit_t *>(pairs);
    return n;
}

void GpuEngine::submit_set_hits(const BatchView &batch) {
    matcher_->submit_set_pairs(gpu_view(batch), reinterpret_cast<const gpu::PayloadMeta *>(batch.meta));
}

size_t GpuEngine::collect_set_hits(const wm_set_hit_t **hits) {
    const gpu::SetPair *pairs = nullptr;
    const size_t n = matcher_->collect_set_pairs(&pairs);
    *hits = reinterpret_cast<const wm_set_hit_t *>(pairs);
    return n;
}

PatternRules GpuEngine::pattern_rules() const {
    return {scopes_.entry_begin.data(), rules_.data(), len_.data(), scopes_.view(), scopes_.any_constraint, num_rules_};
}

bool GpuEngine::scan_positions(const BatchView &batch, const PositionsExpander::Sink &sink, Wanted wanted) {
    const PatternRules r = pattern_rules();
    bool go_on = true;
    // A rule's first match is the first of one of its patterns (scopes
    // depend on the payload alone), so the device keeps each pattern's first.
    const auto kept = wanted == Wanted::FirstPerRule ? gpu::PositionsKept::FirstPerPattern : gpu::PositionsKept::Every;
    matcher_->scan_positions(
        gpu_view(batch),
        [&](const gpu::PositionsChunk &c) { go_on = go_on && expander_.expand(c, r, batch.meta, sink, wanted); }, kept);
    return go_on;
}

// Each device match becomes one per rule of its pattern. The matcher's
// order, (payload, pattern) in Set mode and (payload, end, pattern) in
// Positions mode, is kept up to the rules: within a payload (Set) or a
// (payload, end) (Positions), rules are re-sorted only when the expansion
// broke their order, so sort_matches() keeps its O(n) fast path. Positions
// expand in parallel (PositionsExpander), without the scope filter here.
void GpuEngine::scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) {
    if (mode != WM_OUTPUT_SET) {
        BatchView unfiltered = batch; // the scanner applies the scopes for every engine alike
        unfiltered.meta = nullptr;
        scan_positions(unfiltered, [&](const Match *m, size_t n) {
            out.insert(out.end(), m, m + n);
            return true;
        });
        return;
    }
    std::vector<gpu::Match> &found = found_;
    matcher_->scan(gpu_view(batch), gpu::OutputMode::Set, found);
    out.reserve(out.size() + found.size());
    size_t group = out.size(); // first entry of the current payload
    const auto close_group = [&] {
        if (out.size() - group > 1 && !std::is_sorted(out.begin() + group, out.end(), by_rule_then_start))
            std::sort(out.begin() + group, out.end(), by_rule_then_start);
        group = out.size();
    };
    for (const auto &m : found) {
        if (out.size() > group && out.back().payload != m.payload)
            close_group();
        for (uint32_t i = scopes_.entry_begin[m.pattern]; i < scopes_.entry_begin[m.pattern + 1]; ++i)
            out.push_back(Match{rules_[i], m.payload, 0, 0});
    }
    close_group();
}

bool gpu_backend_usable(int device, std::string *reason) { return gpu::gpu_usable(device, reason); }

} // namespace wm
