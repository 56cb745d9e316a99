// EVE JSON: Suricata field names and values for a crafted alert.
#include "compiled_ruleset.h"
#include "eve_json.h"
#include "tests/base64_decode.h"

#include <gtest/gtest.h>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <nlohmann/json.hpp>

using namespace wm;

namespace {
// Rules with these ids and messages, pattern "x".
rules::RuleSet rules_of(std::initializer_list<std::pair<uint32_t, std::string>> rules) {
    rules::RuleSet rs;
    for (const auto &[id, msg] : rules) {
        rules::Rule r;
        r.id = id;
        r.msg = msg;
        r.pattern = "x";
        rs.rules.push_back(r);
    }
    return rs;
}
} // namespace

TEST(EveJson, AlertCarriesSuricataFields) {
    rules::RuleSet rs = rules_of({{2001, "ET TEST \"quoted\" msg"}});
    rs.rules[0].severity = 1;
    CompiledRuleSet crs(rs);
    wm_packet_t p{};
    p.struct_size = sizeof(p);
    p.number = 42;
    p.ts_sec = 1700000000;
    p.ts_usec = 5;
    p.ip_version = 4;
    p.proto = WM_PROTO_TCP;
    const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {192, 168, 1, 2};
    std::copy(src, src + 4, p.src_ip);
    std::copy(dst, dst + 4, p.dst_ip);
    p.src_port = 1234;
    p.dst_port = 80;
    p.flow_id = 0xffffffffffffffffull;
    p.payload_len = 10;
    wm_alert_t a{sizeof(wm_alert_t), &p, 2001, 1, 3, 4};
    auto j = nlohmann::json::parse(alert_to_eve_json(crs, a));
    EXPECT_EQ(j["timestamp"], "2023-11-14T22:13:20.000005+0000");
    EXPECT_EQ(j["event_type"], "alert");
    EXPECT_EQ(j["src_ip"], "10.0.0.1");
    EXPECT_EQ(j["dest_ip"], "192.168.1.2");
    EXPECT_EQ(j["src_port"], 1234);
    EXPECT_EQ(j["dest_port"], 80);
    EXPECT_EQ(j["proto"], "TCP");
    EXPECT_EQ(j["pcap_cnt"], 42);
    EXPECT_LT(j["flow_id"].get<uint64_t>(), 1ull << 53);
    EXPECT_EQ(j["alert"]["signature_id"], 2001);
    EXPECT_EQ(j["alert"]["signature"], "ET TEST \"quoted\" msg");
    EXPECT_EQ(j["alert"]["severity"], 1);
    EXPECT_EQ(j["payload_offset"], 3);
    EXPECT_EQ(j["payload_end"], 4);
}

TEST(EveJson, Ipv6AddressesAndNoOffsetInSetMode) {
    CompiledRuleSet crs(rules_of({{1, "m"}}));
    wm_packet_t p{};
    p.struct_size = sizeof(p);
    p.ip_version = 6;
    p.proto = WM_PROTO_UDP;
    p.src_ip[15] = 1;
    p.dst_ip[0] = 0x20;
    p.dst_ip[1] = 0x01;
    p.dst_ip[2] = 0x0d;
    p.dst_ip[3] = 0xb8;
    p.dst_ip[15] = 2;
    wm_alert_t a{sizeof(wm_alert_t), &p, 1, 0, 0, 0};
    auto j = nlohmann::json::parse(alert_to_eve_json(crs, a));
    EXPECT_EQ(j["src_ip"], "::1");
    EXPECT_EQ(j["dest_ip"], "2001:db8::2");
    EXPECT_EQ(j["proto"], "UDP");
    EXPECT_FALSE(j.contains("payload_offset"));
}

