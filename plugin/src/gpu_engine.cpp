#include "gpu_engine.h"

#include "gpu/gpu_matcher.h"

#include <cstddef>
#include <limits>
#include <stdexcept>

namespace wm {

GpuEngine::GpuEngine(const CompiledRuleSet &rs, int device, size_t max_batch_bytes,
                     size_t max_batch_payloads) {
    std::vector<gpu::Literal> lits;
    lits.reserve(rs.rules().size());
    for (size_t i = 0; i < rs.rules().size(); ++i) {
        const auto &r = rs.rules()[i];
        if (!CompiledRuleSet::is_literal(r))
            continue; // approximate and align rules have their own engines
        lits.push_back(gpu::Literal{r.pattern, r.nocase, r.offset, r.depth});
        len_.push_back(static_cast<uint32_t>(r.pattern.size()));
        rule_of_.push_back(static_cast<uint32_t>(i));
    }
    gpu::GpuOptions opts;
    opts.device = device;
    if (max_batch_bytes)
        opts.max_batch_bytes = max_batch_bytes;
    if (max_batch_payloads)
        opts.max_batch_payloads = max_batch_payloads;
    matcher_ = gpu::GpuMatcher::create(lits, opts);
    // scan_set_pairs(): rule ids and protocol/port scopes applied on the device.
    std::vector<gpu::PatternScope> scopes;
    scopes.reserve(rule_of_.size());
    for (uint32_t r : rule_of_) {
        const auto &rule = rs.rules()[r];
        gpu::PatternScope sc;
        sc.id = rule.id;
        sc.proto = rule.protocol == rules::Protocol::Tcp   ? WM_PROTO_TCP
                   : rule.protocol == rules::Protocol::Udp ? WM_PROTO_UDP
                                                           : 0;
        for (const auto &p : rule.ports) sc.ports.push_back({p.lo, p.hi});
        scopes.push_back(std::move(sc));
    }
    matcher_->set_scopes(scopes);
}

GpuEngine::~GpuEngine() = default;

std::string GpuEngine::describe() const { return matcher_->describe(); }

static_assert(gpu::GpuMatcher::kPinnedSlots >= WM_BATCH_BUFFER_SLOTS, "a pinned buffer per batch buffer slot");

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
    return {batch.data, batch.offsets, static_cast<uint32_t>(batch.count)};
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

void GpuEngine::scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) {
    const gpu::BatchView view = gpu_view(batch);
    std::vector<gpu::Match> &found = found_;
    matcher_->scan(view,
                   mode == WM_OUTPUT_SET ? gpu::OutputMode::Set : gpu::OutputMode::Positions,
                   found);
    out.reserve(out.size() + found.size());
    for (const auto &m : found) {
        uint32_t rule = rule_of_[m.pattern];
        if (mode == WM_OUTPUT_SET)
            out.push_back(Match{rule, m.payload, 0, 0});
        else
            out.push_back(Match{rule, m.payload, m.end - len_[m.pattern], m.end});
    }
}

bool gpu_backend_usable(int device, std::string *reason) { return gpu::gpu_usable(device, reason); }

} // namespace wm
