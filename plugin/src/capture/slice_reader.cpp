// plugin/src/capture/slice_reader.cpp - see slice_reader.h.
#include "capture/slice_reader.h"

#include "capture/decoder.h"
#include "capture/offline_capture.h"

#include <pcap/pcap.h>

#include <cstdio>
#include <optional>

namespace wm::capture {

struct SliceReader::Impl {
    std::string path;
    pcap_t *pcap = nullptr;
    int dlt = -1;
    uint64_t next_number = 1;
    bool over = false;
    const FrameFilter *filter = nullptr;
    const TunnelPorts *ports = nullptr;
    // A record whose payload did not fit the last call.
    bool has_pending = false;
    wm_packet_t pending{};
    std::optional<wm_tunnel_t> pending_tunnel;
    std::vector<uint8_t> pending_bytes;

    ~Impl() {
        if (pcap != nullptr) pcap_close(pcap);
    }

    // Payload pointers are set by read() once the call's copies stop moving.
    void place(const wm_packet_t &pkt, const uint8_t *payload, const std::optional<wm_tunnel_t> &tunnel,
               RecordRun &out) {
        out.bytes.insert(out.bytes.end(), payload, payload + pkt.payload_len);
        if (tunnel) out.tunnels.push_back({out.packets.size(), *tunnel});
        out.packets.push_back(pkt);
    }
    static void point_payloads(RecordRun &out) {
        size_t at = 0;
        for (wm_packet_t &p : out.packets) {
            p.payload = out.bytes.data() + at;
            at += p.payload_len;
        }
    }
};

SliceReader::SliceReader(const std::string &path, uint64_t offset, uint64_t first_number)
    : impl_(std::make_unique<Impl>()) {
    Impl &s = *impl_;
    s.path = path;
    s.next_number = first_number;
    char errbuf[PCAP_ERRBUF_SIZE];
    errbuf[0] = '\0';
    s.pcap = pcap_open_offline(path.c_str(), errbuf);
    if (s.pcap == nullptr) throw CaptureError("cannot open " + path + ": " + errbuf);
    s.dlt = pcap_datalink(s.pcap);
    // libpcap reads a savefile through stdio, record by record, and keeps no
    // state between records; seeking its FILE to a record header is how
    // tcpslice jumps into a capture too.
    if (offset != 0 && std::fseek(pcap_file(s.pcap), static_cast<long>(offset), SEEK_SET) != 0)
        throw CaptureError("cannot seek " + path + " to byte " + std::to_string(offset));
}

SliceReader::~SliceReader() = default;

int SliceReader::link_type() const { return impl_->dlt; }

int SliceReader::file_descriptor() const {
    FILE *f = pcap_file(impl_->pcap);
    return f ? fileno(f) : -1;
}

void SliceReader::seek(uint64_t offset, uint64_t first_number) {
    Impl &s = *impl_;
    FILE *f = pcap_file(s.pcap);
    if (f == nullptr || std::fseek(f, static_cast<long>(offset), SEEK_SET) != 0)
        throw CaptureError("cannot seek " + s.path + " to byte " + std::to_string(offset));
    s.next_number = first_number;
    s.over = false;
    s.has_pending = false;
}

void SliceReader::set_filter(const FrameFilter *filter) { impl_->filter = filter; }

void SliceReader::set_tunnel_ports(const TunnelPorts *ports) { impl_->ports = ports; }

bool SliceReader::read(uint64_t max_records, size_t max_bytes, RecordRun &out) {
    const bool more = read_records(max_records, max_bytes, out);
    Impl::point_payloads(out);
    return more;
}

bool SliceReader::read_records(uint64_t max_records, size_t max_bytes, RecordRun &out) {
    Impl &s = *impl_;
    uint64_t taken = 0;
    if (s.has_pending && max_records > 0) {
        if (!out.bytes.empty() && out.bytes.size() + s.pending.payload_len > max_bytes) return true;
        count_record(kDecodedPayload, s.pending, out.stats);
        ++out.records;
        s.place(s.pending, s.pending_bytes.data(), s.pending_tunnel, out);
        s.has_pending = false;
        ++taken;
    }
    while (!s.over && taken < max_records) {
        pcap_pkthdr *hdr = nullptr;
        const u_char *data = nullptr;
        const int rc = pcap_next_ex(s.pcap, &hdr, &data);
        if (rc == PCAP_ERROR_BREAK) {
            s.over = true;
            break;
        }
        if (rc != 1) {
            out.error = record_error(s.path, s.next_number, pcap_geterr(s.pcap));
            s.over = true;
            break;
        }
        ++taken;
        if (s.filter && !s.filter->accepts(data, hdr->caplen, hdr->len)) {
            ++s.next_number;
            ++out.records;
            continue;
        }
        wm_packet_t pkt{};
        FrameLayers where;
        const int r = decode_record(s.dlt, s.next_number++, hdr->ts.tv_sec, hdr->ts.tv_usec,
                                    hdr->caplen, hdr->len, data, &pkt, s.ports, &where);
        std::optional<wm_tunnel_t> tunnel;
        if (r == kDecodedPayload && where.tunnels > 0) tunnel = tunnel_of(where);
        if (r == kDecodedPayload && !out.bytes.empty() &&
            out.bytes.size() + pkt.payload_len > max_bytes) {
            // Does not fit: counted and placed by the next call.
            s.pending = pkt;
            s.pending_bytes.assign(pkt.payload, pkt.payload + pkt.payload_len);
            s.pending_tunnel = tunnel;
            s.has_pending = true;
            return true;
        }
        count_record(r, pkt, out.stats);
        ++out.records;
        if (r == kDecodedPayload) s.place(pkt, pkt.payload, tunnel, out);
    }
    return !s.over || s.has_pending;
}

} // namespace wm::capture