// A line reuses the packet part of the line before it only when every field
// in it is the same: the same packet struct refilled with another packet
// (as a capture loop does), two packets taking turns, and a new second.
// A record's microseconds past a second (a crafted or corrupt capture) are
// carried into the seconds, and the seconds kept to years 1970-9999, so the
// timestamp stays a valid ISO 8601 time with six fraction digits.
TEST(EveJson, TimestampCarriesMicrosecondsAndStaysInFourDigitYears) {
    EXPECT_EQ(eve_timestamp(1700000000, 2500000), "2023-11-14T22:13:22.500000+0000");
    EXPECT_EQ(eve_timestamp(1700000000, -5), "2023-11-14T22:13:19.999995+0000");
    EXPECT_EQ(eve_timestamp(1700000000, 999999), "2023-11-14T22:13:20.999999+0000");
    EXPECT_EQ(eve_timestamp(1700000000, 1000000), "2023-11-14T22:13:21.000000+0000");
    EXPECT_EQ(eve_timestamp(INT64_MAX, 0), "9999-12-31T23:59:59.000000+0000");
    EXPECT_EQ(eve_timestamp(INT64_MAX, INT64_MAX), "9999-12-31T23:59:59.775807+0000");
    EXPECT_EQ(eve_timestamp(-1, 0), "1970-01-01T00:00:00.000000+0000");
    EXPECT_EQ(eve_timestamp(INT64_MIN, INT64_MIN), "1970-01-01T00:00:00.224192+0000");
}

TEST(EveJson, ConsecutiveAlertsOfDifferentPacketsDoNotShareAPrefix) {
    CompiledRuleSet crs(rules_of({{1, "m1"}, {2, "m2"}}));
    wm_packet_t p{};
    p.struct_size = sizeof(p);
    p.ip_version = 4;
    p.proto = WM_PROTO_TCP;
    p.number = 7;
    p.ts_sec = 1700000000;
    p.src_ip[0] = 10;
    p.dst_ip[0] = 11;
    wm_packet_t q = p;
    auto line = [&](const wm_packet_t &pk, uint32_t rule) {
        wm_alert_t a{sizeof(wm_alert_t), &pk, rule, 0, 0, 0};
        return nlohmann::json::parse(alert_to_eve_json(crs, a));
    };
    EXPECT_EQ(line(p, 1)["src_ip"], "10.0.0.0");
    EXPECT_EQ(line(p, 2)["alert"]["signature"], "m2");
    // Each field on its own, in the same struct.
    p.src_ip[3] = 9;
    EXPECT_EQ(line(p, 2)["src_ip"], "10.0.0.9");
    p.dst_port = 443;
    EXPECT_EQ(line(p, 2)["dest_port"], 443);
    p.ts_usec = 999999;
    EXPECT_EQ(line(p, 2)["timestamp"], "2023-11-14T22:13:20.999999+0000");
    p.ts_sec += 61;
    EXPECT_EQ(line(p, 2)["timestamp"], "2023-11-14T22:14:21.999999+0000");
    p.proto = WM_PROTO_UDP;
    EXPECT_EQ(line(p, 2)["proto"], "UDP");
    p.flow_id = 5;
    EXPECT_EQ(line(p, 2)["flow_id"], 5);
    // Two packets taking turns.
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(line(q, 1)["timestamp"], "2023-11-14T22:13:20.000000+0000") << i;
        EXPECT_EQ(line(p, 1)["timestamp"], "2023-11-14T22:14:21.999999+0000") << i;
        EXPECT_EQ(line(q, 1)["dest_port"], 0) << i;
    }
}

// "vlan" as Suricata writes it: the ids outermost first, after event_type;
// absent when untagged, and from a packet of a caller built before 0.13
// (which ends before the fields).
TEST(EveJson, VlanIdsAsSuricataWritesThem) {
    CompiledRuleSet crs(rules_of({{1, "m"}}));
    wm_packet_t p{};
    p.struct_size = sizeof(p);
    p.ip_version = 4;
    p.number = 3;
    auto line = [&] {
        wm_alert_t a{sizeof(wm_alert_t), &p, 1, 0, 0, 0};
        return alert_to_eve_json(crs, a);
    };
    EXPECT_EQ(line().find("vlan"), std::string::npos);
    p.vlan[0] = 10;
    p.vlan_count = 1;
    EXPECT_NE(line().find("\"event_type\":\"alert\",\"vlan\":[10],\"src_ip\""), std::string::npos) << line();
    p.vlan[1] = 4094;
    p.vlan_count = 2;
    EXPECT_EQ(nlohmann::json::parse(line())["vlan"], nlohmann::json::parse("[10,4094]"));
    p.vlan[0] = 0; // a priority tag is an id like any other
    EXPECT_EQ(nlohmann::json::parse(line())["vlan"], nlohmann::json::parse("[0,4094]"));
    p.struct_size = offsetof(wm_packet_t, vlan);
    EXPECT_FALSE(nlohmann::json::parse(line()).contains("vlan"));
}

