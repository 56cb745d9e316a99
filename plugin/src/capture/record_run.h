// plugin/src/capture/record_run.h - the decoded records of one run of a
// capture file, as the window reader gathers them before packing a window.
#pragma once

#include "capture/frame_filter.h"
#include "capture/tunnel_ports.h"
#include "capture/pcap_map.h"
#include "capture/uninit_vector.h"
#include "warpmatch.h"

#include <cstdint>
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
    // it empty and point their payloads into `span` or the mapping.
    std::vector<uint8_t> bytes;
    // In place: the part's file bytes, read ahead of decoding it (kept,
    // with its capacity, across clear()).
    UninitVector<uint8_t> span;
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
    wm_capture_stats_t stats{}; // every record of the run the filter let through, payload or not
    std::string error;          // reading stopped at this bad record
    void clear();
};

// Decodes, in place, every record that starts in [begin, stop), following
// the chain of record lengths from begin; stops early before a record that
// libpcap must read (run.stopped_short). Records inside `span` are read
// from it, others from the mapping. Records `filter` (if any) rejects are
// numbered and passed over.
void decode_in_place(const PcapMap &map, int dlt, uint64_t begin, uint64_t stop, RecordRun &run,
                     const FileSpan *span = nullptr, const FrameFilter *filter = nullptr,
                     const TunnelPorts *ports = nullptr);

} // namespace wm::capture
