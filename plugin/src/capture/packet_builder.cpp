// plugin/src/capture/packet_builder.cpp - see packet_builder.h.
#include "capture/packet_builder.h"

#include <stdexcept>

namespace wm::capture::build {
namespace {

void put16(Bytes &b, size_t at, uint16_t v) {
    b[at] = uint8_t(v >> 8);
    b[at + 1] = uint8_t(v);
}
void push16(Bytes &b, uint16_t v) {
    b.push_back(uint8_t(v >> 8));
    b.push_back(uint8_t(v));
}
void push32(Bytes &b, uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(v >> s));
}

uint32_t partial_sum(const uint8_t *data, size_t len, uint32_t sum) {
    for (size_t i = 0; i + 1 < len; i += 2) sum += uint32_t(data[i] << 8 | data[i + 1]);
    if (len & 1) sum += uint32_t(data[len - 1]) << 8;
    return sum;
}

// Fill the TCP/UDP checksum of l4 given the pseudo-header's partial sum.
void fix_l4_checksum(Bytes &l4, uint8_t proto, uint32_t pseudo) {
    size_t at;
    if (proto == kProtoTcp && l4.size() >= 20) at = 16;
    else if (proto == kProtoUdp && l4.size() >= 8) at = 6;
    else return;
    put16(l4, at, 0);
    uint16_t c = internet_checksum(l4.data(), l4.size(), pseudo);
    if (proto == kProtoUdp && c == 0) c = 0xffff; // 0 means "no checksum"
    put16(l4, at, c);
}

ExtHeader options_header(uint8_t type, size_t total_len) {
    if (total_len < 8 || total_len % 8 != 0 || total_len > 2048)
        throw std::invalid_argument("IPv6 options header length must be 8..2048, multiple of 8");
    ExtHeader h{type, {}};
    h.body.push_back(uint8_t(total_len / 8 - 1));
    // total_len - 2 bytes of PadN: type 1, length, zeros.
    h.body.push_back(1);
    h.body.push_back(uint8_t(total_len - 4));
    h.body.resize(total_len - 1, 0);
    return h;
}

} // namespace

uint16_t internet_checksum(const uint8_t *data, size_t len, uint32_t sum) {
    sum = partial_sum(data, len, sum);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return uint16_t(~sum);
}

Bytes bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }

Bytes concat(const Bytes &a, const Bytes &b) {
    Bytes r = a;
    r.insert(r.end(), b.begin(), b.end());
    return r;
}

Ip4 ip4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) { return {a, b, c, d}; }

Ip6 ip6(const std::array<uint16_t, 8> &groups) {
    Ip6 r{};
    for (size_t i = 0; i < 8; ++i) {
        r[2 * i] = uint8_t(groups[i] >> 8);
        r[2 * i + 1] = uint8_t(groups[i]);
    }
    return r;
}

Ip6 as16(const Ip4 &a) {
    Ip6 r{};
    for (size_t i = 0; i < 4; ++i) r[i] = a[i];
    return r;
}

Bytes tcp(const TcpSpec &s, const Bytes &payload) {
    Bytes opts = s.options;
    while (opts.size() % 4 != 0) opts.push_back(1); // NOP
    if (opts.size() > 40) throw std::invalid_argument("TCP options longer than 40 bytes");
    Bytes b;
    push16(b, s.sport);
    push16(b, s.dport);
    push32(b, s.seq);
    push32(b, s.ack);
    b.push_back(uint8_t(((20 + opts.size()) / 4) << 4));
    b.push_back(s.flags);
    push16(b, s.window);
    push16(b, 0); // checksum
    push16(b, 0); // urgent pointer
    b.insert(b.end(), opts.begin(), opts.end());
    b.insert(b.end(), payload.begin(), payload.end());
    return b;
}

Bytes tcp_syn_options(uint16_t mss, uint32_t tsval) {
    Bytes o{2, 4, uint8_t(mss >> 8), uint8_t(mss)}; // MSS
    o.insert(o.end(), {1, 1, 4, 2});                // NOP NOP SACK-permitted
    o.insert(o.end(), {1, 1, 8, 10});               // NOP NOP timestamps
    push32(o, tsval);
    push32(o, 0);
    return o;
}

Bytes udp(uint16_t sport, uint16_t dport, const Bytes &payload) {
    Bytes b;
    push16(b, sport);
    push16(b, dport);
    push16(b, uint16_t(8 + payload.size()));
    push16(b, 0);
    b.insert(b.end(), payload.begin(), payload.end());
    return b;
}

Bytes icmp_echo(bool request, uint16_t id, uint16_t seq, const Bytes &data) {
    Bytes b{uint8_t(request ? 8 : 0), 0, 0, 0};
    push16(b, id);
    push16(b, seq);
    b.insert(b.end(), data.begin(), data.end());
    put16(b, 2, internet_checksum(b.data(), b.size()));
    return b;
}

