#include "hs_engine.h"

#include "status_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wm {

HyperscanEngine::HyperscanEngine(const CompiledRuleSet &rs) : rs_(rs) {
    for (const auto &r : rs.rules()) {
        len_.push_back(static_cast<uint32_t>(r.pattern.size()));
        offset_.push_back(r.offset);
        depth_.push_back(r.depth);
    }
    if (rs.hs_database()) {
        hs_error_t rc = hs_alloc_scratch(rs.hs_database(), &scratch_);
        if (rc != HS_SUCCESS)
            throw StatusError(rc == HS_NOMEM ? WM_NOMEM : WM_ENGINE_ERROR,
                              fmt::format("hs_alloc_scratch failed (error {})", rc));
    }
}

HyperscanEngine::~HyperscanEngine() { hs_free_scratch(scratch_); }

namespace {
struct CallbackCtx {
    const uint32_t *len, *offset, *depth;
    std::vector<Match> *out;
    uint32_t payload;
    // Set mode: seen[rule] == stamp when the rule already matched this
    // payload, so duplicates are dropped in O(1) without sorting.
    uint64_t *seen;
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
    if (c->seen) {
        if (c->seen[id] == c->stamp)
            return 0;
        c->seen[id] = c->stamp;
        c->out->push_back(Match{id, c->payload, 0, 0});
        return 0;
    }
    c->out->push_back(Match{id, c->payload, start, end});
    return 0;
}
} // namespace

void HyperscanEngine::scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) {
    if (!scratch_)
        return;
    bool set = mode == WM_OUTPUT_SET;
    if (set && seen_.size() != len_.size())
        seen_.assign(len_.size(), 0);
    CallbackCtx ctx{len_.data(), offset_.data(), depth_.data(), &out, 0,
                    set ? seen_.data() : nullptr, 0};
    for (size_t i = 0; i < batch.count; ++i) {
        uint32_t n = batch.payload_len(i);
        if (n == 0)
            continue;
        ctx.payload = static_cast<uint32_t>(i);
        ctx.stamp = ++stamp_;
        hs_error_t rc = hs_scan(rs_.hs_database(), reinterpret_cast<const char *>(batch.payload(i)),
                                n, 0, scratch_, on_match, &ctx);
        if (rc != HS_SUCCESS)
            throw StatusError(WM_ENGINE_ERROR,
                              fmt::format("hs_scan failed on payload {} (error {})", i, rc));
    }
}

} // namespace wm
