#include "stream/carry_matcher.h"

#include <algorithm>

namespace wm::stream {

RuleGeometry::RuleGeometry(const std::vector<rules::Rule> &rules) {
    for (const auto &r : rules) {
        len.push_back(static_cast<uint32_t>(r.pattern.size()));
        offset.push_back(r.offset);
        depth.push_back(r.depth);
        max_len = std::max(max_len, len.back());
        max_offset = std::max(max_offset, r.offset);
        if (r.depth != 0)
            bounded_end = std::max<uint64_t>(bounded_end, uint64_t(r.offset) + r.depth);
        else
            max_unbounded_offset = std::max(max_unbounded_offset, r.offset);
    }
}

void WindowBatch::clear() {
    data.clear();
    offsets.assign(1, 0);
    meta.clear();
    packets.clear();
    info.clear();
    tunnels.clear();
}

void WindowBatch::keep_carrier(const wm_packet_t &p, Info &in) {
    if (!p.tunnel) return;
    in.tunnel = static_cast<int32_t>(tunnels.size());
    tunnels.push_back(*p.tunnel);
}

void WindowBatch::bind_payloads() {
    for (size_t i = 0; i < count(); ++i) {
        packets[i].payload = data.data() + offsets[i];
        packets[i].payload_len = offsets[i + 1] - offsets[i];
        packets[i].tunnel = info[i].tunnel >= 0 ? &tunnels[size_t(info[i].tunnel)] : nullptr;
    }
}

void CarryMatcher::add_stream(Flow::Side &side, uint64_t flow, int dir, uint64_t off,
                              const uint8_t *bytes, size_t len, const wm_packet_t &trigger,
                              WindowBatch &b, wm_stream_stats_t &st) const {
    WindowBatch::Info in;
    in.stream = true;
    in.pad = side.pad;
    in.prefix = side.pad + static_cast<uint32_t>(side.carry.size());
    in.base = off - in.prefix;
    in.flow = flow;
    in.dir = dir;
    b.keep_carrier(trigger, in);
    b.data.insert(b.data.end(), side.pad, 0);
    b.data.insert(b.data.end(), side.carry.begin(), side.carry.end());
    b.data.insert(b.data.end(), bytes, bytes + len);
    b.offsets.push_back(static_cast<uint32_t>(b.data.size()));
    b.meta.push_back(wm_payload_meta_t{trigger.proto, trigger.src_port, trigger.dst_port});
    b.packets.push_back(trigger);
    b.info.push_back(in);
    ++st.windows;
    st.carried_bytes += side.carry.size();

    // Next carry: the last carry_bytes() of padding + carry + new bytes,
    // real bytes preferred (padding only stands where no byte is known).
    const size_t keep = std::min<size_t>(in.prefix + len, g_.carry_bytes(off + len));
    const size_t real = std::min(keep, side.carry.size() + len);
    if (len >= real) {
        side.carry.assign(reinterpret_cast<const char *>(bytes + len - real), real);
    } else {
        side.carry.erase(0, side.carry.size() - (real - len));
        side.carry.append(reinterpret_cast<const char *>(bytes), len);
    }
    side.pad = static_cast<uint32_t>(keep - real);
}

void CarryMatcher::gap(Flow::Side &side, uint64_t resume_off) const {
    side.carry.clear();
    side.pad = static_cast<uint32_t>(std::min<uint64_t>(resume_off, g_.offset_at(resume_off)));
}

void CarryMatcher::add_datagram(const wm_packet_t &p, WindowBatch &b) {
    b.data.insert(b.data.end(), p.payload, p.payload + p.payload_len);
    b.offsets.push_back(static_cast<uint32_t>(b.data.size()));
    b.meta.push_back(wm_payload_meta_t{p.proto, p.src_port, p.dst_port});
    b.packets.push_back(p);
    WindowBatch::Info in;
    b.keep_carrier(p, in);
    b.info.push_back(in);
}

void CarryMatcher::filter(const WindowBatch &b, std::vector<Match> &m,
                          wm_stream_stats_t &st) const {
    auto drop = [&](const Match &x) {
        const WindowBatch::Info &in = b.info[x.payload];
        if (!in.stream) return in.late_lo < in.late_hi && (x.end <= in.late_lo || x.start >= in.late_hi);
        if (x.end <= in.prefix || x.start < in.pad) return true;
        const uint64_t s = in.base + x.start, e = in.base + x.end;
        if (s < g_.offset[x.rule]) return true;
        if (g_.depth[x.rule] != 0 && e > uint64_t(g_.offset[x.rule]) + g_.depth[x.rule])
            return true;
        if (x.start < in.prefix) ++st.cross_segment_matches;
        return false;
    };
    m.erase(std::remove_if(m.begin(), m.end(), drop), m.end());
}

} // namespace wm::stream
