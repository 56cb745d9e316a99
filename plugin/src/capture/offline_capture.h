// plugin/src/capture/offline_capture.h - pcap/pcapng file -> decoded packets.
//
// Wraps libpcap's offline reader and the frame decoder. next() returns only
// packets that carry a TCP/UDP payload; everything else is counted in stats()
// by reason, never dropped silently.
#pragma once

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

    const wm_capture_stats_t &stats() const;
    const std::string &path() const;
    int link_type() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace wm::capture
