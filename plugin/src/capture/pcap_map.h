// plugin/src/capture/pcap_map.h - a classic pcap file mapped read-only, its
// records read in place, so that several threads can decode one file.
//
// libpcap reads a savefile strictly in sequence, through stdio, one record
// at a time; for replaying a large capture that is the bottleneck. For the
// common case (classic pcap 2.4, either byte order, micro- or nanosecond
// time stamps, a link type whose records libpcap hands out unchanged) this
// reads the records straight from the mapping and yields exactly the header
// values pcap_next_ex would (time stamps converted the way libpcap 1.10
// converts them). A record libpcap would change or refuse (longer than the
// file's snapshot length or than 262,144 bytes, cut short by the end of the
// file) is not read here: record_at() says 0 and the caller hands the rest
// of the file to libpcap, which reports it as a plain read would.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace wm::capture {

struct RecordHeader {
    int64_t ts_sec = 0;
    int64_t ts_usec = 0; // microseconds, as libpcap reports them
    uint32_t caplen = 0;
    uint32_t wirelen = 0;
};

// File bytes [begin, end) read into memory: a record inside it is read from
// there, any other byte from the mapping.
struct FileSpan {
    const uint8_t *data = nullptr;
    uint64_t begin = 0, end = 0;
};

class PcapMap {
  public:
    static constexpr uint64_t kFirstRecord = 24; // after the file header
    static constexpr uint64_t kRecordHeader = 16;

    // Never throws: usable() is false for a file this cannot read in place
    // (pcapng, older versions, unknown link types, unmappable files).
    // dlt is the link type libpcap reported for the file.
    PcapMap(const std::string &path, int dlt);
    ~PcapMap();
    PcapMap(const PcapMap &) = delete;
    PcapMap &operator=(const PcapMap &) = delete;

    bool usable() const { return data_ != nullptr; }
    uint64_t size() const { return size_; }
    const uint8_t *data() const { return data_; }

    // File bytes [pos, pos + n) (within the file): from span when it holds
    // them all, else from the mapping.
    const uint8_t *bytes(uint64_t pos, uint64_t n, const FileSpan *span) const {
        if (span && pos >= span->begin && pos + n <= span->end) return span->data + (pos - span->begin);
        return data_ + pos;
    }

    // Bytes of the record at pos (header included) with its header in *h,
    // or 0 when libpcap must read it (see above) or pos is the end of file.
    uint64_t record_at(uint64_t pos, RecordHeader *h, const FileSpan *span = nullptr) const;

    // Reads file bytes [begin, min(end, size())) into dst (pread); the span
    // over them, or an empty span when the read fails (the mapping serves).
    // Reading a part this way beats faulting its pages in: 15 threads read
    // a cached 1 GB file at 70-75 GB/s by pread into 256 KB buffers and at
    // 55-62 GB/s through the mapping, whose unmapping then took 23 ms more
    // (H200 host, 2026-11-23 probe, docs/PERFORMANCE.md run 76).
    FileSpan read_span(uint64_t begin, uint64_t end, uint8_t *dst) const;

    // Maps the pages of [begin, end) now, in one call (MADV_POPULATE_READ).
    // Slower than faulting them in as they are read: on the H200 host, 15
    // threads read a 1 GB cached file at 19 GB/s this way (same probe);
    // kept for comparison (WindowReader::set_in_place_read).
    void prefault(uint64_t begin, uint64_t end) const;
    // Unmaps the whole pages inside [begin, end) (MADV_DONTNEED; the file is
    // untouched and they map again if read): a reader drops what it has
    // copied out, in parallel, so that unmapping the file at the end does
    // not take ~23 ms for 1 GB on one thread.
    void release(uint64_t begin, uint64_t end) const;

    // A likely record start in [from, to), or `to` when none is found: the
    // first offset from which a few records in a row (or all the records up
    // to the end of the file) look sound. Only a guess, for cutting the file
    // into parts decoded in parallel; the caller checks that the previous
    // part ends exactly there.
    uint64_t guess_record_start(uint64_t from, uint64_t to, const FileSpan *span = nullptr) const;

  private:
    bool plausible_chain(uint64_t pos, const FileSpan *span) const;

    const uint8_t *data_ = nullptr;
    uint64_t size_ = 0;
    int fd_ = -1; // kept open for read_span()
    bool swapped_ = false;
    bool nanoseconds_ = false;
    uint32_t snapshot_ = 0; // libpcap's adjusted snapshot length
};

} // namespace wm::capture
