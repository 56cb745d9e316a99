// gpu/approx/kdiff_compile.cpp - patterns -> groups of 32 lanes + Peq tables.
#include "gpu/approx/approx_hd.h"
#include "gpu/approx/approx_tuning.h"
#include "gpu/approx/kdiff.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace wm::approx {

void sort_approx_matches(std::vector<ApproxMatch> &m) {
    std::sort(m.begin(), m.end(), [](const ApproxMatch &a, const ApproxMatch &b) {
        return std::tie(a.payload, a.end, a.pattern, a.distance) <
               std::tie(b.payload, b.end, b.pattern, b.distance);
    });
}

namespace {
uint32_t word_class(uint32_t words) {
    uint32_t c = 1;
    while (c < words) c *= 2;
    return c;
}
} // namespace

KdiffBlob compile_kdiff(const std::vector<ApproxPattern> &patterns) {
    KdiffBlob blob;
    blob.patterns = patterns;
    // Key (metric, words, kmax) -> pattern indices, in pattern order (deterministic).
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<uint32_t>> kinds;
    for (uint32_t i = 0; i < patterns.size(); ++i) {
        const auto &p = patterns[i];
        const size_t m = p.bytes.size();
        auto bad = [&](const std::string &why) {
            throw KdiffPatternError(i, why);
        };
        if (m == 0) bad("empty pattern");
        if (m > tuning::kMaxWords * 64)
            bad("pattern of " + std::to_string(m) + " bytes exceeds the GPU limit of " +
                std::to_string(tuning::kMaxWords * 64));
        // Same limit as Hyperscan: k edits must not reduce the pattern to the
        // empty string ("vacuous"); Hamming has no such limit there.
        if (p.metric == Metric::Levenshtein && m <= size_t{p.k})
            bad("max_edits " + std::to_string(p.k) + " too large for a " + std::to_string(m) +
                "-byte pattern (need length > k)");
        const uint32_t words = word_class(static_cast<uint32_t>((m + 63) / 64));
        uint32_t kmax = 0;
        if (p.metric == Metric::Hamming) {
            kmax = p.k <= 3 ? 3 : 7;
            if (p.k > tuning::kHammingMaxK || words * (kmax + 1) > tuning::kHammingMaxStateWords)
                bad("max_mismatches " + std::to_string(p.k) + " with a " + std::to_string(m) +
                    "-byte pattern exceeds the Hamming kernel's state (k <= 7 and "
                    "ceil(m/64) * (k+1) <= 16, k rounded up to 3 or 7)");
        }
        kinds[{uint32_t(p.metric), words, kmax}].push_back(i);
    }
    blob.group_of.assign(patterns.size(), 0);
    blob.lane_of.assign(patterns.size(), 0);
    for (const auto &[key, members] : kinds) {
        const auto [metric, words, kmax] = key;
        for (size_t first = 0; first < members.size(); first += 32) {
            GroupDesc g{};
            g.metric = metric;
            g.words = words;
            g.kmax = kmax;
            g.peq_offset = blob.peq.size();
            g.lane_base = static_cast<uint32_t>(blob.lanes.size());
            const uint32_t gi = static_cast<uint32_t>(blob.groups.size());
            blob.peq.resize(blob.peq.size() + size_t{256} * words * 32, 0);
            blob.lanes.resize(blob.lanes.size() + 32);
            for (uint32_t lane = 0; lane < 32 && first + lane < members.size(); ++lane) {
                const uint32_t pi = members[first + lane];
                const auto &p = patterns[pi];
                const uint32_t m = static_cast<uint32_t>(p.bytes.size());
                blob.lanes[g.lane_base + lane] = LaneDesc{pi, m, p.k, (m - 1) / 64};
                blob.group_of[pi] = gi;
                blob.lane_of[pi] = lane;
                g.warm = std::max(g.warm, m + p.k);
                for (uint32_t r = 0; r < m; ++r) {
                    const uint64_t bit = 1ull << (r % 64);
                    const uint32_t w = r / 64;
                    const uint8_t pc = static_cast<uint8_t>(p.bytes[r]);
                    for (uint32_t c = 0; c < 256; ++c) {
                        const bool eq = p.nocase ? fold_ascii(uint8_t(c)) == fold_ascii(pc)
                                                 : uint8_t(c) == pc;
                        if (eq) blob.peq[g.peq_offset + (size_t{c} * words + w) * 32 + lane] |= bit;
                    }
                }
            }
            blob.groups.push_back(g);
        }
    }
    return blob;
}

std::string KdiffBlob::describe() const {
    std::ostringstream o;
    o << patterns.size() << " approximate patterns in " << groups.size() << " groups (";
    for (size_t i = 0; i < groups.size(); ++i)
        o << (i ? " " : "") << (groups[i].metric ? "ham" : "lev") << "/w" << groups[i].words
          << (groups[i].metric ? "/k" + std::to_string(groups[i].kmax) : "");
    o << "), Peq " << peq.size() * 8 / 1024 << " KiB";
    return o.str();
}

} // namespace wm::approx
