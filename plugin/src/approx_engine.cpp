#include "approx_engine.h"

#include "approx_start.h"
#include "gpu/approx/approx_matcher.h"
#include "status_error.h"

#include <fmt/format.h>

#include <algorithm>

namespace wm {

ApproxEngine::ApproxEngine(const std::vector<rules::Rule> &rules, ApproxBackend backend, int device,
                           gpu::HostWait wait, const hs_database_t *shared_db)
    : backend_(backend) {
    std::vector<approx::ApproxPattern> pats;
    for (uint32_t i = 0; i < rules.size(); ++i) {
        const auto &r = rules[i];
        if (!is_approximate(r)) continue;
        rule_index_.push_back(i);
        offset_.push_back(r.offset);
        depth_.push_back(r.depth);
        approx::ApproxPattern p;
        p.bytes = r.pattern;
        p.metric = r.max_edits ? approx::Metric::Levenshtein : approx::Metric::Hamming;
        p.k = r.max_edits ? *r.max_edits : *r.max_mismatches;
        p.nocase = r.nocase;
        pats.push_back(std::move(p));
    }
    patterns_ = pats;
    if (pats.empty()) return;
    if (backend == ApproxBackend::Gpu) {
        approx::ApproxOptions o;
        o.device = device;
        o.wait = wait;
        try {
            gpu_ = approx::ApproxMatcher::create(pats, o);
        } catch (const approx::KdiffPatternError &e) {
            // The kernels' limits are stricter than Hyperscan's (length, Hamming k): name the rule.
            const rules::Rule &r = rules[rule_index_.at(e.pattern)];
            throw rules::RuleError({rules::Diagnostic{
                r.where, r.id, fmt::format("the GPU's approximate kernels cannot take this pattern: {}", e.why)}});
        }
        return;
    }
    if (!shared_db) owned_db_.reset(compile_approximate(rules)); // expression i = pats[i]
    db_ = shared_db ? shared_db : owned_db_.get();
    hs_error_t rc = hs_alloc_scratch(db_, &scratch_);
    if (rc != HS_SUCCESS)
        throw StatusError(rc == HS_NOMEM ? WM_NOMEM : WM_ENGINE_ERROR,
                          fmt::format("hs_alloc_scratch failed (error {})", rc));
}

ApproxEngine::~ApproxEngine() { hs_free_scratch(scratch_); }

void ApproxEngine::keep(std::vector<Hit> &hits, const BatchView &batch, wm_output_mode mode,
                        std::vector<Match> &out) const {
    std::sort(hits.begin(), hits.end()); // Hyperscan may report an (id, end) more than once: one match each
    hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
    std::vector<uint32_t> starts; // Levenshtein starts of (payload, pattern) starts_of
    std::pair<uint32_t, uint32_t> starts_of{UINT32_MAX, UINT32_MAX};
    for (const auto &[payload, i, end] : hits) {
        if (depth_[i] != 0 && end > offset_[i] + depth_[i]) continue;
        const approx::ApproxPattern &p = patterns_[i];
        const uint32_t m_len = static_cast<uint32_t>(p.bytes.size());
        uint32_t start = 0;
        if (p.metric == approx::Metric::Hamming) {
            if (end < m_len || end - m_len < offset_[i]) continue;
            start = end - m_len;
        } else if (mode != WM_OUTPUT_SET || offset_[i] != 0) { // set mode at offset 0: any start will do
            if (starts_of != std::make_pair(payload, i)) {
                starts = approx_match_starts(batch.payload(payload), batch.payload_len(payload), p.bytes, p.nocase,
                                             p.k, offset_[i]);
                starts_of = {payload, i};
            }
            if (starts[end] == kNoApproxStart) continue;
            start = starts[end];
        }
        out.push_back(Match{rule_index_[i], payload, start, end});
    }
}

namespace {
struct HsCtx {
    uint32_t payload;
    std::vector<ApproxEngine::Hit> *hits;
};
int on_hs_match(unsigned id, unsigned long long, unsigned long long to, unsigned, void *p) {
    auto *c = static_cast<HsCtx *>(p);
    c->hits->emplace_back(c->payload, id, static_cast<uint32_t>(to));
    return 0;
}
} // namespace

void ApproxEngine::scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) {
    if (rule_index_.empty()) return;
    const size_t first = out.size();
    if (gpu_) {
        const BatchView packed = packed_view(batch, packed_);
        approx::PayloadBatch pb{packed.data, packed.offsets, static_cast<uint32_t>(packed.count)};
        std::vector<approx::ApproxMatch> res;
        gpu_->scan(pb, res);
        std::vector<Hit> hits;
        hits.reserve(res.size());
        for (const auto &r : res) hits.emplace_back(r.payload, r.pattern, r.end);
        keep(hits, packed, mode, out);
    } else {
        std::vector<Hit> hits;
        HsCtx ctx{0, &hits};
        for (size_t i = 0; i < batch.count; ++i) {
            const uint32_t n = batch.payload_len(i);
            if (n == 0) continue;
            hits.clear();
            ctx.payload = static_cast<uint32_t>(i);
            hs_error_t rc = hs_scan(db_, reinterpret_cast<const char *>(batch.payload(i)), n, 0,
                                    scratch_, on_hs_match, &ctx);
            if (rc != HS_SUCCESS)
                throw StatusError(WM_ENGINE_ERROR,
                                  fmt::format("hs_scan failed on payload {} (error {})", i, rc));
            keep(hits, batch, mode, out);
        }
    }
    std::vector<Match> tail(out.begin() + first, out.end());
    if (mode == WM_OUTPUT_SET)
        to_set(tail);
    else
        sort_matches(tail);
    out.resize(first);
    out.insert(out.end(), tail.begin(), tail.end());
}

} // namespace wm
