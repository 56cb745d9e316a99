#include "align_engine.h"

#include "gpu/align/align_search.h"
#include "gpu/align/sw_reference.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

namespace wm {

align::ScoreParams AlignEngine::score_params(const rules::AlignSpec &a) {
    align::ScoreParams p;
    p.match = a.match;
    p.mismatch = a.mismatch;
    p.gap_open = a.gap_open;
    p.gap_extend = a.gap_extend;
    return p;
}

AlignEngine::AlignEngine(const std::vector<rules::Rule> &rules, AlignBackend backend, int device,
                         gpu::HostWait wait)
    : backend_(backend) {
    // std::map: groups in a fixed order, so both backends emit the same sequence.
    std::map<std::tuple<int, int, int, int>, size_t> group_of;
    for (uint32_t i = 0; i < rules.size(); ++i) {
        if (!CompiledRuleSet::is_alignment(rules[i]))
            continue;
        const rules::AlignSpec &a = *rules[i].align;
        auto key = std::make_tuple(a.match, a.mismatch, a.gap_open, a.gap_extend);
        auto [it, fresh] = group_of.emplace(key, groups_.size());
        if (fresh) {
            groups_.emplace_back();
            groups_.back().params = score_params(a);
            groups_.back().params.validate(); // the loader checked the same ranges
        }
        Group &g = groups_[it->second];
        // Rules with the same reference and scores share one alignment.
        auto ref = std::find(g.refs.begin(), g.refs.end(), a.reference);
        g.ref_of.push_back(static_cast<uint32_t>(ref - g.refs.begin()));
        if (ref == g.refs.end())
            g.refs.push_back(a.reference);
        g.rules.push_back(i);
        g.min_score.push_back(a.min_score);
        g.smallest_min = g.rules.size() == 1 ? a.min_score : std::min(g.smallest_min, a.min_score);
        ++rule_count_;
    }
    if (backend == AlignBackend::Gpu) {
        std::string why;
        if (!groups_.empty() && !align::align_gpu_usable(device, &why))
            throw std::runtime_error(why);
        for (Group &g : groups_)
            g.gpu = std::make_unique<align::PayloadAligner>(g.refs, g.params, device, wait);
    }
}

AlignEngine::~AlignEngine() = default;

gpu::HostWait AlignEngine::gpu_host_wait(size_t g) const {
    const auto &aligner = groups_.at(g).gpu;
    return aligner ? aligner->host_wait() : gpu::HostWait::Spin;
}

void AlignEngine::scan_cpu(const Group &g, const BatchView &batch, std::vector<Match> &out) const {
    struct Best {
        int32_t score = 0;
        uint32_t col = 0; // first column with the best score
    };
    std::vector<Best> best(g.refs.size());
    for (size_t p = 0; p < batch.count; ++p) {
        const uint32_t n = batch.payload_len(p);
        if (n == 0)
            continue;
        const uint8_t *payload = batch.payload(p);
        for (size_t r = 0; r < g.refs.size(); ++r) {
            const auto *ref = reinterpret_cast<const uint8_t *>(g.refs[r].data());
            const auto colmax =
                align::reference_column_maxima(ref, g.refs[r].size(), payload, n, g.params);
            auto top = std::max_element(colmax.begin(), colmax.end()); // first of equals
            best[r] = Best{*top, static_cast<uint32_t>(top - colmax.begin())};
        }
        for (size_t k = 0; k < g.rules.size(); ++k) {
            const Best &b = best[g.ref_of[k]];
            if (b.score < g.min_score[k])
                continue;
            const std::string &ref = g.refs[g.ref_of[k]];
            // A positive alignment spans at most exact_overlap() - 1 columns,
            // so a window that long ending at the hit holds every cell of its
            // traceback with the values of the whole-payload DP: the same
            // region as the GPU's whole-prefix window, in bounded memory.
            const uint64_t w = align::exact_overlap(ref.size(), g.params);
            const uint64_t begin = b.col + 1 > w ? b.col + 1 - w : 0;
            const align::Hit h = align::reference_traceback(
                reinterpret_cast<const uint8_t *>(ref.data()), ref.size(), payload, begin, b.col,
                g.params);
            out.push_back(Match{g.rules[k], static_cast<uint32_t>(p),
                                static_cast<uint32_t>(h.db_begin), static_cast<uint32_t>(h.db_end),
                                h.score});
        }
    }
}

void AlignEngine::scan_gpu(Group &g, const BatchView &batch, std::vector<Match> &out) const {
    const auto hits = g.gpu->align(batch.data, batch.offsets, static_cast<uint32_t>(batch.count),
                                   g.smallest_min);
    for (const align::PayloadHit &h : hits)
        for (size_t k = 0; k < g.rules.size(); ++k)
            if (g.ref_of[k] == h.reference && h.hit.score >= g.min_score[k])
                out.push_back(Match{g.rules[k], h.payload, static_cast<uint32_t>(h.hit.db_begin),
                                    static_cast<uint32_t>(h.hit.db_end), h.hit.score});
}

void AlignEngine::scan(const BatchView &batch, wm_output_mode, std::vector<Match> &out) {
    // No bytes, no alignment (and data may then be null, which the GPU
    // upload would not accept).
    if (groups_.empty() || batch.count == 0 || batch.offsets[batch.count] == batch.offsets[0])
        return;
    if (batch.count > std::numeric_limits<uint32_t>::max())
        throw std::invalid_argument("batch too large for the align engine");
    const size_t first = out.size();
    const BatchView packed = backend_ == AlignBackend::Gpu ? packed_view(batch, packed_) : batch;
    for (Group &g : groups_) {
        if (backend_ == AlignBackend::Gpu)
            scan_gpu(g, packed, out);
        else
            scan_cpu(g, batch, out);
    }
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
              [](const Match &a, const Match &b) {
                  return std::tie(a.payload, a.end, a.rule, a.start) <
                         std::tie(b.payload, b.end, b.rule, b.start);
              });
}

} // namespace wm
