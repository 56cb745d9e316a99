// tools/demo/tcp_session.cpp - see tcp_session.h.
#include "tcp_session.h"

#include <algorithm>

namespace wm::demo {

namespace b = capture::build;

namespace {
constexpr size_t kMss = 1460;
} // namespace

void Trace::add(Bytes frame, uint32_t gap_usec) {
    now_usec_ += gap_usec;
    Frame f;
    f.ts_sec = uint32_t(now_usec_ / 1000000);
    f.ts_usec = uint32_t(now_usec_ % 1000000);
    f.bytes = std::move(frame);
    frames_.push_back(std::move(f));
}

Host host4(b::Ip4 ip, b::Mac mac) {
    Host h;
    h.ip4 = ip;
    h.mac = mac;
    return h;
}

Host host6(b::Ip6 ip, b::Mac mac) {
    Host h;
    h.v6 = true;
    h.ip6 = ip;
    h.mac = mac;
    return h;
}

Bytes ip_frame(const Host &src, const Host &dst, uint8_t proto, const Bytes &l4, uint16_t ip_id,
               const std::vector<b::VlanTag> &tags) {
    Bytes ip;
    if (src.v6) {
        b::Ipv6Spec s;
        s.src = src.ip6;
        s.dst = dst.ip6;
        ip = b::ipv6(s, proto, l4);
    } else {
        b::Ipv4Spec s;
        s.src = src.ip4;
        s.dst = dst.ip4;
        s.id = ip_id;
        ip = b::ipv4(s, proto, l4);
    }
    return b::ethernet(b::ethertype_of(ip), ip, tags, dst.mac, src.mac);
}

void udp_datagram(Trace &t, const Host &src, uint16_t sport, const Host &dst, uint16_t dport,
                  const Bytes &payload, uint32_t gap_usec) {
    // A per-port id keeps distinct datagrams distinct without global state.
    t.add(ip_frame(src, dst, b::kProtoUdp, b::udp(sport, dport, payload), uint16_t(sport * 7)),
          gap_usec);
}

TcpSession::TcpSession(Trace &trace, Host client, uint16_t cport, Host server, uint16_t sport,
                       uint32_t client_isn, uint32_t server_isn)
    : trace_(trace), client_(client), server_(server), cport_(cport), sport_(sport),
      cseq_(client_isn), sseq_(server_isn) {}

void TcpSession::emit(bool from_client, uint8_t flags, const Bytes &payload,
                      const Bytes &options) {
    b::TcpSpec s;
    s.sport = from_client ? cport_ : sport_;
    s.dport = from_client ? sport_ : cport_;
    s.seq = from_client ? cseq_ : sseq_;
    s.ack = (flags & b::kAck) ? (from_client ? sseq_ : cseq_) : 0;
    s.flags = flags;
    s.options = options;
    const Host &src = from_client ? client_ : server_;
    const Host &dst = from_client ? server_ : client_;
    uint16_t &id = from_client ? cid_ : sid_;
    // Server replies arrive after a WAN round trip, client frames quickly.
    trace_.add(ip_frame(src, dst, b::kProtoTcp, b::tcp(s, payload), id++),
               from_client ? 150 : 12000);
    uint32_t &seq = from_client ? cseq_ : sseq_;
    seq += uint32_t(payload.size()) + ((flags & (b::kSyn | b::kFin)) ? 1 : 0);
}

void TcpSession::handshake() {
    emit(true, b::kSyn, {}, b::tcp_syn_options(1460, 0x01020304));
    emit(false, b::kSyn | b::kAck, {}, b::tcp_syn_options(1460, 0x0a0b0c0d));
    emit(true, b::kAck, {});
}

void TcpSession::send(bool from_client, const Bytes &data) {
    for (size_t off = 0; off < data.size(); off += kMss) {
        const size_t n = std::min(kMss, data.size() - off);
        emit(from_client, b::kAck | b::kPsh, Bytes(data.begin() + long(off), data.begin() + long(off + n)));
        emit(!from_client, b::kAck, {});
    }
}

void TcpSession::client_send(const Bytes &data) { send(true, data); }
void TcpSession::server_send(const Bytes &data) { send(false, data); }

void TcpSession::close() {
    emit(true, b::kFin | b::kAck, {});
    emit(false, b::kFin | b::kAck, {});
    emit(true, b::kAck, {});
}

} // namespace wm::demo
