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

std::string alert_to_eve_json(const CompiledRuleSet &rs, const wm_alert_t &a) {
    const wm_packet_t &p = *a.packet;
    nlohmann::ordered_json j;
    j["timestamp"] = eve_timestamp(p.ts_sec, p.ts_usec);
    // Suricata prints flow_id as a positive 51-bit integer (JSON-safe).
    j["flow_id"] = p.flow_id & ((1ull << 51) - 1);
    j["pcap_cnt"] = p.number;
    j["event_type"] = "alert";
    j["src_ip"] = ip_text(p.src_ip, p.ip_version);
    j["src_port"] = p.src_port;
    j["dest_ip"] = ip_text(p.dst_ip, p.ip_version);
    j["dest_port"] = p.dst_port;
    j["proto"] = proto_name(p.proto);
    long idx = rs.index_of(a.rule_id);
    nlohmann::ordered_json alert;
    alert["action"] = "allowed";
    alert["gid"] = 1;
    alert["signature_id"] = a.rule_id;
    alert["rev"] = 0;
    alert["signature"] = idx >= 0 ? rs.rules()[idx].msg : std::string();
    alert["severity"] = idx >= 0 ? rs.rules()[idx].severity : 3;
    j["alert"] = alert;
    if (a.has_offset) {
        j["payload_offset"] = a.start;
        j["payload_end"] = a.end;
    }
    j["payload_len"] = p.payload_len;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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
