// tests/fuzz/fuzz_pcap_read.cpp - capture files of arbitrary bytes, read
// by libpcap in sequence (OfflineCapture) and by the window reader (in
// place, in parts, on threads). Property: both give the same packets,
// payloads, counters and error, as the reader promises (window_reader.h);
// a file neither opens fails both with the same message. The UDP tunnels'
// ports vary with the input's size: the standard ones, the default
// TunnelPorts object (which must decode as the standard ones), or a set
// with more ports (common ones among them, so more datagrams try a header).
#include "plugin/src/capture/tunnel_ports.h"
#include "plugin/src/capture/window_reader.h"
#include "tests/capture/plain_read.h"
#include "tests/fuzz/fuzz_input.h"

#include <string>
#include <vector>

namespace {

using wm::capture::CaptureError;
using wm::capture::test::Seen;
using wm::fuzz::fail;
using wm::fuzz::require;

// in_place: payloads left where the file has them (set_payloads_in_place).
Seen read_windows(const std::string &path, uint64_t window, unsigned threads,
                  const wm::capture::TunnelPorts *ports, bool in_place) {
    Seen r;
    wm::capture::WindowReader reader(path, window, threads);
    reader.set_tunnel_ports(ports);
    reader.set_payloads_in_place(in_place);
    wm::capture::PayloadWindow w;
    std::vector<uint8_t> buf;
    while (reader.next(w, [&](size_t n) {
        buf.assign(n, 0xEE);
        return buf.data();
    })) {
        require(r.error.empty(), "a window after the window with the error");
        require(w.offsets.size() == w.count() + 1 && w.meta.size() == w.count(), "a window's arrays disagree");
        for (size_t i = 0; i < w.count(); ++i) {
            const wm_packet_t &p = w.packets[i];
            const uint32_t at = w.in_place() ? w.sources[i] : w.offsets[i];
            require(p.payload == w.data + at && p.payload_len == w.offsets[i + 1] - w.offsets[i],
                    "a packet's payload is not its window slice");
            require(at + uint64_t{p.payload_len} <= buf.size(), "a payload past the window's buffer");
            require(!w.in_place() || i == 0 || w.sources[i] >= w.sources[i - 1] + w.packets[i - 1].payload_len,
                    "payloads left in place out of order");
            r.packets.push_back(p);
            r.payloads.emplace_back(p.payload, p.payload + p.payload_len);
            r.tunnels.push_back(wm::capture::test::carrier_of(p));
        }
        wm::capture::add_capture_stats(r.stats, w.stats);
        r.error = w.error;
    }
    return r;
}

// The first difference between two reads, or "" when they agree.
std::string difference(const Seen &want, const Seen &got) {
    if (got.packets.size() != want.packets.size())
        return "payload packets " + std::to_string(got.packets.size()) + " against " +
               std::to_string(want.packets.size());
    if (want.tunnels.size() != want.packets.size() || got.tunnels.size() != got.packets.size())
        return "a read kept no carrier for some packet";
    for (size_t i = 0; i < want.packets.size(); ++i) {
        const wm_packet_t &a = want.packets[i], &g = got.packets[i];
        const bool same = g.number == a.number && g.ts_sec == a.ts_sec && g.ts_usec == a.ts_usec &&
                          g.caplen == a.caplen && g.wirelen == a.wirelen && g.proto == a.proto &&
                          g.src_port == a.src_port && g.dst_port == a.dst_port && g.flow_id == a.flow_id &&
                          g.payload_offset == a.payload_offset && got.payloads[i] == want.payloads[i];
        if (!same) return "packet " + std::to_string(a.number) + " differs";
        const auto &wt = want.tunnels[i], &gt = got.tunnels[i];
        if (wt.has_value() != gt.has_value() || (wt && !wm::capture::test::same_carrier(*wt, *gt)))
            return "packet " + std::to_string(a.number) + ": its tunnel carrier differs";
    }
    const wm_capture_stats_t &a = want.stats, &g = got.stats;
    bool same = g.packets == a.packets && g.bytes == a.bytes && g.payloads == a.payloads &&
                g.payload_bytes == a.payload_bytes && g.snaplen_truncated == a.snaplen_truncated;
    for (int k = 0; k < WM_SKIP_REASON_COUNT; ++k) same = same && g.skipped[k] == a.skipped[k];
    if (!same) return "the counters differ";
    if (got.error != want.error) return "error '" + got.error + "' against '" + want.error + "'";
    return {};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const wm::capture::TunnelPorts kDefaults,
        kMore = wm::capture::TunnelPorts::parse(
            "vxlan=4789,8472,53;geneve=6081,443;gtpu=2152,2123,80;teredo=3544,1;ayiya=5072,2;"
        "vxlan-gpe=4790,3;mpls-udp=6635,4");
    const wm::capture::TunnelPorts *ports = size % 3 == 0 ? nullptr : size % 3 == 1 ? &kDefaults : &kMore;
    const std::string &path = wm::fuzz::write_scratch(data, size, ".pcap");
    std::string open_error;
    Seen want;
    try {
        want = wm::capture::test::read_plain(path, ports);
        if (ports == &kDefaults) {
            const std::string diff = difference(wm::capture::test::read_plain(path), want);
            require(diff.empty(), "the default ports object against the standard ports: " + diff);
        }
    } catch (const CaptureError &e) {
        open_error = e.what();
    }
    // Tiny windows: many windows, parts and libpcap slices; one thread is the
    // sequential path. Payloads packed, and (by the input's size) left in place.
    const bool in_place = size % 2 == 1;
    for (const auto &[window, threads] : {std::pair<uint64_t, unsigned>{1, 1}, {200, 3}, {1 << 20, 2}}) {
        const std::string config = "window " + std::to_string(window) + ", " + std::to_string(threads) + " threads" +
                                   (in_place ? ", in place: " : ": ");
        Seen got;
        try {
            got = read_windows(path, window, threads, ports, in_place);
        } catch (const CaptureError &e) {
            if (open_error.empty()) fail(config + "the window reader refused what libpcap opens: " + e.what());
            require(e.what() == open_error, config + "open error '" + e.what() + "' against '" + open_error + "'");
            continue;
        }
        if (!open_error.empty()) fail(config + "the window reader opened what libpcap refuses: " + open_error);
        const std::string diff = difference(want, got);
        if (!diff.empty()) fail(config + diff);
    }
    return 0;
}
