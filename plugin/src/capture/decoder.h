// plugin/src/capture/decoder.h - link/IP/TCP/UDP frame decoder.
//
// A pure function over one captured frame: no libpcap, no allocation, no
// state. It finds the TCP or UDP payload that the matchers scan and says
// precisely why when there is none, so the capture can count every frame it
// does not deliver. It never reads past caplen (captures are untrusted input).
#pragma once

#include "warpmatch.h"

#include <cstdint>

namespace wm::capture {

class TunnelPorts;

// Link-layer header types accepted by decode_frame(). The values are libpcap's
// DLT_* numbers, spelled out here so the decoder needs no libpcap headers.
// pcap_datalink() maps the file's LINKTYPE_RAW (101) to DLT_RAW (12 on Linux,
// 14 on OpenBSD); all three spellings are accepted.
enum : int {
    kDltNull = 0,        // BSD loopback, 4-byte AF in the capturing host's order
    kDltEthernet = 1,    // DLT_EN10MB
    kDltPpp = 9,         // PPP (address and control, protocol)
    kDltPppSerial = 50,  // PPP in HDLC-like framing (the same header), or Cisco HDLC
    kDltRaw = 12,        // DLT_RAW (Linux and most systems)
    kDltRawOpenBsd = 14, // DLT_RAW on OpenBSD
    kDltLinktypeRaw = 101,
    kDltIeee80211 = 105, // 802.11 frames
    kDltRadiotap = 127,  // 802.11 frames after a radiotap header
    kDltLoop = 108,      // OpenBSD loopback, 4-byte AF in network order
    kDltLinuxSll = 113,
    kDltIpv4 = 228,
    kDltIpv6 = 229,
    kDltLinuxSll2 = 276,
};

// What decode_frame() passed on its way (layers, when given, is filled):
// where the innermost IP header it reached starts (-1: none; the header
// a fragment or TCP segment is parsed from again), the frame's first two
// VLAN ids (outer << 12 | inner; flow_hash_vlans) and how many tags it
// has, both outside any tunnel (a frame carried in GRE, VXLAN, Geneve or
// an MPLS pseudowire keeps its tags to itself), the tunnels entered, and
// the first tunnel's carrier (outer, set only when tunnels > 0; its depth
// is left 0: the tunnels count).
struct FrameLayers {
    int64_t ip_offset = -1;
    uint32_t vlans = 0;
    int vlan_tags = 0;
    int tunnels = 0;
    wm_tunnel_t outer; // uninitialised until a tunnel is entered: not zeroed per frame
};

// The carrier of a frame decoded through tunnels (where.tunnels > 0), with its depth.
inline wm_tunnel_t tunnel_of(const FrameLayers &where) {
    wm_tunnel_t t = where.outer;
    t.depth = static_cast<uint8_t>(where.tunnels);
    return t;
}

// decode_frame() result: kDecodedPayload, or a wm_skip_reason (>= 0).
constexpr int kDecodedPayload = -1;

// Decode one frame of link type dlt (caplen captured bytes at frame).
//
// Returns kDecodedPayload when the frame carries a non-empty TCP/UDP payload:
// then ip_version, proto, src/dst ip and port, flow_id (flow_hash_vlans), payload,
// payload_len and payload_offset of *out are set. vlan and vlan_count are
// set whatever the result (set_packet_vlans). The payload is clipped to
// the captured bytes and excludes Ethernet padding (the IP total / payload
// length and the UDP length are honoured). An IP length of 0 (captures taken
// before TCP segmentation offload, IPv6 jumbograms) means "to the end of
// the captured frame".
//
// Otherwise returns the wm_skip_reason; *out then holds whatever was decoded
// before the decoder stopped (zeroed fields otherwise, payload == nullptr).
// A frame whose payload was cut off entirely by the snap length counts as
// WM_SKIP_TRUNCATED, a header that was cut short likewise.
//
// Only the decode fields above are written; number, timestamps, caplen and
// wirelen belong to the caller.
//
// Link layers carrying IP are passed through: VLAN tags, MPLS label stacks
// (IP after the bottom label, or a pseudowire's Ethernet frame), PPPoE
// sessions, and 802.11 data frames with LLC/SNAP (not encrypted ones, not
// fragments; of an A-MSDU the first subframe). Tunnels are entered (at most
// 4 deep): IPv4 or IPv6 in IP (protocols 4 and 41); GRE carrying IPv4,
// IPv6, MPLS, an Ethernet frame (transparent bridging, ERSPAN types I-III), an
// 802.11 frame (Aruba's types) or, in PPTP's GRE, PPP; and
// UDP tunnels known by port and a valid header: VXLAN (4789), Geneve
// (6081), GTP-U G-PDUs (2152), Teredo (3544), AYIYA (5072), VXLAN-GPE
// (4790) and MPLS over UDP (6635). A UDP
// datagram on those
// ports whose header is not whole in the capture or not valid is an
// ordinary datagram, its payload scanned as is. The innermost packet is the
// one decoded (its addresses, ports, flow id and payload). An inner packet
// that claims more bytes than its tunnel carries reads as cut by the
// capture at the tunnel's end.
//
// ports: the UDP tunnels' ports (capture/tunnel_ports.h); nullptr for the
// standard ones above.
int decode_frame(int dlt, const uint8_t *frame, uint32_t caplen, wm_packet_t *out, FrameLayers *layers = nullptr,
                 const TunnelPorts *ports = nullptr);

// 64-bit hash of the bidirectional 5-tuple: equal for both directions of a
// connection. Addresses are 16 bytes (IPv4 uses the first 4, rest zero).
uint64_t flow_hash(uint8_t ip_version, uint8_t proto, const uint8_t a_ip[16], uint16_t a_port,
                   const uint8_t b_ip[16], uint16_t b_port);

// The flow id of a frame with VLAN ids `vlans` (the 12-bit ids of its first
// two tags, outer << 12 | inner): the 5-tuple's hash mixed with them, the
// hash itself when untagged (0). decode_frame's flow_id is this, so one
// 5-tuple on two VLANs is two flows, as the stream layer keys them.
uint64_t flow_hash_vlans(uint64_t five_tuple_hash, uint32_t vlans);

// pkt's vlan and vlan_count from FrameLayers' vlans and vlan_tags (a
// reassembled datagram takes its last fragment's frame's).
void set_packet_vlans(wm_packet_t *pkt, uint32_t vlans, int tags);

} // namespace wm::capture
