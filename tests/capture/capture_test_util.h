// tests/capture/capture_test_util.h - shared helpers for the capture tests.
#pragma once

#include "plugin/src/capture/decoder.h"
#include "plugin/src/capture/packet_builder.h"
#include "tests/scratch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string>

namespace wm::capture::test {

using build::Bytes;

struct Decoded {
    int rc = 0;
    wm_packet_t pkt{};
    std::shared_ptr<const Bytes> frame; // what pkt.payload points into
    Bytes payload() const {
        return pkt.payload ? Bytes(pkt.payload, pkt.payload + pkt.payload_len) : Bytes{};
    }
};

// Decodes a copy of frame limited to caplen bytes (default: all), held in a
// heap block of exactly that size so ASan flags any read past caplen.
inline Decoded decode(int dlt, const Bytes &frame, size_t caplen = SIZE_MAX) {
    const size_t n = std::min(caplen, frame.size());
    auto keep = std::make_shared<Bytes>(frame.begin(), frame.begin() + long(n));
    Decoded d;
    d.pkt.struct_size = sizeof d.pkt;
    d.rc = decode_frame(dlt, keep->empty() ? nullptr : keep->data(), uint32_t(n), &d.pkt);
    d.frame = std::move(keep);
    return d;
}

// A fresh per-test path, removed with the process's scratch directory.
inline std::string temp_path(const std::string &name) { return wm::test::scratch_path(name); }

inline const build::Ip4 kClient4 = build::ip4(10, 1, 2, 3);
inline const build::Ip4 kServer4 = build::ip4(192, 0, 2, 80);
inline const build::Ip6 kClient6 = build::ip6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x10});
inline const build::Ip6 kServer6 = build::ip6({0x2001, 0xdb8, 0xff, 0, 0, 0, 0xabcd, 0x80});

inline build::Ipv4Spec v4(build::Ip4 src = kClient4, build::Ip4 dst = kServer4) {
    build::Ipv4Spec s;
    s.src = src;
    s.dst = dst;
    return s;
}
inline build::Ipv6Spec v6(build::Ip6 src = kClient6, build::Ip6 dst = kServer6) {
    build::Ipv6Spec s;
    s.src = src;
    s.dst = dst;
    return s;
}
// The addresses and ports of a decoded kClient4:40000 -> kServer4:80 TCP packet.
inline void expect_client_tcp4(const wm_packet_t &p) {
    EXPECT_EQ(p.ip_version, 4);
    EXPECT_EQ(p.proto, WM_PROTO_TCP);
    EXPECT_EQ(0, std::memcmp(p.src_ip, build::as16(kClient4).data(), 16));
    EXPECT_EQ(0, std::memcmp(p.dst_ip, build::as16(kServer4).data(), 16));
    EXPECT_EQ(p.src_port, 40000);
    EXPECT_EQ(p.dst_port, 80);
}

inline build::TcpSpec tcp_ports(uint16_t sport, uint16_t dport) {
    build::TcpSpec s;
    s.sport = sport;
    s.dport = dport;
    s.seq = 1000;
    s.ack = 2000;
    return s;
}

} // namespace wm::capture::test
