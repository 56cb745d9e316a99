// gpu/approx/kdiff_cpu.cpp - the kernel's lane walk on the CPU (kdiff.h).
#include "gpu/approx/kdiff.h"
#include "gpu/approx/kdiff_kinds.h"

namespace wm::approx {
namespace {

template <typename Tag>
void walk(const KdiffBlob &blob, const GroupDesc &g, uint32_t lane, const uint8_t *p,
          uint32_t payload_index, uint32_t lo, uint32_t hi, uint32_t report_from,
          std::vector<ApproxMatch> &out) {
    const LaneDesc &ld = blob.lanes[g.lane_base + lane];
    if (ld.pattern == kNoPattern) return;
    typename Tag::Lane st;
    st.init(ld.m, ld.k);
    const uint64_t out_mask = 1ull << ((ld.m - 1) % 64);
    const uint64_t *peq = blob.peq.data() + g.peq_offset;
    for (uint32_t pos = lo; pos < hi; ++pos) {
        const uint32_t c = p[pos];
        auto eq = [&](uint32_t w) { return peq[(size_t{c} * Tag::kWords + w) * 32 + lane]; };
        const uint32_t d = st.step(eq, ld.last_word, out_mask);
        if (pos >= report_from && d <= ld.k)
            out.push_back(ApproxMatch{ld.pattern, payload_index, pos + 1, d});
    }
}

} // namespace

void kdiff_cpu_scan(const KdiffBlob &blob, const PayloadBatch &batch,
                    std::vector<ApproxMatch> &out) {
    for (const auto &g : blob.groups)
        with_kind(g, [&](auto tag) {
            using Tag = decltype(tag);
            for (uint32_t i = 0; i < batch.count; ++i) {
                const uint32_t len = batch.offsets[i + 1] - batch.offsets[i];
                for (uint32_t lane = 0; lane < 32; ++lane)
                    walk<Tag>(blob, g, lane, batch.data + batch.offsets[i], i, 0, len, 0, out);
            }
        });
}

void kdiff_cpu_window(const KdiffBlob &blob, uint32_t pattern, const uint8_t *payload,
                      uint32_t payload_index, uint32_t lo, uint32_t hi,
                      std::vector<ApproxMatch> &out) {
    const GroupDesc &g = blob.groups[blob.group_of[pattern]];
    with_kind(g, [&](auto tag) {
        walk<decltype(tag)>(blob, g, blob.lane_of[pattern], payload, payload_index, lo, hi, lo, out);
    });
}

} // namespace wm::approx
