// plugin/src/capture/encapsulation.cpp - headers that carry one packet
// inside another: GRE (with PPTP's PPP, ERSPAN and Aruba's 802.11), MPLS,
// PPPoE, and the UDP tunnels VXLAN, Geneve, GTP-U, Teredo, AYIYA,
// VXLAN-GPE and MPLS over UDP. See decode_steps.h.
#include "capture/decode_steps.h"

#include <cstring>

namespace wm::capture::steps {
namespace {

// Tunnels entered on the way to the payload, and bounds on the header
// chains a crafted frame could make long.
constexpr int kMaxTunnels = 4;
constexpr int kMaxMplsLabels = 8;
constexpr int kMaxGtpExtensions = 8;

// Inner Ethernet frame at off (14-byte header) within frame f.
int decode_inner_ethernet(const Frame &f, uint64_t off, uint64_t declared_end, wm_packet_t *out) {
    if (int r = need(f, off, 14, declared_end); r >= 0) return r;
    return decode_ethertype(f, off + 14, be16(f.data + off + 12), out);
}

// GTP-U (3GPP TS 29.281) at p, n captured bytes of a UDP payload of
// `declared` bytes: whether it is a G-PDU carrying an IP packet, and then
// its header's length. Echo, error indication and end marker messages are
// GTP's own signalling.
bool gtpu_header(const uint8_t *p, uint64_t n, uint64_t declared, uint64_t *len) {
    // version 1, protocol type GTP (not GTP'); message type G-PDU
    if (n < 8 || (p[0] & 0xf0) != 0x30 || p[1] != 0xff) return false;
    const uint64_t message_end = 8 + uint64_t(be16(p + 2)); // the length counts what follows the first 8 bytes
    if (message_end > declared) return false;
    uint64_t hdr = 8;
    if (p[0] & 0x07) { // E, S or PN: sequence number, N-PDU number, next extension type
        if (n < 12) return false;
        hdr = 12;
        for (int k = 0; p[hdr - 1] != 0; ++k) { // each extension: length in 4-byte units, ..., next type
            if (k == kMaxGtpExtensions || n < hdr + 1 || p[hdr] == 0) return false;
            hdr += uint64_t(p[hdr]) * 4;
            if (n < hdr) return false;
        }
    }
    if (n <= hdr || message_end <= hdr) return false;
    *len = hdr;
    return p[hdr] >> 4 == 4 || p[hdr] >> 4 == 6;
}

// Teredo (RFC 4380) at p, as gtpu_header: no field says "Teredo", so, as
// Suricata does, an IPv6 header whose length is exactly the rest of the
// datagram, after an origin indication if there is one. Authentication
// headers belong to the qualification exchange, not to tunnelled traffic.
bool teredo_header(const uint8_t *p, uint64_t n, uint64_t declared, uint64_t *len) {
    uint64_t hdr = 0;
    if (n >= 2 && p[0] == 0 && p[1] == 0) hdr = 8; // origin indication: port and address
    else if (n >= 1 && p[0] == 0) return false;
    if (n < hdr + 40 || p[hdr] >> 4 != 6 || hdr + 40 + be16(p + hdr + 4) != declared) return false;
    *len = hdr;
    return true;
}

// The tunnel the standard ports name (TunnelPorts::tunnel of the defaults).
UdpTunnel standard_tunnel(uint16_t src_port, uint16_t dst_port) {
    if (dst_port == kVxlanPort) return UdpTunnel::Vxlan;
    if (dst_port == kGenevePort) return UdpTunnel::Geneve;
    if (either_port(src_port, dst_port, kGtpuPort)) return UdpTunnel::Gtpu;
    if (either_port(src_port, dst_port, kTeredoPort)) return UdpTunnel::Teredo;
    if (either_port(src_port, dst_port, kAyiyaPort)) return UdpTunnel::Ayiya;
    if (dst_port == kVxlanGpePort) return UdpTunnel::VxlanGpe;
    if (dst_port == kMplsUdpPort) return UdpTunnel::MplsUdp;
    return UdpTunnel::None;
}

// The C API's kind of a UDP tunnel.
wm_tunnel_kind tunnel_kind(UdpTunnel t) {
    switch (t) {
    case UdpTunnel::Vxlan: return WM_TUNNEL_VXLAN;
    case UdpTunnel::Geneve: return WM_TUNNEL_GENEVE;
    case UdpTunnel::Gtpu: return WM_TUNNEL_GTPU;
    case UdpTunnel::Teredo: return WM_TUNNEL_TEREDO;
    case UdpTunnel::Ayiya: return WM_TUNNEL_AYIYA;
    case UdpTunnel::VxlanGpe: return WM_TUNNEL_VXLAN_GPE;
    default: return WM_TUNNEL_MPLS_UDP; // UdpTunnel::MplsUdp: None never enters a tunnel
    }
}

// Whether n bytes at p start with an MPLS label stack whose bottom entry
// lies within them and within the label limit.
bool mpls_stack_captured(const uint8_t *p, uint64_t n) {
    for (uint64_t k = 0; k < kMaxMplsLabels && 4 * k + 4 <= n; ++k)
        if (p[4 * k + 2] & 1) return true;
    return false;
}

// Aruba's access points tunnel 802.11 frames to their controller in GRE
// with these protocol types (Wireshark's and Zeek's lists).
bool aruba_type(uint16_t type) { return (type >= 0x8200 && type <= 0x8370 && (type & 0xf) == 0) || type == 0x9000; }

} // namespace

// PPTP's GRE, PPPoE and the PPP link type. LCP, IPCP and the like are PPP's
// own traffic.
int decode_ppp(const Frame &f, uint64_t at, uint64_t declared_end, wm_packet_t *out) {
    if (int r = need(f, at, 2, declared_end); r >= 0) return r;
    if (f.data[at] == 0xff && f.data[at + 1] == 0x03) at += 2; // PPP address and control
    if (int r = need(f, at, 1, declared_end); r >= 0) return r;
    uint16_t ppp = f.data[at++];
    if (!(ppp & 1)) { // an uncompressed (2-byte) protocol field
        if (int r = need(f, at, 1, declared_end); r >= 0) return r;
        ppp = uint16_t(ppp << 8 | f.data[at++]);
    }
    if (ppp == 0x21) return decode_ip(f, at, 4, out);
    if (ppp == 0x57) return decode_ip(f, at, 6, out);
    return WM_SKIP_OTHER_PROTO;
}

bool enter_tunnel(const Frame &f, uint64_t declared_end, wm_packet_t *out, Frame *inner, uint8_t carrier,
                  wm_tunnel_kind kind, uint16_t src_port, uint16_t dst_port) {
    if (f.layers->tunnels == kMaxTunnels) return false;
    if (f.layers->tunnels++ == 0) {
        wm_tunnel_t &t = f.layers->outer;
        t.ip_version = out->ip_version; // 0: no IP header before this tunnel (an MPLS pseudowire)
        t.proto = out->ip_version ? carrier : 0;
        t.depth = 0;
        t.kind = static_cast<uint8_t>(kind);
        std::memcpy(t.src_ip, out->src_ip, sizeof t.src_ip);
        std::memcpy(t.dst_ip, out->dst_ip, sizeof t.dst_ip);
        t.src_port = src_port;
        t.dst_port = dst_port;
    }
    std::memset(out->src_ip, 0, sizeof out->src_ip); // an IPv4 inner address fills 4 of the 16 bytes
    std::memset(out->dst_ip, 0, sizeof out->dst_ip);
    *inner = Frame{f.data, declared_end < f.caplen ? declared_end : f.caplen, f.layers, f.ports};
    return true;
}

int decode_ip_tunnel(const Frame &f, uint64_t off, uint64_t declared_end, uint8_t proto, wm_packet_t *out) {
    Frame inner;
    const wm_tunnel_kind kind = proto == kIpProtoGre ? WM_TUNNEL_GRE : WM_TUNNEL_IP_IN_IP;
    if (!enter_tunnel(f, declared_end, out, &inner, proto, kind)) return WM_SKIP_MALFORMED;
    if (proto == kIpProtoGre) return decode_gre(inner, off, declared_end, out);
    return decode_ip(inner, off, proto == kIpProtoIpip ? 4 : 6, out);
}

// RFC 2784/2890 version 0: IPv4, IPv6, MPLS (RFC 4023), transparent
// Ethernet bridging, ERSPAN types I-III, Aruba's 802.11; version 1, PPTP's (RFC 2637): PPP
// carrying IPv4 or IPv6. f is bounded by the packet that carries it.
int decode_gre(const Frame &f, uint64_t off, uint64_t declared_end, wm_packet_t *out) {
    if (int r = need(f, off, 4, declared_end); r >= 0) return r;
    const uint16_t flags = be16(f.data + off), type = be16(f.data + off + 2);
    const int version = flags & 7;
    const bool seq = flags & 0x1000;
    if ((flags & 0x4000) || version > 1) return WM_SKIP_OTHER_PROTO; // RFC 1701 routing, unknown versions
    uint64_t at = off + 4 + ((flags & 0x8000) ? 4 : 0) + ((flags & 0x2000) ? 4 : 0) + (seq ? 4 : 0);
    if (version == 1) { // key (payload length, call id) required; ack number optional
        if (!(flags & 0x2000) || type != 0x880b) return WM_SKIP_OTHER_PROTO;
        at += (flags & 0x0080) ? 4 : 0;
    }
    if (int r = need(f, off, at - off, declared_end); r >= 0) return r;
    if (version == 1) {
        if (be16(f.data + off + 4) == 0) return WM_SKIP_OTHER_PROTO; // an acknowledgement only
        return decode_ppp(f, at, declared_end, out);
    }
    switch (type) {
    case kEtherIpv4: return decode_ip(f, at, 4, out);
    case kEtherIpv6: return decode_ip(f, at, 6, out);
    case kEtherMpls:
    case kEtherMplsMulticast: return decode_mpls(f, at, declared_end, out);
    case 0x6558: break;                // transparent Ethernet bridging: a frame follows
    case 0x88be: at += seq ? 8 : 0; break; // ERSPAN type II (type I: no header, no sequence number)
    case 0x22eb:                           // ERSPAN type III, its O flag: an 8-byte subheader follows
        if (int r = need(f, at, 12, declared_end); r >= 0) return r;
        at += 12 + ((f.data[at + 11] & 1) ? 8 : 0);
        break;
    default:
        if (aruba_type(type)) return decode_ieee80211(f, at, declared_end, out);
        return WM_SKIP_OTHER_PROTO;
    }
    return decode_inner_ethernet(f, at, declared_end, out);
}

// Label stack entries up to the bottom-of-stack bit; then, as Suricata
// guesses: the explicit-null labels say IPv4 (0) or IPv6 (2), else the
// first nibble does, 0 being a pseudowire control word (RFC 4385) before
// an Ethernet frame (a tunnel, like GRE's bridged frames).
int decode_mpls(const Frame &f, uint64_t off, uint64_t declared_end, wm_packet_t *out) {
    for (int labels = 0;; ++labels) {
        if (labels == kMaxMplsLabels) return WM_SKIP_MALFORMED;
        if (int r = need(f, off, 4, declared_end); r >= 0) return r;
        const uint32_t entry = be32(f.data + off);
        off += 4;
        if (!(entry & 0x100)) continue;
        if (entry >> 12 == 0) return decode_ip(f, off, 4, out);
        if (entry >> 12 == 2) return decode_ip(f, off, 6, out);
        if (int r = need(f, off, 1, declared_end); r >= 0) return r;
        switch (f.data[off] >> 4) {
        case 4: return decode_ip(f, off, 4, out);
        case 6: return decode_ip(f, off, 6, out);
        case 0: {
            Frame inner;
            // An Ethernet pseudowire: carried by IP only inside GRE, the tunnel entered before.
            if (!enter_tunnel(f, declared_end, out, &inner, 0, WM_TUNNEL_MPLS_PSEUDOWIRE)) return WM_SKIP_MALFORMED;
            return decode_inner_ethernet(inner, off + 4, declared_end, out);
        }
        default: return WM_SKIP_NOT_IP;
        }
    }
}

// RFC 2516 session stage: version 1, type 1, code 0, session id, length
// (of the PPP frame that follows), then PPP.
int decode_pppoe(const Frame &f, uint64_t off, wm_packet_t *out) {
    if (off + 6 > f.caplen) return WM_SKIP_TRUNCATED;
    const uint8_t *h = f.data + off;
    if (h[0] != 0x11 || h[1] != 0) return WM_SKIP_MALFORMED;
    return decode_ppp(f, off + 6, off + 6 + be16(h + 4), out);
}

int decode_udp_tunnel(const Frame &f, uint64_t start, uint64_t end, uint16_t src_port, uint16_t dst_port,
                      wm_packet_t *out) {
    const uint8_t *p = f.data + start;
    const uint64_t declared = end - start, n = (end < f.caplen ? end : f.caplen) - start;
    enum { kEthernet, kIp, kMpls } carries = kIp;
    int ip_version = 0; // 0: the IP header's own
    uint64_t hdr = 0, inner_end = end;
    const UdpTunnel tunnel = f.ports ? f.ports->tunnel(src_port, dst_port) : standard_tunnel(src_port, dst_port);
    switch (tunnel) {
    case UdpTunnel::Vxlan: // VXLAN (RFC 7348): flags with I (a valid VNI), VNI, a reserved zero byte
        // The I flag alone is any other payload's byte half the time (a DNS
        // reply to port 4789 would vanish into a "frame"): Suricata also
        // wants the reserved byte zero.
        if (n < 8 || !(p[0] & 0x08) || p[7] != 0) return kNotTunnel;
        hdr = 8, carries = kEthernet;
        break;
    case UdpTunnel::Geneve: { // Geneve (RFC 8926): version 0, options, protocol type
        if (n < 8 || (p[0] >> 6) != 0) return kNotTunnel;
        hdr = 8 + uint64_t(p[0] & 0x3f) * 4;
        const uint16_t type = be16(p + 2);
        if (n < hdr || (type != 0x6558 && type != kEtherIpv4 && type != kEtherIpv6)) return kNotTunnel;
        carries = type == 0x6558 ? kEthernet : kIp;
        break;
    }
    case UdpTunnel::Gtpu:
        if (!gtpu_header(p, n, declared, &hdr)) return kNotTunnel;
        inner_end = start + 8 + be16(p + 2);
        break;
    case UdpTunnel::Teredo:
        if (!teredo_header(p, n, declared, &hdr)) return kNotTunnel;
        break;
    case UdpTunnel::Ayiya:
        // AYIYA (as Zeek reads it): identity (2^n bytes) and signature
        // (4n bytes) lengths, opcode forward, next header IPv4 or IPv6.
        if (n < 8 || (p[2] & 0x0f) != 1 || (p[3] != kIpProtoIpip && p[3] != kIpProtoIpv6)) return kNotTunnel;
        hdr = 8 + (uint64_t(1) << (p[0] >> 4)) + uint64_t(p[1] >> 4) * 4;
        if (n <= hdr) return kNotTunnel;
        ip_version = p[3] == kIpProtoIpip ? 4 : 6;
        break;
    case UdpTunnel::VxlanGpe: { // VXLAN-GPE: version 0, I (a valid VNI); P: a next protocol, else Ethernet
        if (n < 8 || (p[0] & 0x30) || !(p[0] & 0x08)) return kNotTunnel;
        hdr = 8;
        switch ((p[0] & 0x04) ? p[3] : 3) {
        case 1: ip_version = 4; break;
        case 2: ip_version = 6; break;
        case 3: carries = kEthernet; break;
        case 5: carries = kMpls; break;
        default: return kNotTunnel; // NSH and the rest: scanned as they are
        }
        break;
    }
    case UdpTunnel::MplsUdp: // MPLS over UDP (RFC 7510): a label stack whose bottom is captured
        if (!mpls_stack_captured(p, n)) return kNotTunnel;
        carries = kMpls;
        break;
    default:
        return kNotTunnel;
    }
    Frame inner;
    if (!enter_tunnel(f, inner_end, out, &inner, kIpProtoUdp, tunnel_kind(tunnel), src_port, dst_port))
        return WM_SKIP_MALFORMED;
    if (carries == kEthernet) return decode_inner_ethernet(inner, start + hdr, inner_end, out);
    if (carries == kMpls) return decode_mpls(inner, start + hdr, inner_end, out);
    return decode_ip(inner, start + hdr, ip_version, out);
}

} // namespace wm::capture::steps
