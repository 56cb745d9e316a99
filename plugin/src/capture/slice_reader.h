// plugin/src/capture/slice_reader.h - one libpcap handle reading a run of
// records, from the start of the file or from a record boundary, into
// payloads packed back to back: the reader for pcapng files and for
// whatever follows a record that cannot be read in place.
#pragma once

#include "capture/record_run.h"
#include "warpmatch.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wm::capture {

class SliceReader {
  public:
    // Opens path with libpcap. offset 0: from the first record; otherwise the
    // file offset of a record header, whose packet number is first_number.
    // Throws CaptureError when the file cannot be opened.
    SliceReader(const std::string &path, uint64_t offset, uint64_t first_number);
    ~SliceReader();
    SliceReader(const SliceReader &) = delete;
    SliceReader &operator=(const SliceReader &) = delete;

    // Appends up to max_records records to out (payloads copied into
    // out.bytes, packets pointing there). Stops early, before a payload that
    // would take out.bytes past max_bytes: that record is kept and comes
    // first in the next call. False once the file is over: at its end, or
    // at a bad record (out.error, everything before it in out).
    bool read(uint64_t max_records, size_t max_bytes, RecordRun &out);
    // Records the filter rejects are numbered and passed over (nullptr: none).
    void set_filter(const FrameFilter *filter);
    // The UDP tunnels' ports (nullptr: the standard ones); it must outlive the reads.
    void set_tunnel_ports(const TunnelPorts *ports);

    int link_type() const;
    // The descriptor libpcap reads the file through (-1 if none).
    int file_descriptor() const;
    // Reads on from the record header at file offset `offset`, whose packet
    // number is first_number, through the same handle (so the same file,
    // even when its path was renamed over since it was opened). Throws
    // CaptureError when the seek fails.
    void seek(uint64_t offset, uint64_t first_number);

  private:
    bool read_records(uint64_t max_records, size_t max_bytes, RecordRun &out);

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace wm::capture
