// plugin/src/stream/pcap_source.h - raw frames from libpcap, offline or
// live. The stream layer needs whole frames (TCP flags, sequence numbers,
// fragments), which capture::OfflineCapture does not hand out.
#pragma once

#include "warpmatch.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct pcap;
struct pcap_pkthdr;

namespace wm::capture {
class PcapFile;
}

namespace wm::stream {

// libpcap failed; the message carries libpcap's reason.
class PcapError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

using FrameFn = void (*)(void *ctx, const pcap_pkthdr *hdr, const uint8_t *frame);

// A pcap/pcapng file read frame by frame. A classic pcap file is read in
// place (capture::PcapFile: the headers libpcap would return, the frames
// from large reads of the file through libpcap's own descriptor) until a
// record libpcap must read itself, the size the file had when opened, or a
// read that comes up short (the file shrank); from there, and for pcapng
// files, libpcap reads on. Through libpcap's stdio, reading was a quarter of
// a streams replay's time (perf, merged-zeek x8).
class OfflineFrames {
  public:
    // in_place false: libpcap reads every record (for comparison).
    explicit OfflineFrames(const std::string &path, bool in_place = true); // throws PcapError
    ~OfflineFrames();
    OfflineFrames(const OfflineFrames &) = delete;
    OfflineFrames &operator=(const OfflineFrames &) = delete;
    // 1: a frame in *hdr/*data, valid until the next call; 0: end of file;
    // throws PcapError naming the record for a truncated or corrupt file.
    int next(const pcap_pkthdr **hdr, const uint8_t **data);
    int link_type() const { return dlt_; }
    // Frames read in place so far (the rest came from libpcap).
    uint64_t read_in_place() const { return in_place_; }

  private:
    bool next_in_place(const pcap_pkthdr **hdr, const uint8_t **data);

    std::string path_;
    struct pcap *p_ = nullptr;
    int dlt_ = 0;
    uint64_t read_ = 0;
    bool hand_over();                          // libpcap reads on from pos_
    std::unique_ptr<capture::PcapFile> file_;  // null once libpcap reads on
    uint64_t pos_ = 0;                         // next record to read in place
    std::vector<uint8_t> chunk_;               // file bytes [chunk_begin_, chunk_end_)
    uint64_t chunk_begin_ = 0, chunk_end_ = 0;
    uint64_t in_place_ = 0;
    std::unique_ptr<pcap_pkthdr> hdr_;      // the header next() points at
};

struct LiveSettings {
    std::string interface, bpf;
    int snaplen = 262144;
    int buffer_mb = 64;
    bool immediate = false;
    int timeout_ms = 50; // kernel hands over packets at least this often
};

// An activated live capture (pcap_create + options + pcap_activate).
class LiveCapture {
  public:
    explicit LiveCapture(const LiveSettings &s); // throws PcapError
    ~LiveCapture();
    LiveCapture(const LiveCapture &) = delete;
    LiveCapture &operator=(const LiveCapture &) = delete;

    // Waits up to wait_ms for packets, then hands every available one to fn
    // (at most max); returns how many, 0 on timeout, -1 on error (PcapError
    // thrown), never blocks past wait_ms.
    int poll(int wait_ms, int max, FrameFn fn, void *ctx);
    // Makes a blocking call return early (async-signal-safe).
    void break_loop();
    int link_type() const { return dlt_; }
    int timeout_ms() const { return timeout_ms_; }
    bool immediate() const { return immediate_; }
    // pcap_stats: received, dropped by the kernel, dropped by the interface.
    void stats(uint64_t *recv, uint64_t *drop, uint64_t *ifdrop) const;

  private:
    struct pcap *p_ = nullptr;
    int dlt_ = 0;
    int fd_ = -1;
    int timeout_ms_ = 0;
    bool immediate_ = false;
};

} // namespace wm::stream
