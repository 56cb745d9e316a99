// plugin/src/capture/pcap_file.cpp - see pcap_file.h.
#include "capture/pcap_file.h"

#include "capture/decoder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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
// pseudo-header byte swapping) and that the decoder understands. In a file
// of the other byte order libpcap swaps the CAN ID of Linux cooked frames
// (swap_pseudo_headers): those are left to it.
bool read_in_place(int dlt, bool swapped) {
    switch (dlt) {
    case kDltNull: case kDltEthernet: case kDltRaw: case kDltRawOpenBsd: case kDltLinktypeRaw:
    case kDltLoop: case kDltIpv4: case kDltIpv6:
        return true;
    case kDltLinuxSll: case kDltLinuxSll2:
        return !swapped;
    default:
        return false;
    }
}

bool pread_all(int fd, uint64_t pos, uint64_t n, uint8_t *dst, uint64_t *got) {
    *got = 0;
    while (*got < n) {
        const ssize_t r = pread(fd, dst + *got, static_cast<size_t>(n - *got), static_cast<off_t>(pos + *got));
        if (r <= 0) return false; // an error, or the file ends here now
        *got += static_cast<uint64_t>(r);
    }
    return true;
}

} // namespace

PcapFile::PcapFile(int fd, int dlt) {
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) < kFirstRecord)
        return;
    uint8_t d[kFirstRecord];
    uint64_t got = 0;
    if (!pread_all(fd, 0, kFirstRecord, d, &got)) return;
    uint32_t magic;
    std::memcpy(&magic, d, 4);
    if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du) {
        swapped_ = false;
    } else if (magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u) {
        swapped_ = true;
    } else {
        return; // pcapng, the "patched" formats, not a capture
    }
    nanoseconds_ = magic == 0xa1b23c4du || magic == 0x4d3cb2a1u;
    // Version 2.4 only: older files may have caplen and len interchanged,
    // which libpcap undoes by a heuristic.
    if (load16(d + 4, swapped_) != 2 || load16(d + 6, swapped_) != 4) return;
    if (!read_in_place(dlt, swapped_)) return;
    // pcap_adjust_snapshot: 0 or too large means the link type's maximum.
    const uint32_t snaplen = load32(d + 16, swapped_);
    snapshot_ = (snaplen == 0 || snaplen > kMaxSnaplen) ? kMaxSnaplen : snaplen;
    size_ = static_cast<uint64_t>(st.st_size);
    fd_ = fcntl(fd, F_DUPFD_CLOEXEC, 0); // our own descriptor of the same open file (pread keeps no offset)
}

PcapFile::~PcapFile() {
    if (fd_ >= 0) close(fd_);
}

FileSpan PcapFile::read_span(uint64_t begin, uint64_t end, uint8_t *dst) const {
    end = end < size_ ? end : size_;
    if (begin >= end || shrank_.load(std::memory_order_relaxed)) return FileSpan{dst, begin, begin};
    uint64_t got = 0;
    if (!pread_all(fd_, begin, end - begin, dst, &got)) shrank_.store(true, std::memory_order_relaxed);
    return FileSpan{dst, begin, begin + got};
}

bool PcapFile::read(uint64_t pos, uint64_t n, uint8_t *dst) const {
    if (shrank_.load(std::memory_order_relaxed)) return false;
    uint64_t got = 0;
    if (pread_all(fd_, pos, n, dst, &got)) return true;
    if (pos + n <= size_) shrank_.store(true, std::memory_order_relaxed);
    return false;
}

bool PcapFile::header_bytes(uint64_t pos, const FileSpan *span, uint8_t out[kRecordHeader]) const {
    if (span && span->holds(pos, kRecordHeader)) {
        std::memcpy(out, span->data + (pos - span->begin), kRecordHeader);
        return true;
    }
    return read(pos, kRecordHeader, out);
}

uint64_t PcapFile::record_at(uint64_t pos, RecordHeader *h, const FileSpan *span) const {
    if (pos >= size_ || size_ - pos < kRecordHeader) return 0;
    if (span && span->holds(pos, kRecordHeader)) return parse_header(pos, span->data + (pos - span->begin), h);
    uint8_t r[kRecordHeader];
    return read(pos, kRecordHeader, r) ? parse_header(pos, r, h) : 0;
}

uint64_t PcapFile::parse_header(uint64_t pos, const uint8_t r[kRecordHeader], RecordHeader *h) const {
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

bool PcapFile::plausible_lengths(uint32_t caplen, uint32_t wirelen) const {
    // 1 <= caplen <= the snapshot length (caplen 0 wraps), and no more than
    // the wire length, itself far below 2^18 in real records.
    return caplen - 1 < snapshot_ && caplen <= wirelen && wirelen <= kMaxSnaplen;
}

bool PcapFile::plausible_chain(uint64_t pos, const FileSpan *span) const {
    const uint32_t frac_limit = nanoseconds_ ? 1000000000u : 1000000u;
    for (int i = 0; i < kGuessChain; ++i) {
        if (pos == size_) return i > 0; // the records run exactly to the end
        uint8_t r[kRecordHeader];
        RecordHeader h;
        if (pos > size_ || size_ - pos < kRecordHeader || !header_bytes(pos, span, r)) return false;
        const uint64_t n = parse_header(pos, r, &h);
        // A view shifted by 4 bytes reads (usec, caplen, len, frame) as a
        // record whose "len" is the frame's first bytes: real wire lengths
        // stay far below 2^18 (checked here only, for guessing). Time stamps
        // are no help: merged captures jump back and forth.
        if (n == 0 || !plausible_lengths(h.caplen, h.wirelen)) return false;
        if (load32(r + 4, swapped_) >= frac_limit) return false;
        pos += n;
    }
    return true;
}

uint64_t PcapFile::guess_record_start(uint64_t from, uint64_t to, const FileSpan *span) const {
    uint64_t pos = from < kFirstRecord ? kFirstRecord : from;
    // Inside the span, the lengths of a would-be header are tested first
    // (plausible_chain's first test of its first record): almost every offset
    // inside payload bytes fails here, at a tenth of plausible_chain's cost
    // (a part that starts inside a 64 KB record tests some 64 K offsets).
    if (span && span->holds(pos, kRecordHeader)) {
        const uint64_t last = std::min(to, span->end - kRecordHeader + 1); // headers wholly inside the span
        for (const uint8_t *r = span->data + (pos - span->begin); pos < last; ++pos, ++r) {
            if (plausible_lengths(load32(r + 8, swapped_), load32(r + 12, swapped_)) && plausible_chain(pos, span))
                return pos;
        }
    }
    for (; pos < to; ++pos)
        if (plausible_chain(pos, span)) return pos;
    return to;
}

} // namespace wm::capture
