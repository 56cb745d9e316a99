// plugin/src/capture/offline_capture.cpp - libpcap offline reader + decoder.
//
// libpcap reads both pcap and pcapng (pcap_open_offline sniffs the magic).
// Every record is counted exactly once: as a delivered payload or under one
// skip reason, so payloads + sum(skipped) == packets at any point.
#include "capture/offline_capture.h"

#include "capture/decoder.h"

#include <pcap/pcap.h>

#include <cstring>

namespace wm::capture {

struct OfflineCapture::Impl {
    std::string path;
    pcap_t *pcap = nullptr;
    int dlt = -1;
    wm_capture_stats_t stats{};
    // Set once pcap_next_ex failed: libpcap's state after a read error is
    // unspecified, so later calls repeat the error instead of reading on.
    std::string error;

    ~Impl() {
        if (pcap != nullptr) pcap_close(pcap);
    }
};

OfflineCapture::OfflineCapture(const std::string &path) : impl_(std::make_unique<Impl>()) {
    impl_->path = path;
    impl_->stats.struct_size = sizeof(wm_capture_stats_t);
    char errbuf[PCAP_ERRBUF_SIZE];
    errbuf[0] = '\0';
    impl_->pcap = pcap_open_offline(path.c_str(), errbuf);
    if (impl_->pcap == nullptr) throw CaptureError("cannot open " + path + ": " + errbuf);
    impl_->dlt = pcap_datalink(impl_->pcap);
}

OfflineCapture::~OfflineCapture() = default;

int OfflineCapture::next(wm_packet_t *pkt) {
    Impl &s = *impl_;
    if (!s.error.empty()) throw CaptureError(s.error);
    for (;;) {
        pcap_pkthdr *hdr = nullptr;
        const u_char *data = nullptr;
        const int rc = pcap_next_ex(s.pcap, &hdr, &data);
        if (rc == PCAP_ERROR_BREAK) return WM_END; // clean end of file
        if (rc != 1) {
            // PCAP_ERROR: a truncated or corrupt record. The record that
            // failed is the one after the last one read.
            s.error = s.path + ": packet " + std::to_string(s.stats.packets + 1) +
                      ": " + pcap_geterr(s.pcap);
            throw CaptureError(s.error);
        }
        wm_capture_stats_t &st = s.stats;
        ++st.packets;
        st.bytes += hdr->caplen;
        if (hdr->caplen < hdr->len) ++st.snaplen_truncated;

        pkt->struct_size = sizeof(wm_packet_t);
        pkt->number = st.packets;
        pkt->ts_sec = static_cast<int64_t>(hdr->ts.tv_sec);
        pkt->ts_usec = static_cast<int64_t>(hdr->ts.tv_usec);
        pkt->caplen = hdr->caplen;
        pkt->wirelen = hdr->len;
        const int r = decode_frame(s.dlt, data, hdr->caplen, pkt);
        if (r == kDecodedPayload) {
            ++st.payloads;
            st.payload_bytes += pkt->payload_len;
            return WM_SUCCESS;
        }
        ++st.skipped[r];
    }
}

const wm_capture_stats_t &OfflineCapture::stats() const { return impl_->stats; }

const std::string &OfflineCapture::path() const { return impl_->path; }

int OfflineCapture::link_type() const { return impl_->dlt; }

} // namespace wm::capture
