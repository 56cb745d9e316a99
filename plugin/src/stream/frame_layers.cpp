#include "stream/frame_layers.h"

namespace wm::stream {
namespace {

inline uint16_t be16(const uint8_t *p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
inline uint32_t be32(const uint8_t *p) {
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

bool parse_ipv6(const uint8_t *ip, size_t caplen, IpInfo *out) {
    if (caplen < 40) return false;
    const uint16_t plen = be16(ip + 4);
    out->declared_len = plen ? 40u + plen : 0;
    uint8_t next = ip[6];
    size_t cur = 40, nh_at = 6;
    for (int i = 0; i < 16; ++i) {
        size_t len;
        switch (next) {
        case 0: case 43: case 60: case 135: case 139: case 140:
            if (cur + 2 > caplen) return false;
            len = (size_t(ip[cur + 1]) + 1) * 8;
            break;
        case 51:
            if (cur + 2 > caplen) return false;
            len = (size_t(ip[cur + 1]) + 2) * 4;
            break;
        case 44: {
            if (cur + 8 > caplen) return false;
            const uint16_t off_m = be16(ip + cur + 2);
            out->frag_offset = uint32_t(off_m >> 3) * 8;
            out->more_fragments = off_m & 1;
            out->frag_id = be32(ip + cur + 4);
            out->fragment = out->frag_offset != 0 || out->more_fragments;
            if (out->fragment) {
                out->proto = ip[cur];
                out->unfrag_len = static_cast<uint32_t>(cur);
                out->frag_nh_offset = static_cast<uint32_t>(nh_at);
                out->frag_data_offset = static_cast<uint32_t>(cur + 8);
                return true;
            }
            len = 8; // atomic fragment: the whole packet follows
            break;
        }
        default:
            out->proto = next;
            out->l4_offset = static_cast<uint32_t>(cur);
            return true;
        }
        if (cur + len > caplen) return false;
        next = ip[cur];
        nh_at = cur;
        cur += len;
    }
    return false;
}

} // namespace

bool parse_ip(const uint8_t *ip, size_t caplen, IpInfo *out) {
    *out = IpInfo{};
    if (caplen < 1) return false;
    out->version = ip[0] >> 4;
    if (out->version == 6) return parse_ipv6(ip, caplen, out);
    if (out->version != 4 || caplen < 20) return false;
    const uint32_t ihl = uint32_t(ip[0] & 0x0f) * 4;
    if (ihl < 20 || ihl > caplen) return false;
    out->declared_len = be16(ip + 2);
    if (out->declared_len != 0 && out->declared_len < ihl) return false;
    const uint16_t frag = be16(ip + 6);
    out->proto = ip[9];
    out->frag_offset = uint32_t(frag & 0x1fff) * 8;
    out->more_fragments = frag & 0x2000;
    out->fragment = (frag & 0x3fff) != 0;
    out->frag_id = be16(ip + 4);
    out->frag_data_offset = ihl;
    out->unfrag_len = ihl;
    out->l4_offset = ihl;
    return true;
}

bool parse_tcp(const uint8_t *tcp, size_t caplen, TcpHeader *out) {
    if (caplen < 20) return false;
    out->seq = be32(tcp + 4);
    out->ack = be32(tcp + 8);
    out->flags = tcp[13];
    out->header_len = uint32_t(tcp[12] >> 4) * 4;
    return out->header_len >= 20;
}

} // namespace wm::stream
