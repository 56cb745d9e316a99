// plugin/src/capture/pcap_slicer.cpp - see pcap_slicer.h.
#include "capture/pcap_slicer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace wm::capture {

namespace {

constexpr uint64_t kFileHeader = 24;
constexpr uint64_t kRecordHeader = 16;
// libpcap refuses longer records for the usual link types (MAXIMUM_SNAPLEN);
// the walk stops there and leaves the verdict to libpcap.
constexpr uint32_t kMaxRecord = 262144;

uint32_t load32(const uint8_t *p, bool swapped) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return swapped ? __builtin_bswap32(v) : v;
}

} // namespace

struct PcapSlicer::Mapping {
    const uint8_t *data = nullptr;
    size_t size = 0;
    ~Mapping() {
        if (data != nullptr) munmap(const_cast<uint8_t *>(data), size);
    }
};

PcapSlicer::PcapSlicer(const std::string &path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<uint64_t>(st.st_size) < kFileHeader) {
        close(fd);
        return;
    }
    void *p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return;
    auto m = std::make_unique<Mapping>();
    m->data = static_cast<const uint8_t *>(p);
    m->size = static_cast<size_t>(st.st_size);
    madvise(p, m->size, MADV_SEQUENTIAL);
    uint32_t magic;
    std::memcpy(&magic, m->data, 4);
    // Microsecond and nanosecond classic pcap, written in either byte order.
    if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du)
        swapped_ = false;
    else if (magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u)
        swapped_ = true;
    else
        return; // pcapng or not a capture: read in sequence
    map_ = std::move(m);
    size_ = map_->size;
    pos_ = kFileHeader;
}

PcapSlicer::~PcapSlicer() = default;

bool PcapSlicer::sliceable() const { return map_ != nullptr; }

uint64_t PcapSlicer::record_bytes() const {
    if (size_ - pos_ < kRecordHeader) return 0;
    const uint32_t caplen = load32(map_->data + pos_ + 8, swapped_);
    if (caplen > kMaxRecord || size_ - pos_ - kRecordHeader < caplen) return 0;
    return kRecordHeader + caplen;
}

bool PcapSlicer::next_window(uint64_t max_bytes, unsigned parts, std::vector<FileSlice> &out) {
    out.clear();
    if (!map_ || parts == 0) return false;
    const uint64_t per_part = std::max<uint64_t>(1, max_bytes / parts);
    uint64_t window = 0;
    FileSlice cur{pos_, 0, number_, 0};
    for (;;) {
        const uint64_t n = record_bytes();
        if (n == 0 || (window > 0 && window + n > max_bytes)) break;
        if (cur.bytes >= per_part && out.size() + 1 < parts) {
            out.push_back(cur);
            cur = FileSlice{pos_, 0, number_, 0};
        }
        cur.records++;
        cur.bytes += n;
        window += n;
        pos_ += n;
        number_++;
    }
    if (cur.records > 0) out.push_back(cur);
    return !out.empty();
}

} // namespace wm::capture
