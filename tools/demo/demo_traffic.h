// tools/demo/demo_traffic.h - the deterministic demo capture.
//
// One workstation's few seconds of traffic: DNS, web browsing, an SQL
// injection scan, a path traversal, a command upload, a C2 lookup and
// connection with a NOP sled, an SMTP session carrying the EICAR test
// string, plus ARP/ICMP (skipped by the decoder), an IPv6 HTTP flow and a
// VLAN-tagged frame. The demo rules (rules/demo) match strings in it.
#pragma once

#include "tcp_session.h"

#include <string>
#include <vector>

namespace wm::demo {

// Ethernet frames in capture order; identical on every call and host.
std::vector<Frame> demo_frames();

// Writes demo_frames() as a classic pcap (LINKTYPE_ETHERNET) to path and
// returns the number of frames. Throws std::runtime_error on I/O errors.
size_t write_demo_pcap(const std::string &path);

} // namespace wm::demo