// Suricata's "tunnel" object after "alert": the outermost carrier's
// addresses, ports and protocol, and the depth; only the depth for a
// carrier that was no IP packet; nothing without a carrier, or from a
// packet of a caller built before 0.16.
TEST(EveJson, TunnelCarrierAsSuricataWritesIt) {
    CompiledRuleSet crs(rules_of({{1, "m"}}));
    wm_packet_t p{};
    p.struct_size = sizeof(p);
    p.ip_version = 4;
    p.proto = WM_PROTO_TCP;
    auto line = [&] {
        wm_alert_t a{sizeof(wm_alert_t), &p, 1, 0, 0, 0};
        return nlohmann::json::parse(alert_to_eve_json(crs, a));
    };
    EXPECT_FALSE(line().contains("tunnel"));
    wm_tunnel_t t{};
    t.ip_version = 4;
    t.proto = 17;
    t.depth = 1;
    const uint8_t src[4] = {198, 51, 100, 1}, dst[4] = {198, 51, 100, 2};
    std::memcpy(t.src_ip, src, 4);
    std::memcpy(t.dst_ip, dst, 4);
    t.src_port = 50000;
    t.dst_port = 4789;
    p.tunnel = &t;
    EXPECT_EQ(line()["tunnel"], nlohmann::json::parse(R"({"src_ip":"198.51.100.1","src_port":50000,)"
                                                      R"("dest_ip":"198.51.100.2","dest_port":4789,)"
                                                      R"("proto":"UDP","depth":1})"));
    const std::string text = alert_to_eve_json(crs, wm_alert_t{sizeof(wm_alert_t), &p, 1, 0, 0, 0});
    EXPECT_LT(text.find("\"alert\":"), text.find("\"tunnel\":")) << text; // after the alert, as Suricata
    t.ip_version = 6;
    t.proto = 47;
    t.depth = 2;
    t.src_port = t.dst_port = 0;
    std::memset(t.src_ip, 0, 16);
    std::memset(t.dst_ip, 0, 16);
    t.src_ip[0] = 0x20, t.src_ip[1] = 0x01, t.src_ip[15] = 1;
    t.dst_ip[0] = 0x20, t.dst_ip[1] = 0x01, t.dst_ip[15] = 2;
    EXPECT_EQ(line()["tunnel"], nlohmann::json::parse(R"({"src_ip":"2001::1","src_port":0,"dest_ip":"2001::2",)"
                                                      R"("dest_port":0,"proto":"GRE","depth":2})"));
    for (const auto &[proto, name] : {std::pair<uint8_t, const char *>{4, "IP-in-IP"}, {41, "IPv6"}}) {
        t.proto = proto;
        EXPECT_EQ(line()["tunnel"]["proto"], name);
    }
    t.ip_version = 0; // an MPLS pseudowire on the link
    t.proto = 0;
    t.depth = 1;
    EXPECT_EQ(line()["tunnel"], nlohmann::json::parse(R"({"depth":1})"));
    p.struct_size = offsetof(wm_packet_t, tunnel);
    EXPECT_FALSE(line().contains("tunnel"));
}

