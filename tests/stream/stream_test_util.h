// Helpers for the stream tests: a reassembly sink that records what it
// gets, crafted TCP/UDP frames of one IPv4 conversation, and a pipeline
// over a real (CPU) scanner that records alerts.
#pragma once

#include "capture/decoder.h"
#include "capture/packet_builder.h"
#include "compiled_ruleset.h"
#include "replay.h"
#include "rules/rule.h"
#include "scanner.h"
#include "stream/pcap_source.h"
#include "stream/stream_pipeline.h"
#include "stream/tcp_reassembly.h"

#include <pcap/pcap.h>

#include <optional>

#include <memory>
#include <string>
#include <vector>

namespace wm::stream::test {

namespace build = capture::build;

// Records a reassembled stream: the bytes delivered, where each delivery
// and gap began, and whether they followed each other without overlap.
struct Recorder final : StreamReceiver {
    std::string bytes;                                 // everything delivered
    std::vector<uint64_t> offsets;                     // offset of each delivery
    std::vector<std::pair<uint64_t, uint64_t>> gaps;   // [from, to)
    uint64_t expect_next = 0;
    bool contiguous = true;                            // each delivery starts where the last ended
    void data(uint64_t off, const uint8_t *b, size_t n) override {
        if (off != expect_next) contiguous = false;
        offsets.push_back(off);
        bytes.append(reinterpret_cast<const char *>(b), n);
        expect_next = off + n;
    }
    void gap(uint64_t from, uint64_t to) override {
        if (from != expect_next) contiguous = false;
        gaps.emplace_back(from, to);
        expect_next = to;
    }
    std::vector<std::pair<int64_t, std::string>> late_bytes; // (offset, bytes) of each late span
    void late(int64_t off, const uint8_t *b, size_t, size_t lo, size_t hi) override {
        late_bytes.emplace_back(off + int64_t(lo), std::string(reinterpret_cast<const char *>(b) + lo, hi - lo));
    }
};

inline const uint8_t *u8(const std::string &s) {
    return reinterpret_cast<const uint8_t *>(s.data());
}

inline wm_stream_stats_t zero_stats() {
    wm_stream_stats_t st{};
    st.struct_size = sizeof(st);
    return st;
}

inline wm_stream_config_t default_config() {
    wm_stream_config_t c;
    wm_stream_config_init(&c);
    return c;
}

// One IPv4 TCP conversation 10.0.0.1:<cport> <-> 10.0.0.2:<sport>, in
// frames with the given VLAN tags (outermost first).
struct Conversation {
    uint16_t cport = 40000, sport = 80;
    std::vector<build::VlanTag> tags;
    build::Bytes frame(bool from_client, uint32_t seq, uint8_t flags, const std::string &payload,
                       uint32_t ack = 0) const {
        build::TcpSpec t;
        t.sport = from_client ? cport : sport;
        t.dport = from_client ? sport : cport;
        t.seq = seq;
        t.ack = ack;
        t.flags = flags;
        build::Ipv4Spec ip;
        ip.src = from_client ? build::ip4(10, 0, 0, 1) : build::ip4(10, 0, 0, 2);
        ip.dst = from_client ? build::ip4(10, 0, 0, 2) : build::ip4(10, 0, 0, 1);
        return build::ethernet_ip(build::ipv4(ip, build::kProtoTcp, build::tcp(t, build::bytes(payload))), tags);
    }
};

struct Alert {
    uint32_t rule;
    uint64_t packet;
    uint32_t start, end;
    std::string window;                // the scanned payload
    std::optional<wm_tunnel_t> tunnel; // the carrier its packet pointed at
};

// How a Harness's pipeline cuts and scans its batches, and the UDP tunnels'
// ports it decodes frames with (PipelineOptions).
struct PipelineSetup {
    bool scan_ahead = false;
    size_t max_batch_bytes = 0;                         // 0: the pipeline's default
    const capture::TunnelPorts *tunnel_ports = nullptr; // nullptr: the standard ones
};

// A pipeline over a scanner in positions mode (CPU unless told) for the given rules.
class Harness {
  public:
    explicit Harness(const std::string &yaml, bool streams = true,
                     wm_stream_config_t cfg = default_config(), bool verify = true)
        : Harness(rules::load_rules_string(yaml, "test.yaml"), streams, cfg, verify) {}
    // backend WM_BACKEND_GPU throws StatusError without a usable GPU.
    Harness(rules::RuleSet rules, bool streams, wm_stream_config_t cfg, bool verify,
            int backend = WM_BACKEND_CPU, unsigned cpu_threads = 1, PipelineSetup setup = {},
            wm_alert_fn on_alert = &Harness::on_alert)
        : rs_(std::move(rules)) {
        wm_scanner_options_t o;
        wm_scanner_options_init(&o);
        o.backend = backend;
        o.cpu_threads = cpu_threads;
        o.output_mode = WM_OUTPUT_POSITIONS;
        sc_ = std::make_unique<Scanner>(rs_, o);
        adapter_ = std::make_unique<ScannerForStreams>(*sc_);
        PipelineOptions po;
        po.streams = streams;
        po.verify_streams = streams && verify;
        po.config = cfg;
        po.scan_ahead = setup.scan_ahead;
        po.max_batch_bytes = setup.max_batch_bytes;
        po.tunnel_ports = setup.tunnel_ports;
        pl_ = std::make_unique<StreamPipeline>(*adapter_, po, on_alert, this);
    }
    // Feeds one Ethernet frame at capture time sec.
    void feed(const build::Bytes &f, int64_t sec = 1) {
        pl_->frame(capture::kDltEthernet, f.data(), uint32_t(f.size()), uint32_t(f.size()), sec,
                   ++usec_);
    }
    void finish() { pl_->finish(); }
    // Every frame of a capture file, then finish().
    void replay(const std::string &path) {
        OfflineFrames frames(path);
        const pcap_pkthdr *h = nullptr;
        const uint8_t *d = nullptr;
        while (frames.next(&h, &d))
            pl_->frame(frames.link_type(), d, h->caplen, h->len, h->ts.tv_sec, h->ts.tv_usec);
        finish();
    }
    std::vector<Alert> alerts_of(uint32_t id) const {
        std::vector<Alert> out;
        for (const auto &a : alerts) if (a.rule == id) out.push_back(a);
        return out;
    }
    StreamPipeline &pipeline() { return *pl_; }
    const Scanner &scanner() const { return *sc_; }
    const wm_stream_stats_t &stats() const { return pl_->stream_stats(); }

