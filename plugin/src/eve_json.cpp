#include "eve_json.h"

#include "base64.h"

#include <arpa/inet.h>
#include <fmt/compile.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <ctime>
#include <string_view>
#include <vector>

namespace wm {

namespace {

using Out = std::back_insert_iterator<fmt::memory_buffer>;

void append_ip(fmt::memory_buffer &b, const uint8_t *ip, int version) {
    char buf[INET6_ADDRSTRLEN] = {0};
    inet_ntop(version == 6 ? AF_INET6 : AF_INET, ip, buf, sizeof(buf));
    b.append(buf, buf + std::strlen(buf));
}

const char *proto_name(uint8_t p) {
    switch (p) {
    case WM_PROTO_TCP: return "TCP";
    case WM_PROTO_UDP: return "UDP";
    default: return "IP";
    }
}

// "2024-04-21T10:00:00" of a second, kept for the next alert: a capture's
// alerts come in packet order, so most share the second before them
// (gmtime_r and strftime were a fifth of formatting an alert).
struct SecondText {
    int64_t sec = INT64_MIN;
    char text[32] = {0};
    size_t len = 0;
};

// A time as seconds and microseconds in [0, 999999], for the text: a
// record's ts_usec past a second (a crafted or corrupt capture) is carried
// into the seconds, and the seconds are kept to 1970-9999, the years that
// "%Y" writes as four digits.
void normalise_time(int64_t &sec, int64_t &usec) {
    constexpr int64_t kMicros = 1000000, kLast = 253402300799; // 9999-12-31T23:59:59
    int64_t carry = usec / kMicros, rest = usec % kMicros;
    if (rest < 0) {
        rest += kMicros;
        --carry;
    }
    sec = sec < 0 ? 0 : sec > kLast ? kLast : sec;
    sec = std::clamp<int64_t>(sec + carry, 0, kLast); // |carry| < 2^44: no overflow
    usec = rest;
}

void append_timestamp(fmt::memory_buffer &b, int64_t sec, int64_t usec) {
    normalise_time(sec, usec);
    thread_local SecondText last;
    if (sec != last.sec) {
        std::time_t t = static_cast<std::time_t>(sec);
        std::tm tm{};
        gmtime_r(&t, &tm);
        last.len = std::strftime(last.text, sizeof(last.text), "%Y-%m-%dT%H:%M:%S", &tm);
        last.sec = sec;
    }
    b.append(last.text, last.text + last.len);
    fmt::format_to(Out(b), FMT_COMPILE(".{:06d}+0000"), usec);
}

} // namespace

std::string eve_timestamp(int64_t sec, int64_t usec) {
    fmt::memory_buffer b;
    append_timestamp(b, sec, usec);
    return fmt::to_string(b);
}

namespace {

// A packet's VLAN ids into ids[2], and how many; none from a packet of a
// caller built before 0.13, which ends before them.
uint8_t packet_vlans(const wm_packet_t &p, uint16_t ids[2]) {
    if (p.struct_size < offsetof(wm_packet_t, vlan_count) + 1 || p.vlan_count == 0) return 0;
    const uint8_t n = p.vlan_count < 2 ? p.vlan_count : 2;
    ids[0] = p.vlan[0];
    ids[1] = n == 2 ? p.vlan[1] : 0;
    return n;
}

// A packet's tunnel carrier; none from a packet of a caller built before
// 0.16, which ends before it.
const wm_tunnel_t *packet_tunnel(const wm_packet_t &p) {
    if (p.struct_size < offsetof(wm_packet_t, tunnel) + sizeof p.tunnel) return nullptr;
    return p.tunnel;
}

// The carrier's IP protocol as Suricata names it (known_proto[] of its
// util-proto-name.c).
const char *carrier_name(uint8_t proto) {
    switch (proto) {
    case 4: return "IP-in-IP";
    case 17: return "UDP";
    case 41: return "IPv6";
    case 47: return "GRE";
    default: return nullptr;
    }
}

// Suricata's "tunnel" object: the outermost carrier's addresses, ports and
// protocol, and the depth of the tunnelled packet. A carrier that was no IP
// packet (an MPLS pseudowire on the link) has only the depth.
void append_tunnel(fmt::memory_buffer &b, const wm_tunnel_t &t) {
    constexpr std::string_view kKey = ",\"tunnel\":{";
    b.append(kKey.data(), kKey.data() + kKey.size());
    if (t.ip_version == 4 || t.ip_version == 6) {
        constexpr std::string_view kSrcIp = "\"src_ip\":\"";
        b.append(kSrcIp.data(), kSrcIp.data() + kSrcIp.size());
        append_ip(b, t.src_ip, t.ip_version);
        fmt::format_to(Out(b), FMT_COMPILE("\",\"src_port\":{},\"dest_ip\":\""), t.src_port);
        append_ip(b, t.dst_ip, t.ip_version);
        fmt::format_to(Out(b), FMT_COMPILE("\",\"dest_port\":{},"), t.dst_port);
        if (const char *name = carrier_name(t.proto))
            fmt::format_to(Out(b), FMT_COMPILE("\"proto\":\"{}\","), name);
        else
            fmt::format_to(Out(b), FMT_COMPILE("\"proto\":\"{}\","), t.proto);
    }
    fmt::format_to(Out(b), FMT_COMPILE("\"depth\":{}}}"), t.depth);
}

// The packet fields an alert line starts with.
struct PacketKey {
    uint64_t number = 0, flow_id = 0;
    int64_t ts_sec = 0, ts_usec = 0;
    uint8_t ip_version = 0, proto = 0;
    uint16_t src_port = 0, dst_port = 0;
    uint8_t src_ip[16] = {}, dst_ip[16] = {};
    uint16_t vlan[2] = {};
    uint8_t vlan_count = 0;
    explicit PacketKey(const wm_packet_t &p)
        : number(p.number), flow_id(p.flow_id), ts_sec(p.ts_sec), ts_usec(p.ts_usec), ip_version(p.ip_version),
          proto(p.proto), src_port(p.src_port), dst_port(p.dst_port) {
        std::memcpy(src_ip, p.src_ip, sizeof src_ip);
        std::memcpy(dst_ip, p.dst_ip, sizeof dst_ip);
        vlan_count = packet_vlans(p, vlan);
    }
    bool operator==(const PacketKey &o) const {
        return number == o.number && flow_id == o.flow_id && ts_sec == o.ts_sec && ts_usec == o.ts_usec &&
               ip_version == o.ip_version && proto == o.proto && src_port == o.src_port &&
               dst_port == o.dst_port && std::memcmp(src_ip, o.src_ip, sizeof src_ip) == 0 &&
               std::memcmp(dst_ip, o.dst_ip, sizeof dst_ip) == 0 && vlan_count == o.vlan_count &&
               vlan[0] == o.vlan[0] && vlan[1] == o.vlan[1];
    }
};

// Everything up to "alert": of one packet's line.
void append_packet_part(fmt::memory_buffer &b, const wm_packet_t &p) {
    constexpr std::string_view kTimestamp = "{\"timestamp\":\"";
    b.append(kTimestamp.data(), kTimestamp.data() + kTimestamp.size());
    append_timestamp(b, p.ts_sec, p.ts_usec);
    // Suricata prints flow_id as a positive integer that fits a double.
    fmt::format_to(Out(b), FMT_COMPILE("\",\"flow_id\":{},\"pcap_cnt\":{},\"event_type\":\"alert\","),
                   p.flow_id & ((1ull << 51) - 1), p.number);
    uint16_t vlan[2];
    const uint8_t vlans = packet_vlans(p, vlan);
    if (vlans == 1) fmt::format_to(Out(b), FMT_COMPILE("\"vlan\":[{}],"), vlan[0]);
    if (vlans == 2) fmt::format_to(Out(b), FMT_COMPILE("\"vlan\":[{},{}],"), vlan[0], vlan[1]);
    constexpr std::string_view kSrcIp = "\"src_ip\":\"";
    b.append(kSrcIp.data(), kSrcIp.data() + kSrcIp.size());
    append_ip(b, p.src_ip, p.ip_version);
    fmt::format_to(Out(b), FMT_COMPILE("\",\"src_port\":{},\"dest_ip\":\""), p.src_port);
    append_ip(b, p.dst_ip, p.ip_version);
    fmt::format_to(Out(b), FMT_COMPILE("\",\"dest_port\":{},\"proto\":\"{}\",\"alert\":"), p.dst_port,
                   proto_name(p.proto));
}

// The payload fields of wm_eve_flags. A packet's alerts come one after
// another (10.7 per payload packet with ET on merged-zeek's HTTP and UDP):
// the fields are formatted once and reused while flags and payload bytes
// (compared, not just the pointer: windows are recycled) stay the same.
void append_payload_fields(fmt::memory_buffer &b, const wm_packet_t &p, unsigned flags) {
    struct Last {
        bool valid = false;
        unsigned flags = 0;
        std::vector<uint8_t> bytes;
        fmt::memory_buffer text;
    };
    thread_local Last last;
    const bool same = last.valid && last.flags == flags && last.bytes.size() == p.payload_len &&
                      (p.payload_len == 0 || std::memcmp(last.bytes.data(), p.payload, p.payload_len) == 0);
    if (!same) {
        last.valid = true;
        last.flags = flags;
        last.bytes.assign(p.payload, p.payload + p.payload_len);
        fmt::memory_buffer &t = last.text;
        t.clear();
        if (flags & WM_EVE_PAYLOAD) {
            constexpr std::string_view kKey = ",\"payload\":\"";
            t.append(kKey.data(), kKey.data() + kKey.size());
            append_base64(t, p.payload, p.payload_len);
            t.push_back('"');
        }
        if (flags & WM_EVE_PAYLOAD_PRINTABLE) {
            // Suricata's payload_printable (PrintStringsToBuffer): printable
            // ASCII, '\n' and '\r' as they are, other bytes as '.'.
            std::string text(p.payload_len, '.');
            for (uint32_t i = 0; i < p.payload_len; ++i) {
                const uint8_t c = p.payload[i];
                if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r') text[i] = static_cast<char>(c);
            }
            const std::string quoted = nlohmann::json(text).dump(); // JSON escapes for '"' and '\\'
            constexpr std::string_view kKey = ",\"payload_printable\":";
            t.append(kKey.data(), kKey.data() + kKey.size());
            t.append(quoted.data(), quoted.data() + quoted.size());
        }
    }
    b.append(last.text.data(), last.text.data() + last.text.size());
}

} // namespace

// Formatted directly into one buffer: alerts are the hot output path
// (hundreds of thousands per capture); every string that needs JSON escaping
// was escaped at load time (CompiledRuleSet::eve_alert_json) and the rest
// are numbers, IP addresses and fixed names.
void append_alert_eve_json(const CompiledRuleSet &rs, const wm_alert_t &a, fmt::memory_buffer &b, unsigned flags) {
    const wm_packet_t &p = *a.packet;
    const long idx = rs.index_of(a.rule_id);
    // A packet's alerts come one after another (3.7 per payload packet with
    // ET on merged-zeek): its part of the line is formatted once.
    thread_local PacketKey last_key{wm_packet_t{}};
    thread_local fmt::memory_buffer last_part;
    const PacketKey key(p);
    if (last_part.size() == 0 || !(key == last_key)) {
        last_part.clear();
        append_packet_part(last_part, p);
        last_key = key;
    }
    b.append(last_part.data(), last_part.data() + last_part.size());
    if (idx >= 0) {
        const auto &frag = rs.eve_alert_json(static_cast<size_t>(idx));
        b.append(frag.data(), frag.data() + frag.size());
    } else {
        fmt::format_to(Out(b),
                       "{{\"action\":\"allowed\",\"gid\":1,\"signature_id\":{},\"rev\":0,"
                       "\"signature\":\"\",\"severity\":3}}",
                       a.rule_id);
    }
    if (const wm_tunnel_t *t = packet_tunnel(p)) append_tunnel(b, *t);
    // Align rules: the score, and the aligned region (known in every output mode).
    if (a.has_score)
        fmt::format_to(Out(b), ",\"align\":{{\"score\":{}}}", a.score);
    if (a.has_offset || a.has_score)
        fmt::format_to(Out(b), FMT_COMPILE(",\"payload_offset\":{},\"payload_end\":{}"), a.start, a.end);
    fmt::format_to(Out(b), FMT_COMPILE(",\"payload_len\":{}"), p.payload_len);
    if (flags & (WM_EVE_PAYLOAD | WM_EVE_PAYLOAD_PRINTABLE)) append_payload_fields(b, p, flags);
    b.push_back('}');
}

std::string alert_to_eve_json(const CompiledRuleSet &rs, const wm_alert_t &a, unsigned flags) {
    fmt::memory_buffer b;
    append_alert_eve_json(rs, a, b, flags);
    return fmt::to_string(b);
}

std::string replay_stats_to_json(const wm_replay_stats_t &st) {
    nlohmann::ordered_json s;
    const auto &c = st.capture;
    s["packets"] = c.packets;
    s["bytes"] = c.bytes;
    s["payloads"] = c.payloads;
    s["payload_bytes"] = c.payload_bytes;
    s["alerts"] = st.alerts;
    s["batches"] = st.batches;
    nlohmann::ordered_json skipped;
    for (int r = 0; r < WM_SKIP_REASON_COUNT; ++r)
        skipped[wm_skip_reason_name(r)] = c.skipped[r];
    s["skipped"] = skipped;
    s["snaplen_truncated"] = c.snaplen_truncated;
    s["verify_mismatches"] = st.verify_mismatches;
    s["seconds"] = st.seconds;
    s["gbit_per_s"] = st.gbit_per_s;
    nlohmann::ordered_json j;
    j["event_type"] = "stats";
    j["stats"] = s;
    return j.dump();
}

} // namespace wm
