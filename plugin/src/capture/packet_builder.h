// plugin/src/capture/packet_builder.h - craft frames for tests and demos.
//
// Layered helpers: transport (tcp/udp/icmp) -> network (ipv4/ipv6, which
// fill lengths and checksums) -> link (ethernet/sll/sll2/loopback; raw IP
// is the network bytes themselves). Lengths are always consistent unless a
// caller edits the bytes afterwards, which is how tests build broken frames.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace wm::capture::build {

using Bytes = std::vector<uint8_t>;
using Ip4 = std::array<uint8_t, 4>;
using Ip6 = std::array<uint8_t, 16>;
using Mac = std::array<uint8_t, 6>;

Bytes bytes(std::string_view s);
Bytes concat(const Bytes &a, const Bytes &b);
Ip4 ip4(uint8_t a, uint8_t b, uint8_t c, uint8_t d);
// Eight 16-bit groups, e.g. ip6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 1}).
Ip6 ip6(const std::array<uint16_t, 8> &groups);
// An IPv4 address in the 16-byte form of wm_packet_t (rest zero).
Ip6 as16(const Ip4 &a);

// ---- transport ---------------------------------------------------------

enum TcpFlags : uint8_t { kFin = 0x01, kSyn = 0x02, kRst = 0x04, kPsh = 0x08, kAck = 0x10 };

struct TcpSpec {
    uint16_t sport = 0, dport = 0;
    uint32_t seq = 0, ack = 0;
    uint8_t flags = kAck | kPsh;
    uint16_t window = 64240;
    Bytes options; // padded with NOPs to a multiple of 4
};

// TCP header + payload; the checksum is filled in by ipv4()/ipv6().
Bytes tcp(const TcpSpec &spec, const Bytes &payload);
// UDP header + payload; the checksum is filled in by ipv4()/ipv6().
Bytes udp(uint16_t sport, uint16_t dport, const Bytes &payload);
// ICMP (v4) echo request/reply with its checksum.
Bytes icmp_echo(bool request, uint16_t id, uint16_t seq, const Bytes &data);

// TCP options: MSS, SACK permitted, timestamps (with the usual NOP padding).
Bytes tcp_syn_options(uint16_t mss, uint32_t tsval);

// ---- network -----------------------------------------------------------

constexpr uint8_t kProtoIcmp = 1, kProtoTcp = 6, kProtoUdp = 17, kProtoGre = 47;

struct Ipv4Spec {
    Ip4 src{}, dst{};
    uint8_t ttl = 64;
    uint16_t id = 1;
    uint16_t frag = 0x4000; // flags + offset field: DF by default
    Bytes options;          // padded with zeros (EOL) to a multiple of 4
};

// IPv4 header (length, checksum) + l4; fixes the TCP/UDP checksum of l4
// when the packet is not a fragment.
Bytes ipv4(const Ipv4Spec &spec, uint8_t proto, Bytes l4);

// One IPv6 extension header. `body` follows the next-header byte: for the
// options and routing headers it starts with the length byte.
struct ExtHeader {
    uint8_t type;
    Bytes body;
};
ExtHeader hop_by_hop(size_t total_len = 8);  // PadN-filled, total_len % 8 == 0
ExtHeader dest_options(size_t total_len = 8);
ExtHeader routing_header();                  // type 0, segments left 0
ExtHeader fragment_header(uint16_t offset_units, bool more, uint32_t id);

struct Ipv6Spec {
    Ip6 src{}, dst{};
    uint8_t hop_limit = 64;
    std::vector<ExtHeader> ext; // in order, chained automatically
};

// IPv6 header + extension headers + l4; fixes the TCP/UDP checksum.
Bytes ipv6(const Ipv6Spec &spec, uint8_t proto, Bytes l4);

// ---- link --------------------------------------------------------------

struct VlanTag {
    uint16_t tpid = 0x8100; // 0x88a8 / 0x9100 for the outer QinQ tags
    uint16_t tci = 0;
};

constexpr Mac kMacA{0x02, 0x00, 0x00, 0x00, 0x00, 0x0a};
constexpr Mac kMacB{0x02, 0x00, 0x00, 0x00, 0x00, 0x0b};

// 0x0800 or 0x86dd from the IP version nibble.
uint16_t ethertype_of(const Bytes &ip);
// Ethernet II frame, tags outermost first; padded to the 60-byte minimum
// (without FCS) like a real NIC, so decoders must honour IP lengths.
Bytes ethernet(uint16_t ethertype, const Bytes &l3, const std::vector<VlanTag> &tags = {},
               const Mac &dst = kMacB, const Mac &src = kMacA, bool pad = true);
Bytes ethernet_ip(const Bytes &ip, const std::vector<VlanTag> &tags = {});
Bytes sll(uint16_t protocol, const Bytes &l3);  // Linux cooked v1 (16 bytes)
Bytes sll2(uint16_t protocol, const Bytes &l3); // Linux cooked v2 (20 bytes)
// BSD loopback: af in network order, or little-endian host order.
Bytes loopback(uint32_t af, const Bytes &l3, bool network_order);
// ARP request "who has target? tell sender" as an Ethernet broadcast.
Bytes arp_request(const Mac &src, const Ip4 &sender, const Ip4 &target);

// RFC 1071 checksum of data, continuing from a partial sum.
uint16_t internet_checksum(const uint8_t *data, size_t len, uint32_t sum = 0);

} // namespace wm::capture::build