    std::vector<Alert> alerts;

    // The default alert callback: records the alert.
    static int on_alert(const wm_alert_t *a, void *ctx) {
        auto *h = static_cast<Harness *>(ctx);
        h->alerts.push_back(Alert{a->rule_id, a->packet->number, a->start, a->end,
                                  std::string(reinterpret_cast<const char *>(a->packet->payload),
                                              a->packet->payload_len),
                                  a->packet->tunnel ? std::optional<wm_tunnel_t>(*a->packet->tunnel) : std::nullopt});
        return 0;
    }

  private:
    CompiledRuleSet rs_;
    std::unique_ptr<Scanner> sc_;
    std::unique_ptr<ScannerForStreams> adapter_;
    std::unique_ptr<StreamPipeline> pl_;
    int64_t usec_ = 0;
};

inline std::string rule_yaml(uint32_t id, const std::string &pattern, uint32_t offset = 0,
                             uint32_t depth = 0) {
    return "  - id: " + std::to_string(id) + "\n    msg: \"r" + std::to_string(id) +
           "\"\n    pattern: \"" + pattern + "\"\n    offset: " + std::to_string(offset) +
           "\n    depth: " + std::to_string(depth) + "\n";
}

inline std::string rules_yaml(const std::string &body) { return "version: 1\nrules:\n" + body; }

} // namespace wm::stream::test
