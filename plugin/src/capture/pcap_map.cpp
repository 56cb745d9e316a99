// plugin/src/capture/pcap_map.cpp - see pcap_map.h.
#include "capture/pcap_map.h"

#include "capture/decoder.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace wm::capture {

namespace {

// libpcap's MAXIMUM_SNAPLEN, the largest record it accepts for every link
// type read in place here (max_snaplen_for_dlt).
constexpr uint32_t kMaxSnaplen = 262144;
// Records in a row that must look sound for a guessed record start.
constexpr int kGuessChain = 4;

uint32_t load32(const uint8_t *p, bool swapped) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return swapped ? __builtin_bswap32(v) : v;
}

uint16_t load16(const uint8_t *p, bool swapped) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return swapped ? __builtin_bswap16(v) : v;
}

// Link types whose records libpcap returns as they are in the file (no
// pseudo-header byte swapping) and that the decoder understands.
bool read_in_place(int dlt) {
    switch (dlt) {
    case kDltNull: case kDltEthernet: case kDltRaw: case kDltRawOpenBsd: case kDltLinktypeRaw:
    case kDltLoop: case kDltLinuxSll: case kDltIpv4: case kDltIpv6: case kDltLinuxSll2:
        return true;
    default:
        return false;
    }
}

} // namespace

PcapMap::PcapMap(const std::string &path, int dlt) {
    if (!read_in_place(dlt)) return;
    // Only a regular file is mapped. A FIFO is not even opened again: its
    // writer may be gone once libpcap has read it (open would wait forever).
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<uint64_t>(st.st_size) < kFirstRecord) {
        close(fd);
        return;
    }
    void *p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return;
    }
    const auto *d = static_cast<const uint8_t *>(p);
    uint32_t magic;
    std::memcpy(&magic, d, 4);
    bool ok = true;
    if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du) {
        swapped_ = false;
    } else if (magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u) {
        swapped_ = true;
    } else {
        ok = false; // pcapng, the "patched" formats, not a capture
    }
    nanoseconds_ = magic == 0xa1b23c4du || magic == 0x4d3cb2a1u;
    // Version 2.4 only: older files may have caplen and len interchanged,
    // which libpcap undoes by a heuristic.
    if (ok && (load16(d + 4, swapped_) != 2 || load16(d + 6, swapped_) != 4)) ok = false;
    if (!ok) {
        munmap(p, static_cast<size_t>(st.st_size));
        close(fd);
        return;
    }
    // pcap_adjust_snapshot: 0 or too large means the link type's maximum.
    const uint32_t snaplen = load32(d + 16, swapped_);
    snapshot_ = (snaplen == 0 || snaplen > kMaxSnaplen) ? kMaxSnaplen : snaplen;
    data_ = d;
    size_ = static_cast<uint64_t>(st.st_size);
    fd_ = fd;
}

PcapMap::~PcapMap() {
    if (data_ != nullptr) munmap(const_cast<uint8_t *>(data_), static_cast<size_t>(size_));
    if (fd_ >= 0) close(fd_);
}

FileSpan PcapMap::read_span(uint64_t begin, uint64_t end, uint8_t *dst) const {
    end = end < size_ ? end : size_;
    uint64_t got = 0;
    while (begin + got < end) {
        const ssize_t n = pread(fd_, dst + got, static_cast<size_t>(end - begin - got), static_cast<off_t>(begin + got));
        if (n <= 0) return FileSpan{}; // an error, or the file shrank: the mapping serves (as it would fail)
        got += static_cast<uint64_t>(n);
    }
    return FileSpan{dst, begin, end};
}

uint64_t PcapMap::record_at(uint64_t pos, RecordHeader *h, const FileSpan *span) const {
    if (pos >= size_ || size_ - pos < kRecordHeader) return 0;
    const uint8_t *r = bytes(pos, kRecordHeader, span);
    const uint32_t caplen = load32(r + 8, swapped_);
    // Longer than the snapshot: libpcap cuts it or refuses it.
    if (caplen > snapshot_ || size_ - pos - kRecordHeader < caplen) return 0;
    // As libpcap 1.10 has them: the fields of a file in this machine's byte
    // order are signed 32-bit numbers, those it byte-swaps come out
    // unsigned; nanoseconds are scaled down by integer division.
    const uint32_t sec = load32(r, swapped_);
    const uint32_t frac = load32(r + 4, swapped_);
    const int64_t s = swapped_ ? int64_t{sec} : int64_t{static_cast<int32_t>(sec)};
    const int64_t f = swapped_ ? int64_t{frac} : int64_t{static_cast<int32_t>(frac)};
    h->ts_sec = s;
    h->ts_usec = nanoseconds_ ? f / 1000 : f;
    h->caplen = caplen;
    h->wirelen = load32(r + 12, swapped_);
    return kRecordHeader + caplen;
}

void PcapMap::prefault(uint64_t begin, uint64_t end) const {
#ifdef MADV_POPULATE_READ
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    begin -= begin % page;
    end = end < size_ ? end : size_;
    // Linux 5.14 and later; elsewhere the pages fault in as they are read.
    if (end > begin)
        madvise(const_cast<uint8_t *>(data_) + begin, static_cast<size_t>(end - begin), MADV_POPULATE_READ);
#else
    (void)begin;
    (void)end;
#endif
}

void PcapMap::release(uint64_t begin, uint64_t end) const {
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    begin = (begin + page - 1) / page * page; // whole pages only: the ends may be shared
    end = (end < size_ ? end : size_) / page * page;
    if (end > begin) madvise(const_cast<uint8_t *>(data_) + begin, static_cast<size_t>(end - begin), MADV_DONTNEED);
}

bool PcapMap::plausible_chain(uint64_t pos, const FileSpan *span) const {
    const uint32_t frac_limit = nanoseconds_ ? 1000000000u : 1000000u;
    for (int i = 0; i < kGuessChain; ++i) {
        if (pos == size_) return i > 0; // the records run exactly to the end
        RecordHeader h;
        const uint64_t n = record_at(pos, &h, span);
        // A view shifted by 4 bytes reads (usec, caplen, len, frame) as a
        // record whose "len" is the frame's first bytes: real wire lengths
        // stay far below 2^18 (checked here only, for guessing). Time stamps
        // are no help: merged captures jump back and forth.
        if (n == 0 || h.caplen == 0 || h.caplen > h.wirelen || h.wirelen > kMaxSnaplen) return false;
        if (load32(bytes(pos + 4, 4, span), swapped_) >= frac_limit) return false;
        pos += n;
    }
    return true;
}

uint64_t PcapMap::guess_record_start(uint64_t from, uint64_t to, const FileSpan *span) const {
    for (uint64_t pos = from < kFirstRecord ? kFirstRecord : from; pos < to; ++pos)
        if (plausible_chain(pos, span)) return pos;
    return to;
}

} // namespace wm::capture
