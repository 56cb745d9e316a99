// tests/fuzz/fuzz_streams.cpp - up to four TCP connections, each direction a
// known stream with signatures placed in it, cut into segments that arrive
// interleaved, reordered and duplicated, over IPv4 or IPv6, some segments in
// IP fragments, some frames VLAN-tagged, each connection closed by FINs or by
// an RST (after its data, or mid-stream with the rest of the client's data
// after it and the server's anywhere, as a host sees when the RST never
// reached it), some carried in a tunnel (GRE, VXLAN or GTP-U), through the
// stream pipeline (decapsulation, defragmentation, flows, reassembly,
// scanning across segments); WM_FUZZ_BACKEND=gpu scans them on the GPU
// (fuzz_backend.h).
// Properties: a direction alerts a rule exactly when the rule's pattern
// occurs in its stream, wherever the segment and fragment boundaries fell;
// Hyperscan's stream mode over the same streams agrees (oracle_mismatches 0);
// nothing is a gap; every fragmented segment is reassembled; every
// connection is created once and closed by what closed it.
// Input: byte 0's low 2 bits give the connection count and its higher bit
// pairs the tunnel of connections 0-2 (bits 2-3 for the first: none, GRE,
// VXLAN, GTP-U; a tagged connection's tag on the outer frame); per
// connection a byte whose low
// 2 bits give the signatures placed in the client's stream and whose high
// bits choose IPv6 (0x04), a server stream (0x08), an RST close (0x10), IP
// fragments (0x20) sent last piece first (0x40), an 802.1Q tag (0x80); per
// stream 2 bytes of length (at most 1,199) and its signatures (each a rule
// byte and 2 position bytes), the server's with a count byte of its own;
// then segment lengths (1-200) per stream until it is covered (a length
// byte of 200 or more past the client's first segment, in a connection closed
// by an RST, sends the RST mid-stream: at that segment's start, after every
// client segment before it and before the rest of the client's data, the
// server's anywhere; the first such byte counts); then byte pairs that swap
// two segments (the pair's high bit also sends the first one again).
#include "tests/fuzz/fuzz_backend.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/stream/stream_test_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

using wm::fuzz::fail;
using wm::fuzz::require;
namespace build = wm::capture::build;

const char *const kPatterns[] = {"EVIL-ONE", "bad/two", "\xff\xfe\xfd\xfc", "zq!"};
constexpr uint16_t kServerPort = 80;
constexpr uint8_t kIpv6 = 0x04, kServerData = 0x08, kRstClose = 0x10, kFragments = 0x20, kLastPieceFirst = 0x40,
                  kVlan = 0x80;
enum Tunnel : uint8_t { kNoTunnel, kGre, kVxlan, kGtpu };

std::string rules() {
    std::string body;
    for (uint32_t r = 0; r < 4; ++r) {
        std::string hex = "|";
        for (unsigned char c : std::string(kPatterns[r])) hex += fmt::format("{:02x} ", c);
        hex.back() = '|';
        body += wm::stream::test::rule_yaml(r + 1, hex);
    }
    return wm::stream::test::rules_yaml(body);
}

using AlertKey = std::tuple<size_t, bool, uint32_t>; // (connection, from the server, rule id)
std::set<AlertKey> g_alerts;
std::vector<size_t> g_connection_of_frame; // by packet number - 1: connections may share a 5-tuple

int on_alert(const wm_alert_t *a, void *) {
    const uint64_t n = a->packet->number;
    require(n >= 1 && n <= g_connection_of_frame.size(), fmt::format("an alert on packet {}", n));
    g_alerts.emplace(g_connection_of_frame[n - 1], a->packet->src_port == kServerPort, a->rule_id);
    return 0;
}

struct Reader {
    const uint8_t *p, *end;
    bool more() const { return p < end; }
    uint8_t next() { return p < end ? *p++ : 0; }
};

