// plugin/src/capture/pcap_file.h - a classic pcap file whose records are
// read in place, by pread, so that several threads can decode one file.
//
// libpcap reads a savefile strictly in sequence, through stdio, one record
// at a time; for replaying a large capture that is the bottleneck. For the
// common case (classic pcap 2.4, either byte order, micro- or nanosecond
// time stamps, a link type whose records libpcap hands out unchanged) this
// reads the records at any offset and yields exactly the header values
// pcap_next_ex would (time stamps converted the way libpcap 1.10 converts
// them). A record libpcap would change or refuse (longer than the file's
// snapshot length or than 262,144 bytes, cut short by the end of the file)
// is not read here: record_at() says 0 and the caller hands the rest of the
// file to libpcap, which reports it as a plain read would.
//
// Everything is read by pread from the descriptor libpcap opened (so it is
// the same file, also when its path was renamed over since), never through
// a mapping: a file that shrinks while it is read gives short reads, which
// end the in-place reading there (libpcap then reads on and reports what it
// finds), where a mapping gave SIGBUS.
#pragma once

#include <atomic>
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

// File bytes [begin, end) read into memory; end is where the read stopped
// (before the end asked for when the file is shorter now).
struct FileSpan {
    const uint8_t *data = nullptr;
    uint64_t begin = 0, end = 0;
    bool holds(uint64_t pos, uint64_t n) const { return data && pos >= begin && pos + n <= end; }
};

class PcapFile {
  public:
    static constexpr uint64_t kFirstRecord = 24; // after the file header
    static constexpr uint64_t kRecordHeader = 16;

    // Never throws: usable() is false for a file this cannot read in place
    // (pcapng, older versions, unknown link types, not a regular file).
    // fd: the descriptor libpcap reads the file through (duplicated here;
    // the file must start at offset 0, so not a redirected standard input);
    // dlt: the link type libpcap reported for it.
    PcapFile(int fd, int dlt);
    ~PcapFile();
    PcapFile(const PcapFile &) = delete;
    PcapFile &operator=(const PcapFile &) = delete;

    bool usable() const { return fd_ >= 0; }
    // The file's size when it was opened.
    uint64_t size() const { return size_; }

    // Bytes of the record at pos (header included) with its header in *h,
    // or 0 when libpcap must read it (see above), pos is the end of file or
    // the header cannot be read. The header comes from span when it holds
    // it, else from the file.
    uint64_t record_at(uint64_t pos, RecordHeader *h, const FileSpan *span = nullptr) const;

    // Reads file bytes [begin, min(end, size())) into dst; the span over
    // what was read (shorter when the file shrank, empty on an error).
    // Reading a part this way beats faulting its pages in through a mapping:
    // 15 threads read a cached 1 GB file at 70-75 GB/s by pread into 256 KB
    // buffers and at 55-62 GB/s through a mapping, whose unmapping then took
    // 23 ms more (H200 host, 2026-11-23 probe, docs/PERFORMANCE.md run 76).
    FileSpan read_span(uint64_t begin, uint64_t end, uint8_t *dst) const;
    // Exactly n bytes at pos into dst; false when fewer could be read.
    bool read(uint64_t pos, uint64_t n, uint8_t *dst) const;

    // A likely record start in [from, to), or `to` when none is found: the
    // first offset from which a few records in a row (or all the records up
    // to the end of the file) look sound. Only a guess, for cutting the file
    // into parts decoded in parallel; the caller checks that the previous
    // part ends exactly there.
    uint64_t guess_record_start(uint64_t from, uint64_t to, const FileSpan *span = nullptr) const;

  private:
    bool header_bytes(uint64_t pos, const FileSpan *span, uint8_t out[kRecordHeader]) const;
    // The record at pos whose header is r: its bytes, or 0 (record_at).
    uint64_t parse_header(uint64_t pos, const uint8_t r[kRecordHeader], RecordHeader *h) const;
    bool plausible_chain(uint64_t pos, const FileSpan *span) const;
    bool plausible_lengths(uint32_t caplen, uint32_t wirelen) const; // plausible_chain's test of each header

    uint64_t size_ = 0;
    int fd_ = -1;
    // A read came up short inside size_: the file shrank, and every later
    // read fails at once (not a syscall per byte of a part's guess).
    mutable std::atomic<bool> shrank_{false};
    bool swapped_ = false;
    bool nanoseconds_ = false;
    uint32_t snapshot_ = 0; // libpcap's adjusted snapshot length
};

} // namespace wm::capture
