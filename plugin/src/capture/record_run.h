// plugin/src/capture/record_run.h - the decoded records of one run of a
// capture file, as the window reader gathers them before packing a window.
#pragma once

#include "capture/frame_filter.h"
#include "capture/tunnel_ports.h"
#include "capture/pcap_file.h"
#include "capture/uninit_vector.h"
#include "warpmatch.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wm::capture {

struct RecordRun {
    // File offsets: the run's first record header, and just past its last
    // record (in-place runs only).
    uint64_t begin = 0, end = 0;
    // In place: stopped at `end` before a record that libpcap must read.
    bool stopped_short = false;
    // Payload copies, for runs read through libpcap; in-place runs leave
    // it empty and point their payloads into the window's bytes, `span` or
    // `outside`.
    std::vector<uint8_t> bytes;
    // In place: file bytes from span_file, read ahead of decoding the part
    // (kept, with its capacity, across clear()).
    UninitVector<uint8_t> span;
    uint64_t span_file = 0;
    // In place: frames that lay outside the bytes read for the part (the
    // last record running past its end), each read on its own.
    struct OutsideFrame {
        uint64_t file_pos;
        std::unique_ptr<uint8_t[]> bytes;
        uint32_t len;
    };
    std::vector<OutsideFrame> outside;
    // The file offset of byte p of `span` or `outside`, or UINT64_MAX.
    uint64_t file_offset_of(const uint8_t *p) const;
    // Packets with payloads; number counts from 1 within the run for
    // in-place runs (the reader adds the records before it), and is the
    // file's packet number for libpcap runs.
    UninitVector<wm_packet_t> packets;
    // The carriers of the packets that came through a tunnel (few), by
    // their index in `packets`; the window points their packets at them.
    struct Tunnel {
        size_t packet;
        wm_tunnel_t carrier;
    };
    std::vector<Tunnel> tunnels;
    bool numbered_in_run = false;
    // Every record of the run, the capture filter's rejects included (they
    // keep their numbers in the file but are not counted in stats).
    uint64_t records = 0;
    // In place: the sum of every record's size (header included) squared;
    // over the run's bytes, the size of the record a random offset falls in.
    double square_bytes = 0;
    wm_capture_stats_t stats{}; // every record of the run the filter let through, payload or not
    std::string error;          // reading stopped at this bad record
    void clear();
};

// Decodes, in place, every record that starts in [begin, stop), following
// the chain of record lengths from begin; stops early before a record that
// libpcap must read, or that cannot be read whole now (the file shrank):
// run.stopped_short. Records inside `span` are read from it, others from
// the file into run.outside. Records `filter` (if any) rejects are
// numbered and passed over.
void decode_in_place(const PcapFile &file, int dlt, uint64_t begin, uint64_t stop, RecordRun &run,
                     const FileSpan *span = nullptr, const FrameFilter *filter = nullptr,
                     const TunnelPorts *ports = nullptr);

} // namespace wm::capture
