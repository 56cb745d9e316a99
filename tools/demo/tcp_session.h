// tools/demo/tcp_session.h - stateful TCP/UDP conversation builder.
//
// Produces Ethernet frames of believable conversations: a three-way
// handshake with options, data segmented at the MSS with running seq/ack
// numbers, an ACK from the peer for each segment, and a FIN exchange. The
// clock advances a fixed step per frame, so output is deterministic.
#pragma once

#include "capture/packet_builder.h"

#include <cstdint>
#include <vector>

namespace wm::demo {

using capture::build::Bytes;

struct Frame {
    uint32_t ts_sec = 0;
    uint32_t ts_usec = 0;
    Bytes bytes;
};

// Frames in capture order plus the capture clock.
class Trace {
  public:
    explicit Trace(uint64_t start_usec) : now_usec_(start_usec) {}
    // Appends a frame gap_usec after the previous one.
    void add(Bytes frame, uint32_t gap_usec = 300);
    const std::vector<Frame> &frames() const { return frames_; }

  private:
    uint64_t now_usec_;
    std::vector<Frame> frames_;
};

// One side of a conversation: IPv4 or IPv6 address and MAC.
struct Host {
    bool v6 = false;
    capture::build::Ip4 ip4{};
    capture::build::Ip6 ip6{};
    capture::build::Mac mac{};
};
Host host4(capture::build::Ip4 ip, capture::build::Mac mac);
Host host6(capture::build::Ip6 ip, capture::build::Mac mac);

// Builds the IP packet (IPv4 ids counting up per sender) inside an
// Ethernet frame, optionally VLAN-tagged.
Bytes ip_frame(const Host &src, const Host &dst, uint8_t proto, const Bytes &l4,
               uint16_t ip_id, const std::vector<capture::build::VlanTag> &tags = {});

// A UDP datagram src -> dst as one frame.
void udp_datagram(Trace &t, const Host &src, uint16_t sport, const Host &dst, uint16_t dport,
                  const Bytes &payload, uint32_t gap_usec = 300);

class TcpSession {
  public:
    TcpSession(Trace &trace, Host client, uint16_t cport, Host server, uint16_t sport,
               uint32_t client_isn, uint32_t server_isn);
    void handshake();                       // SYN, SYN/ACK, ACK
    void client_send(const Bytes &data);    // data segments, each ACKed
    void server_send(const Bytes &data);
    void close();                           // FIN/ACK both ways, final ACK

  private:
    void send(bool from_client, const Bytes &data);
    void emit(bool from_client, uint8_t flags, const Bytes &payload, const Bytes &options = {});

    Trace &trace_;
    Host client_, server_;
    uint16_t cport_, sport_;
    uint32_t cseq_, sseq_; // next sequence number each side sends
    uint16_t cid_ = 0x1000, sid_ = 0x2000;
};

} // namespace wm::demo