// A stream of filler with `sigs` signatures placed at positions the input gives.
std::string read_stream(Reader &in, unsigned sigs) {
    const size_t len = (size_t{in.next()} << 8 | in.next()) % 1200;
    std::string s;
    for (size_t i = 0; i < len; ++i) s.push_back(static_cast<char>('0' + i % 10)); // no pattern in the filler
    for (; sigs > 0; --sigs) {
        const std::string pat = kPatterns[in.next() & 3];
        const size_t at = (size_t{in.next()} << 8 | in.next()) % (len + 1);
        if (at + pat.size() <= len) s.replace(at, pat.size(), pat);
    }
    return s;
}

// One connection [fd00::1 or 10.0.0.1]:<cport> <-> [fd00::2 or 10.0.0.2]:80.
// Tagged connections share one client port and their IP ids: only their
// VLAN tells their flows and fragments apart.
struct Connection {
    uint8_t mode = 0;
    Tunnel tunnel = kNoTunnel;
    uint16_t cport = 0, vlan = 0;
    std::string stream[2]; // [0] client to server, [1] server to client
    uint32_t isn[2] = {};
    std::optional<uint32_t> rst_at; // the client's offset of a mid-stream RST
    uint32_t ip_id_base = 0;
    uint32_t ip_ids = 0;

    build::Bytes ip_packet(bool from_server, const build::Bytes &l4, const build::ExtHeader *frag = nullptr,
                           uint16_t frag_field = 0x4000, uint16_t id = 1) const {
        if (mode & kIpv6) {
            build::Ipv6Spec s;
            s.src = build::ip6({0xfd00, 0, 0, 0, 0, 0, 0, uint16_t(from_server ? 2 : 1)});
            s.dst = build::ip6({0xfd00, 0, 0, 0, 0, 0, 0, uint16_t(from_server ? 1 : 2)});
            if (frag) s.ext = {*frag};
            auto pkt = build::ipv6(s, build::kProtoTcp, l4);
            if (frag) std::copy(l4.begin(), l4.end(), pkt.end() - l4.size()); // undo the piece's "checksum"
            return pkt;
        }
        build::Ipv4Spec s;
        s.src = from_server ? build::ip4(10, 0, 0, 2) : build::ip4(10, 0, 0, 1);
        s.dst = from_server ? build::ip4(10, 0, 0, 1) : build::ip4(10, 0, 0, 2);
        s.id = id;
        s.frag = frag_field;
        return build::ipv4(s, build::kProtoTcp, l4);
    }
    build::Bytes tcp(bool from_server, uint32_t seq, uint8_t flags, const std::string &payload) const {
        build::TcpSpec t;
        t.sport = from_server ? kServerPort : cport;
        t.dport = from_server ? cport : kServerPort;
        t.seq = seq;
        t.flags = flags;
        return build::tcp(t, build::bytes(payload));
    }
    // The frame carrying `ip`, in the connection's tunnel if it has one
    // (tunnel ends 198.51.100.1 on the client's side, .2 on the server's).
    build::Bytes frame(bool from_server, const build::Bytes &ip) const {
        std::vector<build::VlanTag> tags;
        if (mode & kVlan) tags.push_back(build::VlanTag{0x8100, vlan});
        if (tunnel == kNoTunnel) return build::ethernet_ip(ip, tags);
        build::Ipv4Spec s;
        s.src = build::ip4(198, 51, 100, from_server ? 2 : 1);
        s.dst = build::ip4(198, 51, 100, from_server ? 1 : 2);
        if (tunnel == kGre) {
            const uint16_t type = build::ethertype_of(ip);
            return build::ethernet_ip(
                build::ipv4(s, build::kProtoGre, build::concat({0, 0, uint8_t(type >> 8), uint8_t(type)}, ip)), tags);
        }
        build::Bytes udp;
        if (tunnel == kVxlan) {
            udp = build::udp(49152, 4789, build::concat({0x08, 0, 0, 0, 0, 0, 1, 0}, build::ethernet_ip(ip)));
        } else { // a GTP-U G-PDU
            const build::Bytes gtp{0x30, 0xff, uint8_t(ip.size() >> 8), uint8_t(ip.size()), 0, 0, 0, 7};
            udp = build::udp(2152, 2152, build::concat(gtp, ip));
        }
        return build::ethernet_ip(build::ipv4(s, build::kProtoUdp, udp), tags);
    }
    // Frames of one segment: a whole packet, or two IP fragments of it
    // (the cut 8-byte aligned, past the TCP header) when the mode says so.
    std::vector<build::Bytes> frames(bool from_server, uint32_t seq, uint8_t flags, const std::string &payload) {
        const build::Bytes l4 = tcp(from_server, seq, flags, payload);
        if (!(mode & kFragments) || payload.size() < 5) return {frame(from_server, ip_packet(from_server, l4))};
        const size_t cut = 24 + 8 * ((payload.size() - 5) / 16);
        const uint32_t id = ip_id_base + ++ip_ids;
        std::vector<build::Bytes> out;
        for (const bool first : {true, false}) {
            const size_t off = first ? 0 : cut, len = first ? cut : l4.size() - cut;
            const build::Bytes piece(l4.begin() + off, l4.begin() + off + len);
            if (mode & kIpv6) {
                const build::ExtHeader fh = build::fragment_header(uint16_t(off / 8), first, id);
                out.push_back(frame(from_server, ip_packet(from_server, piece, &fh)));
            } else {
                const uint16_t field = uint16_t((first ? 0x2000 : 0) | (off / 8));
                out.push_back(frame(from_server, ip_packet(from_server, piece, nullptr, field, uint16_t(id))));
            }
        }
        if (mode & kLastPieceFirst) std::swap(out[0], out[1]);
        return out;
    }
};

