// plugin/src/capture/window_reader.h - a capture file read window by window,
// each window's payloads packed back to back in a buffer the caller gives.
//
// A classic pcap file is cut at record boundaries (PcapSlicer) and the slices
// of a window are read by several libpcap handles in parallel; pcapng files
// and whatever follows a record the walk is unsure of are read by one handle
// in sequence. Either way the packets, their numbers, the counters and the
// error of a corrupt record are those of one plain sequential read
// (OfflineCapture); tests/capture/test_window_reader.cpp holds it to that.
#pragma once

#include "capture/pcap_slicer.h"
#include "capture/slice_reader.h"
#include "warpmatch.h"

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace wm::capture {

struct PayloadWindow {
    const uint8_t *data = nullptr;       // payloads back to back
    std::vector<uint32_t> offsets{0};    // payload i is [offsets[i], offsets[i+1])
    std::vector<wm_payload_meta_t> meta; // protocol and ports, per payload
    std::vector<wm_packet_t> packets;    // payload pointers into data
    wm_capture_stats_t stats{};          // every record of the window
    std::string error;                   // the capture is corrupt after these packets
    size_t count() const { return packets.size(); }
    size_t bytes() const { return offsets.back(); }
};

class WindowReader {
  public:
    // Throws CaptureError when the file cannot be opened. threads: libpcap
    // handles reading one window (1 = always in sequence).
    WindowReader(const std::string &path, uint64_t window_bytes, unsigned threads);
    ~WindowReader();

    // Memory for a window's payloads, at least `bytes` long.
    using BufferFn = std::function<uint8_t *(size_t bytes)>;

    // Reads the next window into w, its payloads into buffer(w.bytes()).
    // False once the file is over (w then holds nothing). A window with
    // w.error set is the last one.
    bool next(PayloadWindow &w, const BufferFn &buffer);

    // Handles reading the current window (1 when sequential).
    unsigned threads_used() const { return used_; }

  private:
    bool next_sliced(PayloadWindow &w, const BufferFn &buffer);
    bool next_sequential(PayloadWindow &w, const BufferFn &buffer);
    void assemble(size_t parts, PayloadWindow &w, const BufferFn &buffer);

    std::string path_;
    uint64_t window_bytes_;
    unsigned threads_;
    unsigned used_ = 1;
    bool over_ = false;
    PcapSlicer slicer_;
    // The walk of the next window runs while this one is decoded (it is
    // serial: each record header says where the next one starts).
    std::vector<FileSlice> slices_[2];
    unsigned cur_ = 0;
    std::future<bool> walk_;
    std::vector<DecodedRecords> parts_;
    std::unique_ptr<SliceReader> sequential_;
};

} // namespace wm::capture
