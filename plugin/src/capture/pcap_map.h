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

    // Bytes of the record at pos (header included) with its header in *h,
    // or 0 when libpcap must read it (see above) or pos is the end of file.
    uint64_t record_at(uint64_t pos, RecordHeader *h) const;

    // Maps the pages of [begin, end) now, in one call, rather than fault by
    // fault while decoding (several threads faulting on one mapping contend).
    void prefault(uint64_t begin, uint64_t end) const;

    // A likely record start in [from, to), or `to` when none is found: the
    // first offset from which a few records in a row (or all the records up
    // to the end of the file) look sound. Only a guess, for cutting the file
    // into parts decoded in parallel; the caller checks that the previous
    // part ends exactly there.
    uint64_t guess_record_start(uint64_t from, uint64_t to) const;

  private:
    bool plausible_chain(uint64_t pos) const;

    const uint8_t *data_ = nullptr;
    uint64_t size_ = 0;
    bool swapped_ = false;
    bool nanoseconds_ = false;
    uint32_t snapshot_ = 0; // libpcap's adjusted snapshot length
};

} // namespace wm::capture