struct Segment {
    size_t conn;
    bool from_server;
    uint32_t off, len;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Reader in{data, data + size};
    const uint8_t first = in.next();
    std::vector<Connection> conns(first % 4 + 1);
    for (size_t c = 0; c < conns.size(); ++c) {
        Connection &k = conns[c];
        k.tunnel = c < 3 ? Tunnel((first >> (2 + 2 * c)) & 3) : kNoTunnel;
        k.mode = in.next();
        const bool tagged = k.mode & kVlan;
        k.cport = static_cast<uint16_t>(tagged ? 40000 : 40001 + c);
        k.vlan = static_cast<uint16_t>(tagged ? 100 + c : 0);
        k.ip_id_base = tagged ? 0 : uint32_t(16384 * c); // fewer than 16,384 segments a connection
        k.isn[0] = uint32_t(0xfffff000u + 977 * c); // data crosses 2^32 in some connections
        k.isn[1] = uint32_t(0x7ffffc00u - 1231 * c);
        k.stream[0] = read_stream(in, k.mode & 3);
        if (k.mode & kServerData) k.stream[1] = read_stream(in, in.next() & 3);
    }
    std::vector<Segment> segs;
    for (size_t c = 0; c < conns.size(); ++c)
        for (const bool from_server : {false, true}) {
            const std::string &s = conns[c].stream[from_server];
            for (uint32_t off = 0; off < s.size();) {
                const uint8_t b = in.next();
                if (b >= 200 && off > 0 && !from_server && (conns[c].mode & kRstClose) && !conns[c].rst_at)
                    conns[c].rst_at = off;
                const uint32_t len = std::min<uint32_t>(b % 200 + 1, uint32_t(s.size()) - off);
                segs.push_back({c, from_server, off, len});
                off += len;
            }
        }
    std::vector<Segment> order = segs;
    while (!order.empty() && in.more()) {
        const uint8_t a = in.next(), b = in.next();
        std::swap(order[a % order.size()], order[b % order.size()]);
        if (a & 0x80) order.push_back(order[a % order.size()]); // sent again
    }
    // A mid-stream RST: its connection's client segments keep their places
    // in the order, those before it first; the RST follows the last of them.
    // The server's go anywhere: a hole in them when the RST comes is filled
    // after it.
    std::vector<int> rst_after(order.size(), -1); // the connection whose RST follows order[i]
    for (size_t c = 0; c < conns.size(); ++c) {
        if (!conns[c].rst_at) continue;
        const auto before = [&](const Segment &g) { return !g.from_server && g.off < *conns[c].rst_at; };
        std::vector<size_t> places;
        std::vector<Segment> mine;
        for (size_t i = 0; i < order.size(); ++i)
            if (order[i].conn == c && !order[i].from_server) places.push_back(i), mine.push_back(order[i]);
        const auto cut = std::stable_partition(mine.begin(), mine.end(), before);
        for (size_t i = 0; i < places.size(); ++i) order[places[i]] = mine[i];
        rst_after[places[size_t(cut - mine.begin()) - 1]] = int(c); // the client's first segment is before it
    }

