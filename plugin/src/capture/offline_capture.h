// plugin/src/capture/offline_capture.h - pcap/pcapng file -> decoded packets.
//
// Wraps libpcap's offline reader and the frame decoder. next() returns only
// packets that carry a TCP/UDP payload; everything else is counted in stats()
// by reason, never dropped silently.
#pragma once

#include "capture/decoder.h"
#include "warpmatch.h"

#include <memory>
#include <stdexcept>
#include <string>

namespace wm::capture {

// A capture that cannot be opened or read; message names the file (and the
// packet number for corrupt records).
class CaptureError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class OfflineCapture {
  public:
    // Throws CaptureError("cannot open FILE: reason").
    explicit OfflineCapture(const std::string &path);
    ~OfflineCapture();
    OfflineCapture(const OfflineCapture &) = delete;
    OfflineCapture &operator=(const OfflineCapture &) = delete;

    // Fills pkt (pointers valid until the next call) and returns WM_SUCCESS,
    // or returns WM_END at a clean end of file. Throws CaptureError for a
    // truncated or corrupt file, after every earlier packet was delivered.
    int next(wm_packet_t *pkt);

    // The UDP tunnels' ports of the frames read from now on (nullptr: the
    // standard ones); it must outlive the reads.
    void set_tunnel_ports(const TunnelPorts *ports);

    const wm_capture_stats_t &stats() const;
    const std::string &path() const;
    int link_type() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// One record, shared by every reader so counts and messages agree:
// decode_record fills pkt's record fields and decodes the frame (returns
// kDecodedPayload or a wm_skip_reason); count_record adds it to st.
// ports: the UDP tunnels' ports (nullptr: the standard ones). Inline: the
// readers call both for every record (a call each cost the window reader
// about 25 instructions a record, its ninth argument on the stack).
// where: filled as decode_frame fills it (nullptr: not wanted).
inline int decode_record(int dlt, uint64_t number, int64_t ts_sec, int64_t ts_usec, uint32_t caplen,
                         uint32_t wirelen, const uint8_t *frame, wm_packet_t *pkt,
                         const TunnelPorts *ports = nullptr, FrameLayers *where = nullptr) {
    pkt->struct_size = sizeof(wm_packet_t);
    pkt->number = number;
    pkt->ts_sec = ts_sec;
    pkt->ts_usec = ts_usec;
    pkt->caplen = caplen;
    pkt->wirelen = wirelen;
    const int r = decode_frame(dlt, frame, caplen, pkt, where, ports);
    // A frame captured whole that still ends inside a header, or before any
    // byte of the payload its IP length declares, was short on the wire:
    // malformed, not cut by the snap length (which `truncated` warns of). One
    // that keeps some payload bytes is still scanned (what was captured).
    return r == WM_SKIP_TRUNCATED && caplen >= wirelen ? WM_SKIP_MALFORMED : r;
}


inline void count_record(int result, const wm_packet_t &pkt, wm_capture_stats_t &st) {
    ++st.packets;
    st.bytes += pkt.caplen;
    if (pkt.caplen < pkt.wirelen) ++st.snaplen_truncated;
    if (result == kDecodedPayload) {
        ++st.payloads;
        st.payload_bytes += pkt.payload_len;
    } else {
        ++st.skipped[result];
    }
}
// to += from, counter by counter (windows of one capture).
void add_capture_stats(wm_capture_stats_t &to, const wm_capture_stats_t &from);
// "FILE: packet N: why", the message of a corrupt or truncated record.
std::string record_error(const std::string &path, uint64_t number, const char *why);

} // namespace wm::capture
