#include "stream/pcap_source.h"

#include "capture/pcap_file.h"

#include <pcap/pcap.h>
#include <poll.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace wm::stream {

namespace {
// File bytes read at once; a record running past them starts the next read.
constexpr uint64_t kChunkBytes = 4u << 20;
} // namespace

OfflineFrames::OfflineFrames(const std::string &path, bool in_place)
    : path_(path), hdr_(std::make_unique<pcap_pkthdr>()) {
    char errbuf[PCAP_ERRBUF_SIZE] = {0};
    p_ = pcap_open_offline(path.c_str(), errbuf);
    if (!p_) throw PcapError("cannot open " + path + ": " + errbuf);
    dlt_ = pcap_datalink(p_);
    if (!in_place || path == "-") return; // standard input: libpcap's, perhaps not from its start
    FILE *f = pcap_file(p_);
    file_ = std::make_unique<capture::PcapFile>(f ? fileno(f) : -1, dlt_);
    if (file_->usable())
        pos_ = capture::PcapFile::kFirstRecord;
    else
        file_.reset();
}

bool OfflineFrames::hand_over() {
    // The end of what was read in place, or a record libpcap must read (and
    // perhaps refuse) itself: it reads on from this record, as in a plain read.
    if (std::fseek(pcap_file(p_), static_cast<long>(pos_), SEEK_SET) != 0)
        throw PcapError(path_ + ": packet " + std::to_string(read_ + 1) + ": cannot seek to byte " +
                        std::to_string(pos_));
    file_.reset();
    chunk_ = std::vector<uint8_t>();
    return false;
}

OfflineFrames::~OfflineFrames() {
    if (p_) pcap_close(p_);
}

bool OfflineFrames::next_in_place(const pcap_pkthdr **hdr, const uint8_t **data) {
    using capture::PcapFile;
    capture::FileSpan span{chunk_.data(), chunk_begin_, chunk_end_};
    capture::RecordHeader h;
    uint64_t n = file_->record_at(pos_, &h, &span);
    if (n != 0 && !span.holds(pos_, n)) { // the record runs past the bytes read: read on from it
        chunk_.resize(std::max<uint64_t>(kChunkBytes, n));
        span = file_->read_span(pos_, pos_ + chunk_.size(), chunk_.data());
        chunk_begin_ = span.begin, chunk_end_ = span.end;
        n = file_->record_at(pos_, &h, &span);
    }
    // The end, a record libpcap must read, or one the file no longer holds.
    if (n == 0 || !span.holds(pos_, n)) return hand_over();
    hdr_->ts.tv_sec = static_cast<time_t>(h.ts_sec);
    hdr_->ts.tv_usec = static_cast<suseconds_t>(h.ts_usec);
    hdr_->caplen = h.caplen;
    hdr_->len = h.wirelen;
    *hdr = hdr_.get();
    *data = span.data + (pos_ - span.begin) + PcapFile::kRecordHeader;
    pos_ += n;
    ++read_;
    ++in_place_;
    return true;
}

int OfflineFrames::next(const pcap_pkthdr **hdr, const uint8_t **data) {
    if (file_ && next_in_place(hdr, data)) return 1;
    pcap_pkthdr *h = nullptr;
    const u_char *d = nullptr;
    const int rc = pcap_next_ex(p_, &h, &d);
    if (rc == PCAP_ERROR_BREAK) return 0;
    if (rc != 1)
        throw PcapError(path_ + ": packet " + std::to_string(read_ + 1) + ": " + pcap_geterr(p_));
    ++read_;
    *hdr = h;
    *data = d;
    return 1;
}

