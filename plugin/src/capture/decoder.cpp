// plugin/src/capture/decoder.cpp - see decoder.h: link layers, IP, TCP and
// UDP. The headers that carry one packet inside another are in
// encapsulation.cpp; the limits every step checks in decode_steps.h.
#include "capture/decode_steps.h"
#include "capture/word_mix.h"

#include <cstring>

namespace wm::capture {
namespace steps {
namespace {

// Bounds on header chains: real traffic has 1-2 VLAN tags and a few IPv6
// extension headers; crafted frames must not make the decoder loop long.
constexpr int kMaxVlanTags = 8;
constexpr int kMaxIpv6ExtHeaders = 16;

constexpr uint16_t kEtherVlan = 0x8100;
constexpr uint16_t kEtherQinQ = 0x88a8;
constexpr uint16_t kEtherQinQOld = 0x9100;
constexpr uint16_t kEtherPppoeSession = 0x8864;


void reset_decoded(wm_packet_t *out) {
    out->ip_version = 0;
    out->proto = WM_PROTO_ANY;
    std::memset(out->src_ip, 0, sizeof out->src_ip);
    std::memset(out->dst_ip, 0, sizeof out->dst_ip);
    out->src_port = 0;
    out->dst_port = 0;
    out->flow_id = 0;
    out->payload = nullptr;
    out->payload_len = 0;
    out->payload_offset = 0;
    out->vlan[0] = out->vlan[1] = 0;
    out->vlan_count = 0;
    out->tunnel = nullptr; // the readers point it at the carrier they keep
}

// An address as flow_hash() loads it from a 16-byte field: two native-order
// words, read here from the frame (an IPv4 address fills the low half of
// the first word). Reading the fields just written to the packet instead
// stalled on store forwarding (perf on the development machine: 27% of the
// hash's samples on that first load).
struct AddrWords {
    uint64_t w0 = 0, w1 = 0;
};
inline AddrWords addr_words(const uint8_t *ip, bool v6) {
    AddrWords a;
    if (v6) {
        std::memcpy(&a.w0, ip, 8);
        std::memcpy(&a.w1, ip + 8, 8);
    } else {
        uint32_t v;
        std::memcpy(&v, ip, 4);
        a.w0 = v; // the bytes of the field's first word on a little-endian machine
    }
    return a;
}
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "addr_words: a little-endian host");

inline uint64_t load64(const uint8_t *p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

uint64_t flow_hash_words(uint8_t ip_version, uint8_t proto, AddrWords a, uint16_t a_port, AddrWords b,
                         uint16_t b_port) {
    // Order the two endpoints canonically so both directions hash alike.
    // (memcmp order: the addresses as two big-endian words)
    const uint64_t a0 = __builtin_bswap64(a.w0), b0 = __builtin_bswap64(b.w0);
    const uint64_t a1 = __builtin_bswap64(a.w1), b1 = __builtin_bswap64(b.w1);
    const bool swap = a0 != b0 ? a0 > b0 : a1 != b1 ? a1 > b1 : a_port > b_port;
    const AddrWords lo = swap ? b : a, hi = swap ? a : b;
    const uint16_t lo_port = swap ? b_port : a_port, hi_port = swap ? a_port : b_port;
    uint64_t h = uint64_t{ip_version} << 56 | uint64_t{proto} << 48 | uint64_t{lo_port} << 16 | hi_port;
    h = mix_word(h, lo.w0);
    h = mix_word(h, lo.w1);
    h = mix_word(h, hi.w0);
    h = mix_word(h, hi.w1);
    return mix_final(h);
}

// The ports, flow id and payload [start, end) of the TCP or UDP packet
// whose header is at l4 (out->proto set).
inline int l4_payload(const Frame &f, uint64_t l4, uint64_t start, uint64_t end, const uint8_t *src,
                      const uint8_t *dst, wm_packet_t *out) {
    out->src_port = be16(f.data + l4);
    out->dst_port = be16(f.data + l4 + 2);
    const bool v6 = out->ip_version == 6;
    out->flow_id = flow_hash_words(out->ip_version, out->proto, addr_words(src, v6), out->src_port,
                                   addr_words(dst, v6), out->dst_port);
    if (start == end) return WM_SKIP_NO_PAYLOAD;
    const uint64_t captured_end = end < f.caplen ? end : f.caplen;
    // The snap length cut the frame before the first payload byte.
    if (captured_end <= start) return WM_SKIP_TRUNCATED;
    out->payload = f.data + start;
    out->payload_len = static_cast<uint32_t>(captured_end - start);
    out->payload_offset = static_cast<uint32_t>(start);
    return kDecodedPayload;
}

// A datagram on a UDP tunnel's port: the tunnel, or an ordinary datagram.
// Out of line and called last, so decode_l4 keeps nothing across a call
// (its prologue had grown by five instructions a packet).
__attribute__((noinline)) int udp_on_tunnel_port(const Frame &f, uint64_t l4, uint64_t start, uint64_t end,
                                                 const uint8_t *src, const uint8_t *dst, wm_packet_t *out) {
    const int tunnelled = decode_udp_tunnel(f, start, end, be16(f.data + l4), be16(f.data + l4 + 2), out);
    if (tunnelled != kNotTunnel) return tunnelled;
    out->proto = WM_PROTO_UDP;
    return l4_payload(f, l4, start, end, src, dst, out);
}

// TCP or UDP header at l4 (or a tunnel's inner packet); the packet ends at
// declared_end. src/dst: the addresses in the frame (16 bytes with v6, else 4).
int decode_l4(const Frame &f, uint64_t l4, uint64_t declared_end, uint8_t proto, const uint8_t *src,
              const uint8_t *dst, wm_packet_t *out) {
    if (proto == kIpProtoTcp) {
        if (int r = need(f, l4, 20, declared_end); r >= 0) return r;
        const uint64_t hdr = uint64_t(f.data[l4 + 12] >> 4) * 4;
        if (hdr < 20) return WM_SKIP_MALFORMED;
        if (int r = need(f, l4, hdr, declared_end); r >= 0) return r;
        out->proto = WM_PROTO_TCP;
        return l4_payload(f, l4, l4 + hdr, declared_end, src, dst, out);
    }
    if (proto == kIpProtoUdp) {
        if (int r = need(f, l4, 8, declared_end); r >= 0) return r;
        const uint64_t udp_len = be16(f.data + l4 + 4);
        // UDP length 0 (jumbograms) and lengths past the IP packet are
        // impossible here; a shorter one leaves trailing bytes we ignore.
        if (udp_len < 8 || l4 + udp_len > declared_end) return WM_SKIP_MALFORMED;
        if (udp_tunnel_port(f, be16(f.data + l4), be16(f.data + l4 + 2)))
            return udp_on_tunnel_port(f, l4, l4 + 8, l4 + udp_len, src, dst, out);
        out->proto = WM_PROTO_UDP;
        return l4_payload(f, l4, l4 + 8, l4 + udp_len, src, dst, out);
    }
    if (proto == kIpProtoIpip || proto == kIpProtoIpv6 || proto == kIpProtoGre)
        return decode_ip_tunnel(f, l4, declared_end, proto, out);
    return WM_SKIP_OTHER_PROTO;
}

int decode_ipv4(const Frame &f, uint64_t off, wm_packet_t *out) {
    if (off + 20 > f.caplen) return WM_SKIP_TRUNCATED;
    const uint8_t *ip = f.data + off;
    if ((ip[0] >> 4) != 4) return WM_SKIP_MALFORMED;
    const uint64_t ihl = uint64_t(ip[0] & 0x0f) * 4;
    // Total length 0: captured on the sender before TCP segmentation
    // offload filled it in (Zeek does the same). The packet then runs to
    // the end of the capture; a real zero length is impossible anyway.
    const uint64_t total = be16(ip + 2) != 0 ? be16(ip + 2) : kUnknownLength;
    if (ihl < 20 || total < ihl) return WM_SKIP_MALFORMED;
    if (off + ihl > f.caplen) return WM_SKIP_TRUNCATED; // options cut off
    f.layers->ip_offset = int64_t(off);
    out->ip_version = 4;
    std::memcpy(out->src_ip, ip + 12, 4);
    std::memcpy(out->dst_ip, ip + 16, 4);
    // MF set or a non-zero offset: only the first fragment has the L4
    // header and none has the whole payload; we do not reassemble.
    if (be16(ip + 6) & 0x3fff) return WM_SKIP_FRAGMENT;
    return decode_l4(f, off + ihl, off + total, ip[9], ip + 12, ip + 16, out);
}

int decode_ipv6(const Frame &f, uint64_t off, wm_packet_t *out) {
    if (off + 40 > f.caplen) return WM_SKIP_TRUNCATED;
    const uint8_t *ip = f.data + off;
    if ((ip[0] >> 4) != 6) return WM_SKIP_MALFORMED;
    // Payload length 0 with headers following: a jumbogram or a TSO
    // capture (see decode_ipv4); the packet runs to the end of the capture.
    const uint16_t plen = be16(ip + 4);
    const uint64_t declared_end = off + 40 + (plen == 0 && ip[6] != 59 ? kUnknownLength : plen);
    f.layers->ip_offset = int64_t(off);
    out->ip_version = 6;
    std::memcpy(out->src_ip, ip + 8, 16);
    std::memcpy(out->dst_ip, ip + 24, 16);
    uint8_t next = ip[6];
    uint64_t cur = off + 40;
    for (int i = 0; i < kMaxIpv6ExtHeaders; ++i) {
        uint64_t len;
        switch (next) {
        case 0:   // hop-by-hop options
        case 43:  // routing
        case 60:  // destination options
        case 135: // mobility
        case 139: // HIP
        case 140: // shim6
            if (int r = need(f, cur, 2, declared_end); r >= 0) return r;
            len = (uint64_t(f.data[cur + 1]) + 1) * 8;
            break;
        case 51: // AH: length in 4-octet units, minus 2
            if (int r = need(f, cur, 2, declared_end); r >= 0) return r;
            len = (uint64_t(f.data[cur + 1]) + 2) * 4;
            break;
        case 44: { // fragment: any real fragment (offset or M) is skipped
            if (int r = need(f, cur, 8, declared_end); r >= 0) return r;
            const uint16_t off_m = be16(f.data + cur + 2);
            if ((off_m >> 3) != 0 || (off_m & 1)) return WM_SKIP_FRAGMENT;
            len = 8; // atomic fragment: the whole packet follows
            break;
        }
        default:
            return decode_l4(f, cur, declared_end, next, ip + 8, ip + 24, out);
        }
        if (int r = need(f, cur, len, declared_end); r >= 0) return r;
        next = f.data[cur];
        cur += len;
    }
    return WM_SKIP_MALFORMED;
}

} // namespace

int decode_ip(const Frame &f, uint64_t off, int version, wm_packet_t *out) {
    if (off + 1 > f.caplen) return WM_SKIP_TRUNCATED;
    const int actual = f.data[off] >> 4;
    if (version != 0 && actual != version) return WM_SKIP_MALFORMED;
    if (actual == 4) return decode_ipv4(f, off, out);
    if (actual == 6) return decode_ipv6(f, off, out);
    return WM_SKIP_MALFORMED;
}

// type is the ethertype read just before off; VLAN tags (802.1Q, 802.1ad
// and the pre-standard 0x9100) are peeled off, any depth up to the bound.
// The frame's first two VLAN ids are recorded for the flow id
// (flow_hash_vlans); tags of a frame carried in a tunnel are not: a
// reassembled datagram has only its frame's to go by.
int decode_ethertype(const Frame &f, uint64_t off, uint16_t type, wm_packet_t *out) {
    // Untagged IPv4 first, before the tag loop takes registers to save.
    if (type == kEtherIpv4) return decode_ip(f, off, 4, out);
    for (int tags = 0; type == kEtherVlan || type == kEtherQinQ || type == kEtherQinQOld; ++tags) {
        if (tags == kMaxVlanTags) return WM_SKIP_MALFORMED;
        if (off + 4 > f.caplen) return WM_SKIP_TRUNCATED;
        if (f.layers->tunnels == 0 && f.layers->vlan_tags++ < 2)
            f.layers->vlans = (f.layers->vlans << 12) | (be16(f.data + off) & 0x0fffu);
        type = be16(f.data + off + 2); // after the 2-byte TCI
        off += 4;
    }
    if (type == kEtherIpv4) return decode_ip(f, off, 4, out); // the common case before the switch's compares
    switch (type) {
    case kEtherIpv6: return decode_ip(f, off, 6, out);
    case kEtherMpls:
    case kEtherMplsMulticast: return decode_mpls(f, off, kUnknownLength, out);
    case kEtherPppoeSession: return decode_pppoe(f, off, out);
    default: return WM_SKIP_NOT_IP; // ARP, LLDP, 802.3 length field, PPPoE discovery, ...
    }
}

// Frame control: version 0, type data; subtypes with the no-data bit
// (null, CF-ack, CF-poll) have no body. The header grows by a fourth
// address (to and from the distribution system), QoS control (QoS
// subtypes) and HT control (QoS with the order bit). An A-MSDU carries
// subframes (destination, source, length, LLC); the first is decoded.
// Encrypted bodies (the protected bit) cannot be read; fragments (more
// fragments, or a fragment number) are not reassembled.
int decode_ieee80211(const Frame &f, uint64_t off, uint64_t declared_end, wm_packet_t *out) {
    if (int r = need(f, off, 24, declared_end); r >= 0) return r;
    const uint8_t fc0 = f.data[off], fc1 = f.data[off + 1];
    if ((fc0 & 0x0f) != 0x08 || (fc0 & 0x40) || (fc1 & 0x40)) return WM_SKIP_NOT_IP;
    if ((fc1 & 0x04) || (f.data[off + 22] & 0x0f)) return WM_SKIP_FRAGMENT;
    uint64_t at = off + 24 + ((fc1 & 0x03) == 0x03 ? 6 : 0);
    bool amsdu = false;
    if (fc0 & 0x80) {
        if (int r = need(f, at, 2, declared_end); r >= 0) return r;
        amsdu = f.data[at] & 0x80;
        at += 2 + ((fc1 & 0x80) ? 4 : 0);
    }
    Frame body = f;
    if (amsdu) {
        if (int r = need(f, at, 14, declared_end); r >= 0) return r;
        const uint64_t subframe_end = at + 14 + be16(f.data + at + 12);
        if (subframe_end > declared_end) return WM_SKIP_MALFORMED;
        declared_end = subframe_end;
        if (declared_end < body.caplen) body.caplen = declared_end;
        at += 14;
    }
    if (int r = need(body, at, 8, declared_end); r >= 0) return r;
    const uint8_t *llc = f.data + at;
    if (be32(llc) != 0xaaaa0300 || llc[4] != 0 || llc[5] != 0) return WM_SKIP_NOT_IP; // LLC/SNAP, an ethertype
    return decode_ethertype(body, at + 8, be16(llc + 6), out);
}

namespace {

// BSD loopback: the 4-byte address family is in the capturing host's byte
// order (DLT_NULL) or network order (DLT_LOOP); either is accepted, since
// the file gives no reliable hint. AF_INET6 differs between BSDs.
int decode_loopback(const Frame &f, wm_packet_t *out) {
    if (f.caplen < 4) return WM_SKIP_TRUNCATED;
    const uint8_t *p = f.data;
    const uint32_t be = (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
    const uint32_t le = (uint32_t(p[3]) << 24) | (uint32_t(p[2]) << 16) | (uint32_t(p[1]) << 8) | p[0];
    auto is_inet6 = [](uint32_t af) { return af == 24 || af == 28 || af == 30; };
    if (be == 2 || le == 2) return decode_ip(f, 4, 4, out);
    if (is_inet6(be) || is_inet6(le)) return decode_ip(f, 4, 6, out);
    return WM_SKIP_NOT_IP;
}

int decode_link(int dlt, const Frame &f, wm_packet_t *out) {
    const uint8_t *frame = f.data;
    const uint64_t caplen = f.caplen;
    if (dlt == kDltEthernet) { // the common case before the switch's compares
        if (caplen < 14) return WM_SKIP_TRUNCATED;
        return decode_ethertype(f, 14, be16(frame + 12), out);
    }
    switch (dlt) {
    case kDltLinuxSll: // 16-byte cooked header, protocol last
        if (caplen < 16) return WM_SKIP_TRUNCATED;
        return decode_ethertype(f, 16, be16(frame + 14), out);
    case kDltLinuxSll2: // 20-byte cooked header, protocol first
        if (caplen < 20) return WM_SKIP_TRUNCATED;
        return decode_ethertype(f, 20, be16(frame), out);
    case kDltRaw:
    case kDltRawOpenBsd:
    case kDltLinktypeRaw:
        return decode_ip(f, 0, 0, out);
    case kDltIpv4:
        return decode_ip(f, 0, 4, out);
    case kDltIpv6:
        return decode_ip(f, 0, 6, out);
    case kDltNull:
    case kDltLoop:
        return decode_loopback(f, out);
    case kDltIeee80211:
        return decode_ieee80211(f, 0, kUnknownLength, out);
    case kDltRadiotap: { // a little-endian header length first; the frame may end in its FCS
        if (caplen < 4) return WM_SKIP_TRUNCATED;
        const uint16_t len = le16(frame + 2);
        if (len < 8) return WM_SKIP_MALFORMED;
        return decode_ieee80211(f, len, kUnknownLength, out);
    }
    case kDltPppSerial: // or Cisco HDLC: address 0x0f/0x8f, control 0, an ethertype
        if (caplen >= 4 && (frame[0] == 0x0f || frame[0] == 0x8f) && frame[1] == 0)
            return decode_ethertype(f, 4, be16(frame + 2), out);
        return decode_ppp(f, 0, kUnknownLength, out);
    case kDltPpp:
        return decode_ppp(f, 0, kUnknownLength, out);
    default:
        return WM_SKIP_UNSUPPORTED_LINK;
    }
}

} // namespace
} // namespace steps

using namespace steps;

int decode_frame(int dlt, const uint8_t *frame, uint32_t caplen, wm_packet_t *out, FrameLayers *layers,
                 const TunnelPorts *ports) {
    reset_decoded(out);
    FrameLayers own;
    FrameLayers *l = layers ? layers : &own;
    l->ip_offset = -1; // field by field: outer is written only when a tunnel is entered
    l->vlans = 0;
    l->vlan_tags = 0;
    l->tunnels = 0;
    const int rc = decode_link(dlt, Frame{frame, frame ? caplen : 0u, l, ports}, out);
    if (l->vlan_tags > 0) {
        set_packet_vlans(out, l->vlans, l->vlan_tags);
        if (l->vlans != 0 && out->flow_id != 0) out->flow_id = flow_hash_vlans(out->flow_id, l->vlans);
    }
    return rc;
}

uint64_t flow_hash(uint8_t ip_version, uint8_t proto, const uint8_t a_ip[16], uint16_t a_port,
                   const uint8_t b_ip[16], uint16_t b_port) {
    return flow_hash_words(ip_version, proto, AddrWords{load64(a_ip), load64(a_ip + 8)}, a_port,
                           AddrWords{load64(b_ip), load64(b_ip + 8)}, b_port);
}

void set_packet_vlans(wm_packet_t *pkt, uint32_t vlans, int tags) {
    pkt->vlan_count = uint8_t(tags < 2 ? tags : 2);
    pkt->vlan[0] = uint16_t(pkt->vlan_count == 2 ? vlans >> 12 : vlans);
    pkt->vlan[1] = uint16_t(pkt->vlan_count == 2 ? vlans & 0xfff : 0);
}

uint64_t flow_hash_vlans(uint64_t five_tuple_hash, uint32_t vlans) {
    return vlans == 0 ? five_tuple_hash : mix_final(mix_word(five_tuple_hash, vlans));
}

} // namespace wm::capture
