// plugin/src/stream/frame_layers.h - the header fields the stream layer
// needs and capture/decoder.h does not expose: IP fragmentation fields, and
// TCP sequence number and flags (where the IP header sits in a frame, the
// decoder says: capture::FrameLayers).
//
// Payload extraction stays with decode_frame(); these helpers only read
// what reassembly needs. Like the decoder they never read past caplen.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wm::stream {

struct IpInfo {
    int version = 0;
    uint64_t declared_len = 0;   // whole IP packet by its length field; 0 unknown
    uint8_t proto = 0;           // transport protocol (after the fragment header)
    bool fragment = false;       // a real fragment: offset != 0 or more fragments
    bool more_fragments = false;
    uint32_t frag_offset = 0;    // in bytes
    uint32_t frag_id = 0;
    uint32_t frag_data_offset = 0; // fragmentable data starts here (from the IP header)
    // IPv6: bytes before the fragment header (the unfragmentable part), and
    // the offset of the next-header byte that names the fragment header.
    uint32_t unfrag_len = 0;
    uint32_t frag_nh_offset = 0;
    uint32_t l4_offset = 0;      // transport header (non-fragments only)
};

// Parses an IPv4 or IPv6 header (and IPv6 extension headers) of a packet of
// caplen captured bytes. False when cut short or malformed.
bool parse_ip(const uint8_t *ip, size_t caplen, IpInfo *out);

enum TcpFlag : uint8_t { kTcpFin = 0x01, kTcpSyn = 0x02, kTcpRst = 0x04, kTcpAck = 0x10 };

struct TcpHeader {
    uint32_t seq = 0;
    uint32_t ack = 0;
    uint8_t flags = 0;
    uint32_t header_len = 0;
};

// False when fewer than 20 bytes or a data offset below 5 words.
bool parse_tcp(const uint8_t *tcp, size_t caplen, TcpHeader *out);

} // namespace wm::stream
