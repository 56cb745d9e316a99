#include "stream/flow_table.h"

#include "capture/word_mix.h"

#include <algorithm>
#include <cstring>

namespace wm::stream {
namespace {

// Bookkeeping per flow and per buffered segment, so that many tiny flows
// or segments are bounded by memcap_bytes as surely as large ones.
constexpr size_t kFlowOverhead = sizeof(Flow) + 64;
constexpr size_t kSegmentOverhead = 64;

FlowKey flow_key(const wm_packet_t &p, uint32_t vlans) {
    FlowKey k{};
    const int c = std::memcmp(p.src_ip, p.dst_ip, 16);
    const bool swap = c > 0 || (c == 0 && p.src_port > p.dst_port);
    const uint8_t *lo = swap ? p.dst_ip : p.src_ip, *hi = swap ? p.src_ip : p.dst_ip;
    const uint16_t lo_port = swap ? p.dst_port : p.src_port;
    const uint16_t hi_port = swap ? p.src_port : p.dst_port;
    k[0] = p.ip_version;
    k[1] = p.proto;
    std::memcpy(&k[2], lo, 16);
    std::memcpy(&k[18], hi, 16);
    k[34] = uint8_t(lo_port >> 8), k[35] = uint8_t(lo_port);
    k[36] = uint8_t(hi_port >> 8), k[37] = uint8_t(hi_port);
    k[38] = uint8_t(vlans >> 16), k[39] = uint8_t(vlans >> 8), k[40] = uint8_t(vlans);
    return k;
}

// The direction of a flow's packet: 0 from the flow's client, 1 to it.
int direction_of(const Flow &f, const wm_packet_t &p) {
    return std::memcmp(f.client_ip, p.src_ip, 16) == 0 && f.client_port == p.src_port ? 0 : 1;
}

// Forwards one direction's reassembled bytes to the sink with the packet
// that caused the delivery.
struct Forward final : StreamReceiver {
    FlowSink &sink;
    Flow &flow;
    int dir;
    const wm_packet_t &trigger;
    Forward(FlowSink &s, Flow &f, int d, const wm_packet_t &t)
        : sink(s), flow(f), dir(d), trigger(t) {}
    void data(uint64_t off, const uint8_t *b, size_t n) override {
        sink.data(flow, dir, off, b, n, trigger);
    }
    void gap(uint64_t from, uint64_t to) override { sink.gap(flow, dir, from, to); }
    void late(int64_t, const uint8_t *b, size_t n, size_t lo, size_t hi) override {
        sink.late(flow, dir, b, n, lo, hi, trigger);
    }
};

} // namespace

// Six word loads and a multiply-xorshift round each: the byte-serial FNV
// chain this replaced was 11% of a streams replay's time (perf, merged-zeek
// x8 with one rule on the development machine).
size_t FlowTable::KeyHash::operator()(const FlowKey &k) const {
    uint64_t w[6] = {};
    std::memcpy(w, k.data(), 40);
    std::memcpy(&w[5], k.data() + 40, 1);
    uint64_t h = 0;
    for (uint64_t x : w) h = capture::mix_word(h, x);
    return static_cast<size_t>(capture::mix_final(h));
}

FlowTable::FlowTable(const wm_stream_config_t &cfg, wm_stream_stats_t &stats, FlowSink &sink)
    : cfg_(cfg), st_(stats), sink_(sink) {}

FlowTable::~FlowTable() = default;

void FlowTable::account(Flow &f) {
    size_t m = kFlowOverhead;
    for (int d = 0; d < 2; ++d)
        m += f.tcp[d].buffered_bytes() +
             (f.tcp[d].buffered_segments() + f.tcp[d].unscanned_ranges()) * kSegmentOverhead +
             f.side[d].carry.size();
    memory_ = memory_ - f.memory + m;
    f.memory = m;
    st_.memory_peak_bytes = std::max<uint64_t>(st_.memory_peak_bytes, memory_);
}

FlowTable::Lru::iterator FlowTable::create(const wm_packet_t &pkt, const FlowKey &key) {
    while (!lru_.empty() && table_.size() >= cfg_.max_flows)
        end_flow(victim(nullptr), End::Evicted);
    lru_.emplace_front(cfg_.max_ooo_bytes, st_);
    Flow &f = lru_.front();
    f.key = key;
    f.serial = next_serial_++;
    std::memcpy(f.client_ip, pkt.src_ip, 16);
    f.client_port = pkt.src_port;
    table_.emplace(key, lru_.begin());
    ++st_.flows_created;
    st_.flows_peak = std::max<uint64_t>(st_.flows_peak, table_.size());
    account(f);
    return lru_.begin();
}

bool FlowTable::no_data(const Flow &f) {
    for (const TcpDirection &d : f.tcp)
        if (d.next_offset() != 0 || d.buffered_bytes() != 0) return false;
    return true;
}

void FlowTable::flush_direction(Flow &f, int d) {
    Forward fw(sink_, f, d, f.side[d].last);
    f.tcp[d].flush(fw);
}

void FlowTable::flush_flow(Flow &f) {
    for (int d = 0; d < 2; ++d) flush_direction(f, d);
}

void FlowTable::end_flow(Lru::iterator it, End why) {
    Flow &f = *it;
    flush_flow(f);
    sink_.end(f);
    if (f.reset) --resets_live_; // counted at its RST
    else switch (why) {
    case End::Closed: ++st_.flows_closed; break;
    case End::TimedOut: ++st_.flows_timed_out; break;
    case End::Evicted: ++st_.flows_evicted; break;
    case End::Reused: ++st_.flows_reused; break;
    case End::AtEnd: ++st_.flows_at_end; break;
    }
    memory_ -= f.memory;
    table_.erase(f.key);
    lru_.erase(it);
}

// The flow to evict: a reset flow among the least recently used ones, else
// the least recently used (never `keep`; lru_.end() when that is all there
// is). Flows kept after their RST wait mostly for data that never comes, so
// they go before live ones: eight of them had pushed out a live flow that
// the RST used to free (review of 9af36b2).
FlowTable::Lru::iterator FlowTable::victim(const Flow *keep) {
    if (lru_.empty()) return lru_.end();
    auto it = std::prev(lru_.end());
    for (int k = 0; k < kResetSearch && resets_live_ > 0; ++k, --it) {
        if (it->reset && &*it != keep) return it;
        if (it == lru_.begin()) break;
    }
    return &lru_.back() != keep ? std::prev(lru_.end()) : lru_.end();
}

void FlowTable::enforce_caps(const Flow *keep) {
    while (memory_ > cfg_.memcap_bytes) {
        const auto v = victim(keep);
        if (v == lru_.end()) break;
        end_flow(v, End::Evicted);
    }
}

void FlowTable::on_tcp(const wm_packet_t &pkt, const TcpHeader &tcp, size_t seg_len, uint32_t vlans,
                       int64_t now_sec) {
    ++st_.segments;
    const auto key = flow_key(pkt, vlans);
    auto found = table_.find(key);
    const bool syn = tcp.flags & kTcpSyn, ack = tcp.flags & kTcpAck;
    const bool rst = tcp.flags & kTcpRst, fin = tcp.flags & kTcpFin;
    if (found != table_.end() && syn && !ack) {
        Flow &old = *found->second;
        const int d = direction_of(old, pkt);
        // A new connection on the same 5-tuple, not a retransmitted SYN: once
        // the old one is closing (a FIN), or had no data either way. In the
        // middle of a connection a receiver ignores a SYN (RFC 5961's
        // challenge ACK), and so does the flow: one forged SYN would restart
        // the stream at its ISN and hide every real byte after it (also on a
        // flow where only the peer sends, such as an FTP data channel).
        if (old.tcp[d].started() && (!old.tcp[d].had_syn() || old.tcp[d].isn() != tcp.seq)) {
            if (!no_data(old) && !old.tcp[0].finished() && !old.tcp[1].finished()) {
                old.ignored_syn = std::make_pair(d, tcp.seq);
                return;
            }
            end_flow(found->second, End::Reused);
            found = table_.end();
        }
    }
    // The peer's SYN-ACK to an ignored SYN: a real new connection (a forged
    // SYN draws a challenge ACK, not this). It replaces the old flow, its
    // client the SYN's sender, its stream from that SYN.
    // So is a SYN-ACK with a new ISN on a flow closed by its RST (the new
    // connection's SYN missed): its acknowledgement gives the client's ISN.
    if (found != table_.end() && syn && ack) {
        Flow &old = *found->second;
        const int d = direction_of(old, pkt);
        const bool answered =
            old.ignored_syn && old.ignored_syn->first == 1 - d && tcp.ack == old.ignored_syn->second + 1;
        const bool new_isn = old.reset && !(old.tcp[d].had_syn() && old.tcp[d].isn() == tcp.seq);
        if (answered || new_isn) {
            const uint32_t isn = answered ? old.ignored_syn->second : tcp.ack - 1;
            end_flow(found->second, End::Reused);
            create(pkt, key);
            found = table_.find(key);
            Flow &f = *found->second;
            std::memcpy(f.client_ip, pkt.dst_ip, 16); // the SYN's sender
            f.client_port = pkt.dst_port;
            f.tcp[0].syn(isn);
        }
    }
    // After its RST a flow takes data within the out-of-order window of
    // where its stream goes on (that direction's next sequence number, or
    // what the peer acknowledged of it): the data of a RST the host never
    // got, with its keep-alives, retransmissions and reorderings (bytes
    // behind the stream are scanned on their own: rescan_behind). Data
    // further off is a new connection whose SYN the sensor missed, picked
    // up mid-connection as before the RST kept flows.
    if (found != table_.end() && found->second->reset && seg_len > 0 && !syn) {
        Flow &old = *found->second;
        const int d = direction_of(old, pkt);
        const std::optional<uint32_t> expected =
            old.tcp[d].started() ? std::optional<uint32_t>(old.tcp[d].next_sequence()) : old.side[1 - d].acked;
        const uint64_t window = std::clamp<uint64_t>(cfg_.max_ooo_bytes, 1, uint64_t{1} << 30);
        if (expected && std::min(tcp.seq - *expected, *expected - tcp.seq) >= window) {
            end_flow(found->second, End::Closed); // counted at its RST
            found = table_.end();
        }
    }
    if (found == table_.end()) {
        if ((!syn && seg_len == 0) || rst) {
            ++st_.segments_no_flow;
            return;
        }
        create(pkt, key);
        found = table_.find(key);
    }
    auto it = found->second;
    lru_.splice(lru_.begin(), lru_, it); // most recently used first
    Flow &f = *it;
    f.last_sec = now_sec;
    const int dir = direction_of(f, pkt);
    f.side[dir].last = pkt;
    f.side[dir].last.payload = nullptr;
    f.side[dir].last.payload_len = 0;
    if (pkt.tunnel) { // the pipeline's carrier lasts one packet: the flow keeps its own
        f.side[dir].last_carrier = *pkt.tunnel;
        f.side[dir].last.tunnel = &f.side[dir].last_carrier;
    }

    if (rst) {
        if (!f.tcp[dir].rst_acceptable(tcp.seq, f.side[1 - dir].acked)) {
            ++st_.rst_ignored;
            return;
        }
        ++st_.rst_accepted;
        if (f.reset) return;
        if (no_data(f)) { // a refused SYN, a port scan: nothing to go on from
            end_flow(it, End::Closed);
            return;
        }
        // The RST's own direction is where a sender goes on past a RST that
        // never arrived, and where a new connection reusing the tuple (its
        // SYN missed) sends: it delivers what it buffered now, holes
        // becoming gaps, and bytes behind its stream are scanned on their
        // own (kept buffered, a new connection's bytes over the held ones
        // would lose to them, first wins). The peer's buffered bytes stay,
        // so its fill after the RST joins the stream (flushed, the fill was
        // scanned alone and a signature across the hole's edge missed), and
        // its retransmissions after a RST it got stay retransmissions
        // (merged-zeek: 692 repeats of alerts in one flow).
        flush_direction(f, dir);
        f.tcp[dir].rescan_behind();
        f.reset = true;
        ++resets_live_;
        ++st_.flows_closed;
        account(f);
        return;
    }
    if (ack) f.side[dir].acked = tcp.ack;
    Forward fw(sink_, f, dir, pkt);
    uint32_t seq = tcp.seq;
    if (syn) {
        f.tcp[dir].syn(seq);
        ++seq; // data in a SYN (TCP Fast Open) starts after it
    }
    f.tcp[dir].segment(seq, pkt.payload, pkt.payload ? pkt.payload_len : 0, seg_len, fin, fw);
    account(f);
    if (f.tcp[0].finished() && f.tcp[1].finished()) {
        end_flow(it, End::Closed);
        return;
    }
    enforce_caps(&f);
}

void FlowTable::expire(int64_t now_sec) {
    while (!lru_.empty() && lru_.back().last_sec + int64_t(cfg_.idle_timeout_s) < now_sec)
        end_flow(std::prev(lru_.end()), End::TimedOut);
}

void FlowTable::end_all() {
    while (!lru_.empty()) end_flow(std::prev(lru_.end()), End::AtEnd);
}

} // namespace wm::stream
