// plugin/src/capture/slice_reader.h - one libpcap handle reading a run of
// records, from the start of the file or from a record boundary found by
// PcapSlicer, into payloads packed back to back.
#pragma once

#include "warpmatch.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wm::capture {

// Payloads of a run of records, copied out of libpcap's buffer.
struct DecodedRecords {
    std::vector<uint8_t> bytes;       // payloads back to back
    std::vector<wm_packet_t> packets; // payload points nowhere until placed
    std::vector<uint32_t> ends;       // end of each payload in bytes
    wm_capture_stats_t stats{};       // every record read, payload or not
    std::string error;                // reading stopped at this bad record
    void clear();
};

class SliceReader {
  public:
    // Opens path with libpcap. offset 0: from the first record; otherwise the
    // file offset of a record header, whose packet number is first_number.
    // Throws CaptureError when the file cannot be opened.
    SliceReader(const std::string &path, uint64_t offset, uint64_t first_number);
    ~SliceReader();
    SliceReader(const SliceReader &) = delete;
    SliceReader &operator=(const SliceReader &) = delete;

    // Appends up to max_records records to out. Stops early, before a
    // payload that would take out.bytes past max_bytes: that record is kept
    // and comes first in the next call. False once the file is over: at its
    // end, or at a bad record (out.error, everything before it in out).
    bool read(uint64_t max_records, size_t max_bytes, DecodedRecords &out);

    int link_type() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace wm::capture