    g_alerts.clear();
    g_connection_of_frame.clear();
    wm::stream::test::Harness h(wm::rules::load_rules_string(rules(), "fuzz-streams.yaml"), true,
                                wm::stream::test::default_config(), true, wm::fuzz::backend_from_env(), 1, {}, on_alert);
    uint64_t fragmented = 0, resets = 0;
    auto send = [&](Connection &k, bool from_server, uint32_t seq, uint8_t flags, const std::string &payload) {
        const auto frames = k.frames(from_server, seq, flags, payload);
        fragmented += frames.size() > 1;
        for (const auto &f : frames) {
            g_connection_of_frame.push_back(size_t(&k - conns.data()));
            h.feed(f);
        }
    };
    for (Connection &k : conns) {
        send(k, false, k.isn[0], build::kSyn, "");
        send(k, true, k.isn[1], build::kSyn | build::kAck, "");
    }
    for (size_t i = 0; i < order.size(); ++i) {
        const Segment &s = order[i];
        Connection &k = conns[s.conn];
        send(k, s.from_server, k.isn[s.from_server] + 1 + s.off, build::kAck | build::kPsh,
             k.stream[s.from_server].substr(s.off, s.len));
        if (rst_after[i] >= 0) {
            Connection &r = conns[size_t(rst_after[i])];
            send(r, false, r.isn[0] + 1 + *r.rst_at, build::kRst, "");
            ++resets;
        }
    }
    for (Connection &k : conns) {
        const auto end = [&](bool from_server) { return k.isn[from_server] + 1 + uint32_t(k.stream[from_server].size()); };
        if (k.rst_at) continue; // its data after the RST went on where the stream stood; nothing closes it again
        if (k.mode & kRstClose) {
            send(k, false, end(false), build::kRst, "");
            ++resets;
        } else {
            send(k, false, end(false), build::kAck | build::kFin, "");
            send(k, true, end(true), build::kAck | build::kFin, "");
        }
    }
    h.finish();

    std::set<AlertKey> want;
    for (size_t c = 0; c < conns.size(); ++c)
        for (const bool from_server : {false, true})
            for (uint32_t r = 0; r < 4; ++r)
                if (conns[c].stream[from_server].find(kPatterns[r]) != std::string::npos)
                    want.emplace(c, from_server, r + 1);
    const wm_stream_stats_t &st = h.stats();
    require(st.oracle_mismatches == 0, "Hyperscan's stream mode disagrees");
    require(st.gaps == 0, "a gap in streams whose every byte arrived");
    require(st.frag_reassembled == fragmented,
            fmt::format("{} of {} fragmented segments reassembled", st.frag_reassembled, fragmented));
    require(st.flows_created == conns.size() && st.flows_closed == conns.size() && st.flows_at_end == 0,
            fmt::format("{} connections: {} flows created, {} closed, {} open at the end", conns.size(),
                        st.flows_created, st.flows_closed, st.flows_at_end));
    require(st.rst_accepted == resets, fmt::format("{} of {} RSTs accepted", st.rst_accepted, resets));
    if (g_alerts != want)
        fail(fmt::format("{} (connection, direction, rule) alerts, {} in the streams; {} segments sent",
                         g_alerts.size(), want.size(), order.size()));
    return 0;
}
