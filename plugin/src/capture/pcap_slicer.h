// plugin/src/capture/pcap_slicer.h - record boundaries of a classic pcap file,
// so several libpcap readers can decode one file in parallel.
//
// libpcap reads a file strictly in sequence. To spread the work, the slicer
// walks the 16-byte record headers of a classic pcap file (any byte order,
// micro- or nanosecond) through a read-only mapping and cuts the file into
// slices of whole records; each slice is then read by its own libpcap handle
// positioned at the slice (capture/slice_reader.h). The walk only decides
// where to cut: libpcap still validates and reads every record. A record the
// walk is not sure of (longer than libpcap's 262,144-byte limit, running past
// the end of the file) ends the walk: everything from there is read by one
// libpcap handle in sequence, which reports the error exactly as a plain read
// would. pcapng and anything else that is not classic pcap is not sliced.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wm::capture {

struct FileSlice {
    uint64_t begin = 0;        // file offset of the first record header
    uint64_t records = 0;      // whole records in the slice
    uint64_t first_number = 1; // 1-based packet number of its first record
    uint64_t bytes = 0;        // file bytes of its records (headers included)
};

class PcapSlicer {
  public:
    // Never throws for a file it cannot slice: sliceable() is then false.
    explicit PcapSlicer(const std::string &path);
    ~PcapSlicer();
    PcapSlicer(const PcapSlicer &) = delete;
    PcapSlicer &operator=(const PcapSlicer &) = delete;

    // A classic pcap file that could be mapped.
    bool sliceable() const;

    // Cuts the next window of at most max_bytes file bytes (at least one
    // record) into at most parts slices of about equal size. False when the
    // walk is over: then rest() says where sequential reading takes over.
    bool next_window(uint64_t max_bytes, unsigned parts, std::vector<FileSlice> &out);

    // Where the walk stopped: the offset of the first record it did not
    // take (the file size after a clean walk) and that record's number.
    uint64_t rest_offset() const { return pos_; }
    uint64_t rest_number() const { return number_; }
    bool at_clean_end() const { return pos_ == size_; }

  private:
    // Length of the record at pos_ (header included), 0 when the walk must stop.
    uint64_t record_bytes() const;

    struct Mapping;
    std::unique_ptr<Mapping> map_;
    bool swapped_ = false;
    uint64_t size_ = 0;
    uint64_t pos_ = 0;
    uint64_t number_ = 1;
};

} // namespace wm::capture
