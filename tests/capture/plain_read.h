// tests/capture/plain_read.h - what a plain sequential read of a capture
// (OfflineCapture, libpcap) delivers, gathered: what the other readers are
// held to. No test framework here: the fuzz targets use it too.
#pragma once

#include "plugin/src/capture/offline_capture.h"
#include "plugin/src/capture/tunnel_ports.h"

#include <string>
#include <vector>

namespace wm::capture::test {

struct Seen {
    std::vector<wm_packet_t> packets;
    std::vector<std::string> payloads;
    wm_capture_stats_t stats{};
    std::string error;
    size_t windows = 0;
    unsigned most_parts = 0; // parts of one window, at most
    size_t in_place = 0;     // windows whose payloads were left in place
};

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
        }
    } catch (const CaptureError &e) {
        s.error = e.what();
    }
    s.stats = cap.stats();
    return s;
}

} // namespace wm::capture::test
