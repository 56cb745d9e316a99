// tests/fuzz/fuzz_replay.cpp - whole replays (C API, CPU backend) of
// capture files of arbitrary bytes. Properties: per payload, the alerts are
// the reference matcher's on libpcap's own read of the file, up to the same
// corrupt record; with streams, reassembly and scanning agree with
// Hyperscan's stream mode over the same streams (verify_streams); a failed
// replay says why. The UDP tunnels' ports vary with the input's size: the
// standard ones, the same spelled out (the bitmap path), or more ports.
// WM_FUZZ_BACKEND=gpu runs it on the GPU (fuzz_backend.h).
#include "tests/rule_applies.h"
#include "plugin/src/capture/offline_capture.h"
#include "plugin/src/capture/tunnel_ports.h"
#include "plugin/src/compiled_ruleset.h"
#include "plugin/src/reference_matcher.h"
#include "tests/fuzz/fuzz_backend.h"
#include "tests/fuzz/fuzz_input.h"
#include "warpmatch.h"
#include "warpmatch_stream.h"

#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using wm::fuzz::fail;
using wm::fuzz::require;

// Short patterns, so random and mutated traffic matches often, with every
// constraint the engines apply: nocase, offset/depth, protocol, ports.
constexpr char kRules[] = R"(version: 1
rules:
  - {id: 1, msg: get, pattern: "GET "}
  - {id: 2, msg: http, pattern: "http/1.", nocase: true}
  - {id: 3, msg: zeros, pattern: "|00 00 00|"}
  - {id: 4, msg: ab at start, pattern: "ab", offset: 0, depth: 4}
  - {id: 5, msg: tcp x, pattern: "xy", protocol: tcp}
  - {id: 6, msg: udp 53, pattern: "|01 00|", protocol: udp, ports: [53]}
  - {id: 7, msg: late, pattern: "zz", offset: 8}
  - {id: 8, msg: A, pattern: "A"}
)";

using AlertKey = std::pair<uint64_t, uint32_t>; // (packet number, rule id)

struct Engines {
    wm_ruleset_t *rs = nullptr;
    wm_scanner_t *scanner = nullptr;
    wm::CompiledRuleSet compiled{wm::rules::load_rules_string(kRules, "fuzz-rules.yaml")};
    wm::ReferenceMatcher reference{compiled.rules()};
    Engines() {
        wm_error_t *err = nullptr;
        require(wm_ruleset_load_string(kRules, sizeof kRules - 1, "fuzz-rules.yaml", &rs, &err) == WM_SUCCESS,
                "the fuzz rules do not load");
        scanner = wm::fuzz::make_scanner(rs);
        std::fprintf(stderr, "fuzz_replay: backend %s\n", wm_scanner_backend(scanner) == WM_BACKEND_GPU ? "gpu" : "cpu");
    }
};

Engines &engines() {
    static Engines e;
    return e;
}

// Alerts and how the file ended, libpcap's read and the reference matcher.
std::set<AlertKey> reference_alerts(const std::string &path, const wm::capture::TunnelPorts *ports,
                                    std::string *error) {
    Engines &e = engines();
    std::set<AlertKey> out;
    wm::capture::OfflineCapture cap(path);
    cap.set_tunnel_ports(ports);
    wm_packet_t p{};
    p.struct_size = sizeof(p);
    try {
        while (cap.next(&p) == WM_SUCCESS) {
            uint32_t offsets[2] = {0, p.payload_len};
            wm_payload_meta_t meta{p.proto, p.src_port, p.dst_port};
            std::vector<wm::Match> m;
            e.reference.scan(wm::BatchView{p.payload, offsets, 1, &meta}, WM_OUTPUT_SET, m);
            for (const auto &x : m)
                if (wm::test::rule_applies(e.compiled.rules()[x.rule], meta))
                    out.emplace(p.number, e.compiled.rules()[x.rule].id);
        }
    } catch (const wm::capture::CaptureError &err) {
        *error = err.what();
    }
    return out;
}

int collect(const wm_alert_t *a, void *ctx) {
    static_cast<std::set<AlertKey> *>(ctx)->emplace(a->packet->number, a->rule_id);
    return 0;
}

// One replay; its status, alerts and error message. layout: wm_payload_layout.
int replay(const std::string &path, int streams, const char *ports, int layout, std::set<AlertKey> *alerts,
           std::string *message) {
    wm_replay_options_t o;
    wm_replay_options_init(&o);
    o.tunnel_ports = ports;
    o.payload_layout = layout;
    o.streams = streams;
    o.verify_streams = streams;
    o.read_threads = 2;
    wm_replay_stats_t st;
    wm_replay_stats_init(&st);
    wm_error_t *err = nullptr;
    const int rc =
        wm_replay_file_ex(engines().scanner, path.c_str(), &o, collect, alerts, nullptr, nullptr, &st, nullptr, &err);
    if (err) *message = err->message;
    wm_error_free(err);
    return rc;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const kSpecs[3] = {
        "", "vxlan=4789 geneve=6081 gtpu=2152 teredo=3544 ayiya=5072 vxlan-gpe=4790 mpls-udp=6635",
        "vxlan=4789,8472,53;geneve=6081,443;gtpu=2152,2123,80;teredo=3544,1;ayiya=5072,2;"
        "vxlan-gpe=4790,3;mpls-udp=6635,4"};
    static const wm::capture::TunnelPorts kParsed[3] = {wm::capture::TunnelPorts(),
                                                        wm::capture::TunnelPorts::parse(kSpecs[1]),
                                                        wm::capture::TunnelPorts::parse(kSpecs[2])};
    const size_t which = size % 3;
    // The payloads left in place (the default) or packed, by the input's size.
    const int layout = size / 3 % 2 ? WM_PAYLOADS_PACKED : WM_PAYLOADS_AUTO;
    const std::string &path = wm::fuzz::write_scratch(data, size, ".pcap");
    std::string open_error, read_error;
    std::set<AlertKey> want;
    try {
        want = reference_alerts(path, which == 0 ? nullptr : &kParsed[which], &read_error);
    } catch (const wm::capture::CaptureError &e) {
        open_error = e.what();
    }
    std::set<AlertKey> got;
    std::string message;
    const int rc = replay(path, 0, kSpecs[which], layout, &got, &message);
    require(rc != WM_VERIFY_MISMATCH, "the GPU disagrees with Hyperscan: " + message);
    if (!open_error.empty()) {
        require(rc != WM_SUCCESS && !message.empty(), "a replay of a file libpcap refuses did not fail");
    } else {
        require(rc == (read_error.empty() ? WM_SUCCESS : WM_CAPTURE_ERROR),
                "replay status " + std::to_string(rc) + " (" + message + "); libpcap's read: '" + read_error + "'");
        require(got == want, "the replay's alerts are not the reference matcher's (" + std::to_string(got.size()) +
                                 " against " + std::to_string(want.size()) + ")");
    }
    std::set<AlertKey> streamed;
    std::string stream_message;
    const int src = replay(path, 1, kSpecs[which], layout, &streamed, &stream_message);
    require(src != WM_VERIFY_MISMATCH, "streams disagree with Hyperscan's stream mode: " + stream_message);
    if (src != WM_SUCCESS) require(!stream_message.empty(), "a failed streams replay without a message");
    return 0;
}
