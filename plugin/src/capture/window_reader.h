// plugin/src/capture/window_reader.h - a capture file read window by window,
// each window's payloads packed back to back in a buffer the caller gives.
//
// A classic pcap file is read in place (capture/pcap_file.h): each window is
// cut into parts that threads decode in parallel. A part after the first
// starts where a few records in a row look sound; since a guess can be
// wrong (a payload may hold something that looks like records), each part
// is checked, in order, to start exactly where the one before it ended, and
// is decoded again from there when it does not. pcapng files, and whatever
// follows a record that libpcap must read itself, are read by one libpcap
// handle in sequence (the one that opened the file: in-place reads go
// through its descriptor, so a path renamed over during the read does not
// change the file; a file that shrinks ends the in-place reading where its
// reads come up short, and libpcap reads on from there, as it does past the
// size the file had when it was opened). Either way the packets, their numbers, the counters
// and the error of a corrupt record are those of one plain sequential read
// (OfflineCapture); tests/capture/test_window_reader.cpp holds it to that.
#pragma once

#include "capture/frame_filter.h"
#include "capture/pcap_file.h"
#include "capture/record_run.h"
#include "capture/slice_reader.h"
#include "capture/uninit_vector.h"
#include "capture/worker_pool.h"
#include "warpmatch.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wm::capture {

struct PayloadWindow {
    // Packed: the payloads back to back. In place (sources not empty): the
    // window's file bytes, each payload where the file has it.
    const uint8_t *data = nullptr;
    // Per payload; resizing leaves them unwritten: the reader writes each.
    UninitVector<uint32_t> offsets{0};    // payload i has offsets[i+1] - offsets[i] bytes, packed at offsets[i]
    UninitVector<uint32_t> sources;       // in place: payload i is at data + sources[i] (ascending)
    UninitVector<wm_payload_meta_t> meta; // protocol and ports
    UninitVector<wm_packet_t> packets;    // payload pointers into data
    std::vector<wm_tunnel_t> tunnels;     // carriers the tunnelled packets point at
    wm_capture_stats_t stats{};          // every record of the window
    std::string error;                   // the capture is corrupt after these packets
    size_t count() const { return packets.size(); }
    size_t bytes() const { return offsets.back(); } // payload bytes
    bool in_place() const { return !sources.empty(); }
    const uint32_t *sources_or_null() const { return sources.empty() ? nullptr : sources.data(); }
};

class WindowReader {
  public:
    // Largest window (bigger requests are cut to it).
    static constexpr uint64_t kMaxWindowBytes = uint64_t{1} << 30;

    // Throws CaptureError when the file cannot be opened. window_bytes: file
    // bytes per window (at least one record); threads: parts decoded in
    // parallel per window. filter: a capture filter (tcpdump syntax, "" for
    // none); the records it rejects are left out of the windows and their
    // counters, and the others keep their numbers in the file. Throws
    // std::invalid_argument when it does not compile (capture/frame_filter.h).
    WindowReader(const std::string &path, uint64_t window_bytes, unsigned threads, const std::string &filter = {});
    ~WindowReader();

    // Memory for a window's payloads, at least `bytes` long: at most the
    // window's size plus kInPlaceSlack when payloads are left in place,
    // else its payload bytes (more than the window only for pcapng's huge
    // records).
    using BufferFn = std::function<uint8_t *(size_t bytes)>;

    // Reads the next window into w, its payloads into buffer(...) (in place,
    // asked again for packed payloads when libpcap takes over at the
    // window's first record). False once the file is over (w then holds
    // nothing). A window with w.error set is the last one.
    bool next(PayloadWindow &w, const BufferFn &buffer);

    // Leaves the payloads where the file has them: the window's file bytes
    // are read straight into the buffer and w.sources says where each
    // payload starts, so the reader copies no payload (the GPU gathers
    // them; packing was about a third of the reader's time, run 297).
    // Windows read by libpcap stay packed. Off by default; set before the first next().
    void set_payloads_in_place(bool on) { payloads_in_place_ = on; }
    // Room past a window's end that its last record may need in place: the
    // longest record read in place (PcapFile), a part's read-ahead besides.
    static constexpr uint64_t kInPlaceSlack = 262144 + 16 + 4096;

    // The UDP tunnels' ports (nullptr: the standard ones), set before the
    // first next(); it must outlive the reader.
    void set_tunnel_ports(const TunnelPorts *ports);

    // Parts the current window was decoded in (1 when read by libpcap).
    unsigned parts_used() const { return used_; }
    // A window is cut into this many parts per thread, handed out as threads
    // come free: one part per thread made every window wait for its slowest
    // thread (in replay, 15 readers share 16 cores with the scanning thread).
    static constexpr unsigned kPartsPerThread = 4;
    // ... but no more parts than leave each this many records of the size a
    // part's start falls in (guessing a part's start costs up to a record),
    // unless the last window had kRecordsPerThread records per thread.
    static constexpr unsigned kRecordsPerPart = 16, kRecordsPerThread = 256;
    // Parts whose guessed start was wrong and that were decoded again.
    uint64_t parts_redone() const { return redone_; }
    // Whether every record so far was read in place (none by libpcap).
    bool in_place() const { return opened_in_place_ && libpcap_records_ == 0; }
    // Wall seconds so far in decoding the parts (and chaining them) and in
    // assembling windows (payload copies, packet records, meta, offsets).
    double decode_seconds() const { return decode_s_; }
    double assemble_seconds() const { return assemble_s_; }

  private:
    bool next_in_place(PayloadWindow &w, const BufferFn &buffer);
    bool next_sequential(PayloadWindow &w, const BufferFn &buffer);
    struct InPlaceBytes { // a window's file bytes read into its buffer
        uint8_t *data;
        uint64_t base, bytes; // from file offset base, this many
    };
    void assemble(size_t parts, PayloadWindow &w, const BufferFn &buffer, const InPlaceBytes *raw = nullptr);
    // From here on libpcap reads, from file offset pos_ (numbered from `number`).
    void hand_over(uint64_t number);

    std::string path_;
    uint64_t window_bytes_;
    unsigned threads_;
    WorkerPool pool_;
    unsigned used_ = 1;
    uint64_t redone_ = 0;
    double cut_record_bytes_ = 0; // the last window's records, weighted by size (0: none yet)
    uint64_t last_records_ = 0;   // the last window's records
    double decode_s_ = 0, assemble_s_ = 0;
    bool payloads_in_place_ = false;
    bool over_ = false;
    int dlt_ = -1;
    std::unique_ptr<FrameFilter> filter_;
    const TunnelPorts *ports_ = nullptr;
    std::unique_ptr<PcapFile> file_;        // null once libpcap reads
    bool opened_in_place_ = false;
    uint64_t libpcap_records_ = 0;
    uint64_t pos_ = PcapFile::kFirstRecord; // next record to read in place
    uint64_t next_number_ = 1;             // its packet number
    std::vector<RecordRun> runs_;
    std::unique_ptr<SliceReader> sequential_;
};

} // namespace wm::capture