Bytes ipv4(const Ipv4Spec &s, uint8_t proto, Bytes l4) {
    Bytes opts = s.options;
    while (opts.size() % 4 != 0) opts.push_back(0);
    if (opts.size() > 40) throw std::invalid_argument("IPv4 options longer than 40 bytes");
    const size_t ihl = 20 + opts.size();
    Bytes b;
    b.push_back(uint8_t(0x40 | ihl / 4));
    b.push_back(0); // DSCP/ECN
    push16(b, uint16_t(ihl + l4.size()));
    push16(b, s.id);
    push16(b, s.frag);
    b.push_back(s.ttl);
    b.push_back(proto);
    push16(b, 0);
    b.insert(b.end(), s.src.begin(), s.src.end());
    b.insert(b.end(), s.dst.begin(), s.dst.end());
    b.insert(b.end(), opts.begin(), opts.end());
    put16(b, 10, internet_checksum(b.data(), b.size()));
    if ((s.frag & 0x3fff) == 0) {
        uint32_t pseudo = partial_sum(s.src.data(), 4, 0);
        pseudo = partial_sum(s.dst.data(), 4, pseudo);
        pseudo += proto + uint32_t(l4.size());
        fix_l4_checksum(l4, proto, pseudo);
    }
    return concat(b, l4);
}

ExtHeader hop_by_hop(size_t total_len) { return options_header(0, total_len); }
ExtHeader dest_options(size_t total_len) { return options_header(60, total_len); }
ExtHeader routing_header() { return {43, {0, 0, 0, 0, 0, 0, 0}}; }

ExtHeader fragment_header(uint16_t offset_units, bool more, uint32_t id) {
    ExtHeader h{44, {0}};
    push16(h.body, uint16_t(offset_units << 3 | (more ? 1 : 0)));
    push32(h.body, id);
    return h;
}

Bytes ipv6(const Ipv6Spec &s, uint8_t proto, Bytes l4) {
    Bytes ext;
    for (size_t i = 0; i < s.ext.size(); ++i) {
        ext.push_back(i + 1 < s.ext.size() ? s.ext[i + 1].type : proto);
        ext.insert(ext.end(), s.ext[i].body.begin(), s.ext[i].body.end());
    }
    Bytes b{0x60, 0, 0, 0};
    push16(b, uint16_t(ext.size() + l4.size()));
    b.push_back(s.ext.empty() ? proto : s.ext.front().type);
    b.push_back(s.hop_limit);
    b.insert(b.end(), s.src.begin(), s.src.end());
    b.insert(b.end(), s.dst.begin(), s.dst.end());
    uint32_t pseudo = partial_sum(s.src.data(), 16, 0);
    pseudo = partial_sum(s.dst.data(), 16, pseudo);
    pseudo += proto + uint32_t(l4.size());
    fix_l4_checksum(l4, proto, pseudo);
    b.insert(b.end(), ext.begin(), ext.end());
    return concat(b, l4);
}

uint16_t ethertype_of(const Bytes &ip) {
    return !ip.empty() && (ip[0] >> 4) == 6 ? 0x86dd : 0x0800;
}

Bytes ethernet(uint16_t ethertype, const Bytes &l3, const std::vector<VlanTag> &tags,
               const Mac &dst, const Mac &src, bool pad) {
    Bytes b(dst.begin(), dst.end());
    b.insert(b.end(), src.begin(), src.end());
    for (const VlanTag &t : tags) {
        push16(b, t.tpid);
        push16(b, t.tci);
    }
    push16(b, ethertype);
    b.insert(b.end(), l3.begin(), l3.end());
    if (pad && b.size() < 60) b.resize(60, 0);
    return b;
}

Bytes ethernet_ip(const Bytes &ip, const std::vector<VlanTag> &tags) {
    return ethernet(ethertype_of(ip), ip, tags);
}

Bytes sll(uint16_t protocol, const Bytes &l3) {
    Bytes b;
    push16(b, 0);     // packet type: to us
    push16(b, 1);     // ARPHRD_ETHER
    push16(b, 6);     // address length
    b.insert(b.end(), kMacA.begin(), kMacA.end());
    push16(b, 0);     // address padded to 8 bytes
    push16(b, protocol);
    return concat(b, l3);
}

Bytes sll2(uint16_t protocol, const Bytes &l3) {
    Bytes b;
    push16(b, protocol);
    push16(b, 0);     // reserved
    push32(b, 2);     // interface index
    push16(b, 1);     // ARPHRD_ETHER
    b.push_back(0);   // packet type
    b.push_back(6);   // address length
    b.insert(b.end(), kMacA.begin(), kMacA.end());
    push16(b, 0);
    return concat(b, l3);
}

Bytes loopback(uint32_t af, const Bytes &l3, bool network_order) {
    Bytes b;
    if (network_order) {
        push32(b, af);
    } else {
        for (int s = 0; s < 32; s += 8) b.push_back(uint8_t(af >> s));
    }
    return concat(b, l3);
}

Bytes arp_request(const Mac &src, const Ip4 &sender, const Ip4 &target) {
    Bytes a;
    push16(a, 1);      // hardware: Ethernet
    push16(a, 0x0800); // protocol: IPv4
    a.push_back(6);
    a.push_back(4);
    push16(a, 1);      // request
    a.insert(a.end(), src.begin(), src.end());
    a.insert(a.end(), sender.begin(), sender.end());
    a.insert(a.end(), 6, 0);
    a.insert(a.end(), target.begin(), target.end());
    const Mac broadcast{0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    return ethernet(0x0806, a, {}, broadcast, src);
}

} // namespace wm::capture::build
