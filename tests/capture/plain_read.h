// tests/capture/plain_read.h - what a plain sequential read of a capture
// (OfflineCapture, libpcap) delivers, gathered: what the other readers are
// held to. No test framework here: the fuzz targets use it too.
#pragma once

#include "plugin/src/capture/offline_capture.h"
#include "plugin/src/capture/tunnel_ports.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace wm::capture::test {

struct Seen {
    std::vector<wm_packet_t> packets; // their tunnel pointers dangle: see tunnels
    std::vector<std::string> payloads;
    std::vector<std::optional<wm_tunnel_t>> tunnels; // what each packet's tunnel pointed at
    wm_capture_stats_t stats{};
    std::string error;
    size_t windows = 0;
    unsigned most_parts = 0; // parts of one window, at most
    size_t in_place = 0;     // windows whose payloads were left in place
};

// The carrier a packet points at, copied (the reader reuses it).
inline std::optional<wm_tunnel_t> carrier_of(const wm_packet_t &p) {
    if (!p.tunnel) return std::nullopt;
    return *p.tunnel;
}

// Field by field: a carrier's padding byte is not part of it.
inline bool same_carrier(const wm_tunnel_t &a, const wm_tunnel_t &b) {
    return a.ip_version == b.ip_version && a.proto == b.proto && a.depth == b.depth && a.kind == b.kind &&
           std::equal(a.src_ip, a.src_ip + 16, b.src_ip) && std::equal(a.dst_ip, a.dst_ip + 16, b.dst_ip) &&
           a.src_port == b.src_port && a.dst_port == b.dst_port;
}

// Throws CaptureError when libpcap cannot open the file. ports: the UDP
// tunnels' (nullptr: the standard ones).
inline Seen read_plain(const std::string &path, const TunnelPorts *ports = nullptr) {
    Seen s;
    OfflineCapture cap(path);
    cap.set_tunnel_ports(ports);
    wm_packet_t p{};
    try {
        while (cap.next(&p) == WM_SUCCESS) {
            s.packets.push_back(p);
            s.payloads.emplace_back(p.payload, p.payload + p.payload_len);
            s.tunnels.push_back(carrier_of(p));
        }
    } catch (const CaptureError &e) {
        s.error = e.what();
    }
    s.stats = cap.stats();
    return s;
}

} // namespace wm::capture::test
