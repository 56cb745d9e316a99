// plugin/src/capture/frame_filter.h - a capture filter (tcpdump syntax)
// applied to records as a reader meets them.
//
// Replay reads classic pcap files in place, outside libpcap, so libpcap's
// pcap_setfilter cannot drop records there; and where libpcap does read, a
// filter set on its handle would hide the records it drops, and with them
// the file's packet numbers. So every reader asks accepts() of each record
// itself: a rejected record is left out of the packets and counters, and
// the next one keeps its number in the file.
#pragma once

#include <pcap/pcap.h>

#include <cstdint>
#include <string>

namespace wm::capture {

class FrameFilter {
  public:
    // Compiles `expression` for frames of link type dlt (libpcap's DLT_*).
    // Throws std::invalid_argument naming the expression and libpcap's
    // reason when it does not compile.
    FrameFilter(const std::string &expression, int dlt);
    ~FrameFilter();
    FrameFilter(const FrameFilter &) = delete;
    FrameFilter &operator=(const FrameFilter &) = delete;

    // Whether the filter accepts a frame of caplen captured bytes and
    // wirelen bytes on the wire. Reentrant: threads decoding parts of one
    // window share a filter.
    bool accepts(const uint8_t *frame, uint32_t caplen, uint32_t wirelen) const;

    const std::string &expression() const { return expression_; }

  private:
    std::string expression_;
    bpf_program program_{};
};

} // namespace wm::capture
