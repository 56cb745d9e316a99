// plugin/src/capture/decode_steps.h - the decoder's steps, shared by
// decoder.cpp (link, IP, TCP/UDP) and encapsulation.cpp (the headers that
// carry one packet inside another: GRE, MPLS, PPPoE, UDP tunnels). Internal
// to the capture library; decode_frame() (decoder.h) is the interface.
//
// Every step checks two limits before reading a header:
//   declared  the end of the IP packet by its own length fields; a header
//             that does not fit is impossible -> WM_SKIP_MALFORMED;
//   caplen    the end of what was captured; a header past it was cut by the
//             snap length -> WM_SKIP_TRUNCATED.
// Offsets are 64-bit so that off + length never wraps.
#pragma once

#include "capture/decoder.h"
#include "capture/tunnel_ports.h"

#include <cstdint>

namespace wm::capture::steps {

// Declared length of a packet whose length field is 0 (see decode_ipv4),
// and of link-level headers, which declare none: past any caplen, so only
// the capture bounds it and a cut header still reads as truncated.
constexpr uint64_t kUnknownLength = uint64_t(1) << 32;

constexpr uint16_t kEtherIpv4 = 0x0800;
constexpr uint16_t kEtherIpv6 = 0x86dd;
constexpr uint16_t kEtherMpls = 0x8847;
constexpr uint16_t kEtherMplsMulticast = 0x8848;

constexpr uint8_t kIpProtoIpip = 4;
constexpr uint8_t kIpProtoTcp = 6;
constexpr uint8_t kIpProtoUdp = 17;
constexpr uint8_t kIpProtoIpv6 = 41;
constexpr uint8_t kIpProtoGre = 47;

// Byte-wise big-endian loads: no alignment requirement, no UB.
inline uint16_t be16(const uint8_t *p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
inline uint32_t be32(const uint8_t *p) { return uint32_t(be16(p)) << 16 | be16(p + 2); }
inline uint16_t le16(const uint8_t *p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); } // radiotap

struct Frame {
    const uint8_t *data;
    uint64_t caplen;
    FrameLayers *layers;      // filled on the way in
    const TunnelPorts *ports; // the UDP tunnels' ports; nullptr: the standard ones
};

// Checks that [off, off + len) lies inside the packet (declared) and inside
// the capture; returns -1 when it does, else the skip reason.
inline int need(const Frame &f, uint64_t off, uint64_t len, uint64_t declared_end) {
    if (off + len > declared_end) return WM_SKIP_MALFORMED;
    if (off + len > f.caplen) return WM_SKIP_TRUNCATED;
    return -1;
}

// decoder.cpp
// An IP header at off; version: 4 or 6 when the carrier said which, 0 to
// take the header's own.
int decode_ip(const Frame &f, uint64_t off, int version, wm_packet_t *out);
// What follows the ethertype `type` read just before off (VLAN tags first).
int decode_ethertype(const Frame &f, uint64_t off, uint16_t type, wm_packet_t *out);

// An IEEE 802.11 data frame at off (DLT 105, radiotap, Aruba's GRE).
int decode_ieee80211(const Frame &f, uint64_t off, uint64_t declared_end, wm_packet_t *out);

// encapsulation.cpp
// Enters a tunnel whose packet ends at declared_end: *inner is the frame
// its inner packet is decoded in (bounded there). False past the depth
// limit (the frame is then malformed). The first tunnel's carrier (out's
// addresses so far, IP protocol `carrier`, the tunnel's kind, a UDP
// tunnel's ports) goes to f.layers->outer.
bool enter_tunnel(const Frame &f, uint64_t declared_end, wm_packet_t *out, Frame *inner, uint8_t carrier,
                  wm_tunnel_kind kind, uint16_t src_port = 0, uint16_t dst_port = 0);
// The tunnel of IP protocol `proto` (4, 41: IP in IP; 47: GRE) at off, the
// packet carrying it ending at declared_end. Out of line: decode_l4 stays
// lean for TCP and UDP.
int decode_ip_tunnel(const Frame &f, uint64_t off, uint64_t declared_end, uint8_t proto, wm_packet_t *out);
// GRE at off, the packet carrying it ending at declared_end.
int decode_gre(const Frame &f, uint64_t off, uint64_t declared_end, wm_packet_t *out);
// An MPLS label stack at off (ethertypes 0x8847 and 0x8848, after a link
// header or in GRE), the packet carrying it ending at declared_end.
int decode_mpls(const Frame &f, uint64_t off, uint64_t declared_end, wm_packet_t *out);
// PPP at at: the address and control bytes if present, then a full or
// compressed protocol field; IPv4 and IPv6 go on.
int decode_ppp(const Frame &f, uint64_t at, uint64_t declared_end, wm_packet_t *out);
// A PPPoE session header at off (ethertype 0x8864).
int decode_pppoe(const Frame &f, uint64_t off, wm_packet_t *out);

// The UDP tunnels' standard ports (kVxlanPort etc., tunnel_ports.h) are
// tested inline below when no TunnelPorts is given.
inline bool either_port(uint16_t src_port, uint16_t dst_port, uint16_t port) {
    return src_port == port || dst_port == port;
}
// Whether a datagram's ports are a UDP tunnel's (decode_udp_tunnel then
// checks its header): the test every UDP packet takes, kept inline.
inline bool udp_tunnel_port(const Frame &f, uint16_t src_port, uint16_t dst_port) {
    if (f.ports) return f.ports->maybe(src_port, dst_port);
    return dst_port == kVxlanPort || dst_port == kGenevePort || dst_port == kVxlanGpePort ||
           dst_port == kMplsUdpPort || either_port(src_port, dst_port, kGtpuPort) ||
           either_port(src_port, dst_port, kTeredoPort) || either_port(src_port, dst_port, kAyiyaPort);
}
// Result of decode_udp_tunnel() for a datagram that is not a tunnel.
constexpr int kNotTunnel = -2;
// The UDP payload [start, end) (end by the UDP length) as a tunnel, known
// by its port and a whole, valid header in the capture: VXLAN, Geneve,
// GTP-U, Teredo, AYIYA, VXLAN-GPE, MPLS over UDP. kNotTunnel otherwise: the payload is then scanned
// as is.
int decode_udp_tunnel(const Frame &f, uint64_t start, uint64_t end, uint16_t src_port, uint16_t dst_port,
                      wm_packet_t *out);

} // namespace wm::capture::steps