namespace {
[[noreturn]] void fail(pcap_t *p, const std::string &what) {
    std::string msg = what + ": " + pcap_geterr(p);
    pcap_close(p);
    throw PcapError(msg);
}

// A filter that does not compile is the caller's argument, not the device's
// failure: std::invalid_argument, as the offline readers throw (WM_INVALID).
[[noreturn]] void bad_filter(pcap_t *p, const std::string &bpf) {
    std::string msg = "bad capture filter '" + bpf + "': " + pcap_geterr(p);
    pcap_close(p);
    throw std::invalid_argument(msg);
}
} // namespace

LiveCapture::LiveCapture(const LiveSettings &s) {
    char errbuf[PCAP_ERRBUF_SIZE] = {0};
    pcap_t *p = pcap_create(s.interface.c_str(), errbuf);
    if (!p) throw PcapError("cannot open " + s.interface + ": " + errbuf);
    pcap_set_snaplen(p, s.snaplen);
    pcap_set_promisc(p, 1);
    pcap_set_buffer_size(p, s.buffer_mb << 20); // wm_live_open allows at most 2047 (an int of bytes)
    pcap_set_immediate_mode(p, s.immediate ? 1 : 0);
    pcap_set_timeout(p, s.timeout_ms);
    const int rc = pcap_activate(p);
    if (rc < 0) {
        // Name the usual fix: capabilities instead of root.
        std::string hint = rc == PCAP_ERROR_PERM_DENIED
                               ? " (needs CAP_NET_RAW: setcap cap_net_raw,cap_net_admin+eip "
                                 "on the binary, see docs/streams.md)"
                               : "";
        // libpcap's detail often repeats its status text ("No such device exists"): print it once.
        const std::string status = pcap_statustostr(rc), detail = pcap_geterr(p);
        std::string msg = "cannot capture on " + s.interface + ": " +
                          (detail.empty() || detail == status ? status
                           : detail.find(status) != std::string::npos ? detail
                                                                       : status + ": " + detail) +
                          hint;
        pcap_close(p);
        throw PcapError(msg);
    }
    if (!s.bpf.empty()) {
        bpf_program prog{};
        if (pcap_compile(p, &prog, s.bpf.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0)
            bad_filter(p, s.bpf);
        const int set = pcap_setfilter(p, &prog);
        pcap_freecode(&prog);
        if (set != 0) fail(p, "cannot set capture filter");
    }
    if (pcap_setnonblock(p, 1, errbuf) != 0) {
        pcap_close(p);
        throw PcapError(std::string("pcap_setnonblock: ") + errbuf);
    }
    fd_ = pcap_get_selectable_fd(p);
    timeout_ms_ = s.timeout_ms;
    immediate_ = s.immediate;
    dlt_ = pcap_datalink(p);
    p_ = p;
}

LiveCapture::~LiveCapture() {
    if (p_) pcap_close(p_);
}

int LiveCapture::poll(int wait_ms, int max, FrameFn fn, void *ctx) {
    // Packets already in the ring first; wait only when there are none.
    int n = pcap_dispatch(p_, max, reinterpret_cast<pcap_handler>(fn),
                          reinterpret_cast<u_char *>(ctx));
    if (n == 0 && wait_ms > 0 && fd_ >= 0) {
        pollfd pfd{fd_, POLLIN, 0};
        ::poll(&pfd, 1, wait_ms); // EINTR (a signal) just ends the wait
        n = pcap_dispatch(p_, max, reinterpret_cast<pcap_handler>(fn),
                          reinterpret_cast<u_char *>(ctx));
    }
    if (n == PCAP_ERROR_BREAK) return 0;
    if (n < 0) throw PcapError(std::string("pcap_dispatch: ") + pcap_geterr(p_));
    return n;
}

void LiveCapture::break_loop() { pcap_breakloop(p_); }

void LiveCapture::stats(uint64_t *recv, uint64_t *drop, uint64_t *ifdrop) const {
    pcap_stat st{};
    if (pcap_stats(p_, &st) == 0) {
        *recv = st.ps_recv;
        *drop = st.ps_drop;
        *ifdrop = st.ps_ifdrop;
    }
}

} // namespace wm::stream
