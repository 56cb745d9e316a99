#include "gpu_engine.h"

#include "gpu/gpu_matcher.h"

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
}

GpuEngine::~GpuEngine() = default;

std::string GpuEngine::describe() const { return matcher_->describe(); }

uint8_t *GpuEngine::pinned_buffer(size_t bytes) { return matcher_->pinned_buffer(bytes); }

void GpuEngine::scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) {
    if (batch.count > std::numeric_limits<uint32_t>::max())
        throw std::invalid_argument("batch too large for the GPU engine");
    gpu::BatchView view{batch.data, batch.offsets, static_cast<uint32_t>(batch.count)};
    std::vector<gpu::Match> found;
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
