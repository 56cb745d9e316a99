#include "eve_json.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ctime>

namespace wm {

namespace {
std::string ip_text(const uint8_t *ip, int version) {
    char buf[INET6_ADDRSTRLEN] = {0};
    inet_ntop(version == 6 ? AF_INET6 : AF_INET, ip, buf, sizeof(buf));
    return buf;
}

const char *proto_name(uint8_t p) {
    switch (p) {
    case WM_PROTO_TCP: return "TCP";
    case WM_PROTO_UDP: return "UDP";
    default: return "IP";
    }
}
} // namespace

std::string eve_timestamp(int64_t sec, int64_t usec) {
    std::time_t t = static_cast<std::time_t>(sec);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
    return fmt::format("{}.{:06d}+0000", buf, usec);
}

// Formatted directly: alerts are the hot output path (hundreds of thousands
// per capture); every string that needs JSON escaping was escaped at load
// time (CompiledRuleSet::eve_alert_json) and the rest are numbers, IP
// addresses and fixed names.
std::string alert_to_eve_json(const CompiledRuleSet &rs, const wm_alert_t &a) {
    const wm_packet_t &p = *a.packet;
    long idx = rs.index_of(a.rule_id);
    fmt::memory_buffer b;
    // Suricata prints flow_id as a positive integer that fits a double.
    fmt::format_to(std::back_inserter(b),
                   "{{\"timestamp\":\"{}\",\"flow_id\":{},\"pcap_cnt\":{},\"event_type\":\"alert\","
                   "\"src_ip\":\"{}\",\"src_port\":{},\"dest_ip\":\"{}\",\"dest_port\":{},"
                   "\"proto\":\"{}\",\"alert\":",
                   eve_timestamp(p.ts_sec, p.ts_usec), p.flow_id & ((1ull << 51) - 1), p.number,
                   ip_text(p.src_ip, p.ip_version), p.src_port, ip_text(p.dst_ip, p.ip_version),
                   p.dst_port, proto_name(p.proto));
    if (idx >= 0) {
        const auto &frag = rs.eve_alert_json(static_cast<size_t>(idx));
        b.append(frag.data(), frag.data() + frag.size());
    } else {
        fmt::format_to(std::back_inserter(b),
                       "{{\"action\":\"allowed\",\"gid\":1,\"signature_id\":{},\"rev\":0,"
                       "\"signature\":\"\",\"severity\":3}}",
                       a.rule_id);
    }
    // Align rules: the score, and the aligned region (known in every output mode).
    if (a.has_score)
        fmt::format_to(std::back_inserter(b), ",\"align\":{{\"score\":{}}}", a.score);
    if (a.has_offset || a.has_score)
        fmt::format_to(std::back_inserter(b), ",\"payload_offset\":{},\"payload_end\":{}", a.start,
                       a.end);
    fmt::format_to(std::back_inserter(b), ",\"payload_len\":{}}}", p.payload_len);
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