namespace {
// The line of an alert on a TCP packet carrying `payload`.
nlohmann::json line_with_payload(const std::vector<uint8_t> &payload, unsigned flags) {
    static const CompiledRuleSet crs(rules_of({{5, "m"}}));
    wm_packet_t p{};
    p.struct_size = sizeof(p);
    p.ip_version = 4;
    p.proto = WM_PROTO_TCP;
    p.payload = payload.data();
    p.payload_len = static_cast<uint32_t>(payload.size());
    wm_alert_t a{sizeof(wm_alert_t), &p, 5, 0, 0, 0};
    return nlohmann::json::parse(alert_to_eve_json(crs, a, flags));
}

std::vector<uint8_t> bytes_of(const std::string &s) { return {s.begin(), s.end()}; }
} // namespace

// RFC 4648, section 10.
TEST(EveJson, PayloadIsBase64AsRfc4648Gives) {
    const std::pair<const char *, const char *> vectors[] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},
                                                              {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                                              {"foobar", "Zm9vYmFy"}};
    for (const auto &[plain, encoded] : vectors) {
        const auto j = line_with_payload(bytes_of(plain), WM_EVE_PAYLOAD);
        EXPECT_EQ(j["payload"], encoded) << plain;
        EXPECT_FALSE(j.contains("payload_printable"));
    }
    const auto plain = line_with_payload(bytes_of("foo"), 0);
    EXPECT_FALSE(plain.contains("payload"));
    EXPECT_FALSE(plain.contains("payload_printable"));
    EXPECT_EQ(plain["payload_len"], 3);
}

TEST(EveJson, PayloadOfEveryByteValueDecodesBack) {
    for (size_t n : {253u, 254u, 255u, 256u, 257u, 258u}) {
        std::vector<uint8_t> payload(n);
        for (size_t i = 0; i < n; ++i) payload[i] = uint8_t(i * 7 + n);
        const auto decoded = wm::test::base64_decode(line_with_payload(payload, WM_EVE_PAYLOAD)["payload"]);
        ASSERT_TRUE(decoded.has_value()) << n;
        EXPECT_EQ(*decoded, payload) << n;
    }
}

// As Suricata's PrintStringsToBuffer: an HTTP request keeps its line breaks.
TEST(EveJson, PayloadPrintableKeepsPrintableAsciiAndLineBreaksAndDotsTheRest) {
    std::vector<uint8_t> payload(256);
    std::string want;
    for (int c = 0; c < 256; ++c) {
        payload[c] = uint8_t(c);
        want += (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r' ? char(c) : '.';
    }
    ASSERT_EQ(want.substr(8, 8), "..\n..\r..");
    const auto j = line_with_payload(payload, WM_EVE_PAYLOAD | WM_EVE_PAYLOAD_PRINTABLE);
    EXPECT_EQ(j["payload_printable"], want); // '"' and '\' come back through the JSON escapes
    EXPECT_EQ(wm::test::base64_decode(j["payload"]).value(), payload);
}

// A packet's payload fields are formatted once for its alerts in a row; a
// recycled buffer (same address and length, new bytes) or other flags must
// give fresh ones.
TEST(EveJson, PayloadFieldsFollowTheBytesAndFlagsNotTheAddress) {
    std::vector<uint8_t> buf = bytes_of("abc");
    EXPECT_EQ(line_with_payload(buf, WM_EVE_PAYLOAD)["payload"], "YWJj");
    EXPECT_EQ(line_with_payload(buf, WM_EVE_PAYLOAD)["payload"], "YWJj");
    buf[1] = 'X';
    EXPECT_EQ(line_with_payload(buf, WM_EVE_PAYLOAD)["payload"], "YVhj");
    const auto both = line_with_payload(buf, WM_EVE_PAYLOAD | WM_EVE_PAYLOAD_PRINTABLE);
    EXPECT_EQ(both["payload"], "YVhj");
    EXPECT_EQ(both["payload_printable"], "aXc");
    const auto printable_only = line_with_payload(buf, WM_EVE_PAYLOAD_PRINTABLE);
    EXPECT_FALSE(printable_only.contains("payload"));
    EXPECT_EQ(printable_only["payload_printable"], "aXc");
    EXPECT_EQ(line_with_payload({}, WM_EVE_PAYLOAD)["payload"], "");
}
