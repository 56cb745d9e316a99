// `warpmatch replay` end to end: alert JSON schema, expected demo alerts,
// alerts equal to the reference matcher on real captures, truncated files.
#include "tests/rule_applies.h"
#include "capture/offline_capture.h"
#include "compiled_ruleset.h"
#include "reference_matcher.h"
#include "run_command.h"
#include "tests/base64_decode.h"
#include "tests/pcap_filter_oracle.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

using wm::test::run_command;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kDemoPcap = std::string(WM_BINARY_DIR) + "/demo/demo.pcap";
const std::string kDemoRules = std::string(WM_SOURCE_DIR) + "/rules/examples/demo.yaml";

struct Replay {
    int status;
    std::vector<json> alerts;
    json stats;
    std::string err;
};

Replay replay(const std::string &args) {
    auto r = run_command("replay " + args);
    Replay out{r.status, {}, json(), r.err};
    std::istringstream lines(r.out);
    std::string line;
    while (std::getline(lines, line)) {
        json j = json::parse(line); // every line must be valid JSON
        if (j["event_type"] == "alert")
            out.alerts.push_back(j);
        else if (j["event_type"] == "stats")
            out.stats = j["stats"];
    }
    return out;
}

// A replay refused before its capture was read (WM_INVALID): a non-zero
// status and the error, with no alerts and no stats, neither the JSON line
// nor the summary on stderr (there was nothing to count).
void expect_refused(const Replay &r) {
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(r.alerts.empty());
    EXPECT_TRUE(r.stats.is_null()) << r.stats.dump();
    EXPECT_EQ(r.err.find(" packets, "), std::string::npos) << r.err;
}

// (packet number, signature id) of each alert.
using AlertKey = std::pair<uint64_t, uint32_t>;

std::set<AlertKey> keys(const std::vector<json> &alerts) {
    std::set<AlertKey> s;
    for (const auto &a : alerts)
        s.emplace(a["pcap_cnt"].get<uint64_t>(), a["alert"]["signature_id"].get<uint32_t>());
    return s;
}

// The independent expectation: decode the capture and run the naive
// reference matcher with the rules' protocol/port constraints.
std::set<AlertKey> reference_alerts(const std::string &pcap, const std::string &rules_path) {
    wm::CompiledRuleSet rs(wm::rules::load_rules_file(rules_path));
    wm::ReferenceMatcher ref(rs.rules());
    wm::capture::OfflineCapture cap(pcap);
    std::set<AlertKey> out;
    wm_packet_t p{};
    p.struct_size = sizeof(p);
    while (cap.next(&p) == WM_SUCCESS) {
        uint32_t offsets[2] = {0, p.payload_len};
        wm_payload_meta_t meta{p.proto, p.src_port, p.dst_port};
        wm::BatchView b{p.payload, offsets, 1, &meta};
        std::vector<wm::Match> m;
        ref.scan(b, WM_OUTPUT_SET, m);
        for (const auto &x : m)
            if (wm::test::rule_applies(rs.rules()[x.rule], meta))
                out.emplace(p.number, rs.rules()[x.rule].id);
    }
    return out;
}

TEST(CliReplay, DemoAlertsHaveTheEveSchemaAndTheExpectedSignatures) {
    ASSERT_TRUE(fs::exists(kDemoPcap)) << "demo capture not built: " << kDemoPcap;
    auto r = replay(kDemoPcap + " --rules " + kDemoRules + " --backend cpu");
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_FALSE(r.alerts.empty());
    std::set<uint32_t> sids;
    for (const auto &a : r.alerts) {
        for (const char *k : {"timestamp", "flow_id", "src_ip", "src_port", "dest_ip",
                              "dest_port", "proto", "alert", "payload_offset"})
            EXPECT_TRUE(a.contains(k)) << "missing " << k << " in " << a.dump();
        for (const char *k : {"signature_id", "signature", "severity"})
            EXPECT_TRUE(a["alert"].contains(k)) << "missing alert." << k;
        sids.insert(a["alert"]["signature_id"].get<uint32_t>());
    }
    // Every demo rule but the last is built into the demo traffic.
    std::set<uint32_t> want;
    for (uint32_t id = 1000001; id <= 1000009; ++id)
        want.insert(id);
    EXPECT_EQ(sids, want);
    EXPECT_EQ(r.stats["alerts"].get<size_t>(), r.alerts.size());
    EXPECT_GT(r.stats["packets"].get<size_t>(), r.stats["payloads"].get<size_t>());
    EXPECT_GT(r.stats["skipped"]["not_ip"].get<size_t>(), 0u); // the ARP frame
    EXPECT_EQ(keys(r.alerts), reference_alerts(kDemoPcap, kDemoRules));
}

// --bpf: the alerts of the packets libpcap's own compile of the filter
// accepts (per packet: the reference matcher's; with --streams: the
// unfiltered streams replay's, as the filters keep or drop whole flows),
// numbered as in the file; one that does not compile fails the run and
// names itself.
TEST(CliReplay, BpfFilterGivesTheAlertsOfTheAcceptedPackets) {
    ASSERT_TRUE(fs::exists(kDemoPcap)) << "demo capture not built: " << kDemoPcap;
    const std::string run = kDemoPcap + " -r " + kDemoRules + " -b cpu";
    for (const std::string streams : {"", " --streams"}) {
        SCOPED_TRACE(streams);
        const std::set<AlertKey> all =
            streams.empty() ? reference_alerts(kDemoPcap, kDemoRules) : keys(replay(run + streams).alerts);
        for (const std::string f : {"udp", "tcp port 80", "not host 192.168.56.10"}) {
            SCOPED_TRACE(f);
            const std::set<uint64_t> keep = wm::test::records_accepted(kDemoPcap, f);
            std::set<AlertKey> want;
            for (const AlertKey &k : all)
                if (keep.count(k.first)) want.insert(k);
            ASSERT_FALSE(want.empty());
            ASSERT_LT(want.size(), all.size());
            const Replay r = replay(run + " --bpf '" + f + "'" + streams);
            EXPECT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(keys(r.alerts), want);
            EXPECT_EQ(r.stats["packets"].get<uint64_t>(), keep.size());
            EXPECT_EQ(r.stats["bpf"], f); // the stats say what they count
        }
    }
    EXPECT_FALSE(replay(run + " -q").stats.contains("bpf"));
    const Replay bad = replay(kDemoPcap + " -r " + kDemoRules + " --bpf 'tcp portt 80'");
    expect_refused(bad);
    EXPECT_NE(bad.err.find("capture filter 'tcp portt 80'"), std::string::npos) << bad.err;
}

// --tunnel-ports goes to the library as it is (tests/abi/test_abi_tunnel_ports.cpp
// holds what the ports do): the demo capture has no tunnel, so its alerts
// stay the reference's, and the stats say which ports they were read with;
// a bad spec fails the run before the capture is read, naming what is wrong.
TEST(CliReplay, TunnelPortsAreUsedAndNamedInTheStats) {
    ASSERT_TRUE(fs::exists(kDemoPcap)) << "demo capture not built: " << kDemoPcap;
    const std::string run = kDemoPcap + " -r " + kDemoRules + " -b cpu";
    for (const std::string streams : {"", " --streams"}) {
        SCOPED_TRACE(streams);
        const std::set<AlertKey> want =
            streams.empty() ? reference_alerts(kDemoPcap, kDemoRules) : keys(replay(run + streams).alerts);
        const Replay r = replay(run + " --tunnel-ports 'vxlan=4789,8472'" + streams);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(keys(r.alerts), want);
        EXPECT_EQ(r.stats["tunnel_ports"], "vxlan=4789,8472");
    }
    EXPECT_FALSE(replay(run + " -q").stats.contains("tunnel_ports"));
    const Replay bad = replay(run + " --tunnel-ports vxlan=0");
    expect_refused(bad);
    EXPECT_NE(bad.err.find("tunnel ports \"vxlan=0\": port \"0\" is not a number from 1 to 65535"),
              std::string::npos)
        << bad.err;
}

// --payload: each alert carries its payload (base64 and printable). Per
// packet that is the bytes a plain libpcap read finds in the packet of that
// number; with --streams it is the scanned window (docs/streams.md: the
// bytes carried from the stream, then the packet's), so it ends with them.
// On the CPU, and with `auto` (the GPU where there is one; set mode there,
// so the alerts point into the GPU scanner's windows); the payloads left in
// place by the reader (the default) or packed.
TEST(CliReplay, PayloadFieldsCarryThePacketsPayload) {
    ASSERT_TRUE(fs::exists(kDemoPcap)) << "demo capture not built: " << kDemoPcap;
    std::map<uint64_t, std::vector<uint8_t>> payload_of;
    wm::capture::OfflineCapture cap(kDemoPcap);
    wm_packet_t p{};
    while (cap.next(&p) == WM_SUCCESS) payload_of[p.number].assign(p.payload, p.payload + p.payload_len);
    for (const std::string mode : {"-b cpu", "-b cpu --streams", "-b auto", "-b auto --streams",
                                   "-b cpu --payload-layout packed", "-b auto --payload-layout in-place"}) {
        SCOPED_TRACE(mode);
        const bool streams = mode.find("--streams") != std::string::npos;
        const Replay r = replay(kDemoPcap + " -r " + kDemoRules + " --payload " + mode);
        ASSERT_EQ(r.status, 0) << r.err;
        ASSERT_GT(r.alerts.size(), 5u);
        size_t carried = 0;
        for (const auto &a : r.alerts) {
            const uint64_t n = a["pcap_cnt"].get<uint64_t>();
            ASSERT_TRUE(payload_of.count(n)) << n;
            const std::vector<uint8_t> &own = payload_of[n];
            const auto bytes = wm::test::base64_decode(a["payload"].get<std::string>());
            ASSERT_TRUE(bytes.has_value()) << a.dump();
            EXPECT_EQ(bytes->size(), a["payload_len"].get<size_t>());
            if (!streams) {
                EXPECT_EQ(*bytes, own) << "packet " << n;
            } else {
                ASSERT_GE(bytes->size(), own.size()) << "packet " << n;
                EXPECT_TRUE(std::equal(own.begin(), own.end(), bytes->end() - long(own.size()))) << "packet " << n;
                carried += bytes->size() > own.size();
            }
            std::string printable;
            for (uint8_t c : *bytes) printable += (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r' ? char(c) : '.';
            EXPECT_EQ(a["payload_printable"], printable) << "packet " << n;
        }
        if (streams) EXPECT_GT(carried, 0u); // some windows carry bytes of earlier segments
    }
    for (const auto &a : replay(kDemoPcap + " -r " + kDemoRules + " -b cpu").alerts)
        EXPECT_FALSE(a.contains("payload")) << "payload fields only with --payload";
}

TEST(CliReplay, TruncatedCaptureReportsEverythingBeforeTheCut) {
    ASSERT_TRUE(fs::exists(kDemoPcap));
    std::string bytes = wm::test::slurp(kDemoPcap);
    fs::path cut = wm::test::scratch_path("truncated.pcap");
    {
        std::ofstream f(cut, std::ios::binary);
        f.write(bytes.data(), static_cast<std::streamsize>(bytes.size() - 7));
    }
    auto full = replay(kDemoPcap + " --rules " + kDemoRules + " --backend cpu");
    auto r = replay(cut.string() + " --rules " + kDemoRules + " --backend cpu");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(cut.string()), std::string::npos) << r.err;
    EXPECT_EQ(r.stats["packets"].get<size_t>() + 1, full.stats["packets"].get<size_t>());
    // Every alert of the complete packets is still reported.
    auto got = keys(r.alerts);
    size_t last = full.stats["packets"].get<size_t>();
    for (const auto &k : keys(full.alerts))
        if (k.first < last)
            EXPECT_TRUE(got.count(k)) << "lost alert at packet " << k.first;
    fs::remove(cut);
}

// "-" is standard input, for libpcap and so for the in-place readers too:
// a file named "-" in the working directory is not read instead (it was,
// with and without --streams, while libpcap read the stream).
TEST(CliReplay, DashIsStandardInputNeverAFileNamedDash) {
    ASSERT_TRUE(fs::exists(kDemoPcap));
    const std::string demo = wm::test::slurp(kDemoPcap);
    const fs::path dir = wm::test::scratch_path("dash-dir");
    fs::create_directories(dir);
    { // the demo's records twice: another capture, twice as long
        std::ofstream f(dir / "-", std::ios::binary);
        f << demo << demo.substr(24);
    }
    const fs::path was = fs::current_path();
    fs::current_path(dir);
    const auto full = replay(kDemoPcap + " --rules " + kDemoRules + " --backend cpu");
    for (const char *streams : {"--no-streams", "--streams"}) {
        SCOPED_TRACE(streams);
        const auto r = replay("- --rules " + kDemoRules + " --backend cpu " + streams + " < " + kDemoPcap);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.stats["packets"], full.stats["packets"]);
    }
    fs::current_path(was);
    fs::remove_all(dir);
}

TEST(CliReplay, RealCapturesMatchTheReference) {
    fs::path data(WM_TEST_DATA_DIR);
    fs::path et = data / "rules/et-open-suricata5-2024-04-21";
    if (!fs::exists(et))
        GTEST_SKIP() << "real data not found at " << data << " (../shared/data absent)";
    fs::path yaml = wm::test::scratch_path("et-replay.yaml");
    auto imp = run_command("rules import " + (et / "*.rules").string() + " -o " + yaml.string());
    ASSERT_EQ(imp.status, 0) << imp.err;
    // The reference is quadratic: keep every 10th rule so it stays quick.
    auto full = wm::rules::load_rules_file(yaml.string());
    wm::rules::RuleSet sample;
    for (size_t i = 0; i < full.rules.size(); i += 10)
        sample.rules.push_back(full.rules[i]);
    fs::path sample_yaml = wm::test::scratch_path("et-sample.yaml");
    std::ofstream(sample_yaml) << wm::rules::to_yaml(sample);
    for (const char *name : {"pcaps/chrissanders+packets/http_dvwa_sqlinjection.pcapng",
                             "pcaps/mmguero-dev+Malcolm-PCAP/pcaps/plugins/cve-2021-44228/log4j-attack.pcap",
                             "pcaps/chrissanders+packets/aurora.pcapng",
                             "pcaps/OISF+suricata-verify/tests/pop3/input.pcap"}) {
        fs::path pcap = data / name;
        ASSERT_TRUE(fs::exists(pcap)) << pcap;
        auto r = replay(pcap.string() + " --rules " + sample_yaml.string() + " --backend cpu");
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(keys(r.alerts), reference_alerts(pcap.string(), sample_yaml.string())) << name;
    }
    fs::remove(yaml);
    fs::remove(sample_yaml);
}

// --gpu-wait block (the scanning thread sleeps while the GPU works) gives the
// reference's alerts as spin does, on whichever backend auto picks.
TEST(CliReplay, GpuWaitBlockGivesTheReferenceAlerts) {
    const auto want = reference_alerts(kDemoPcap, kDemoRules);
    ASSERT_FALSE(want.empty());
    for (const char *wait : {"spin", "block"}) {
        Replay r = replay(kDemoPcap + " --rules " + kDemoRules + " --matches set --gpu-wait " + wait);
        ASSERT_EQ(r.status, 0) << wait << ": " << r.err;
        EXPECT_EQ(keys(r.alerts), want) << "--gpu-wait " << wait;
    }
}

// Hyperscan on several threads prints exactly what one thread prints, alert
// for alert and in the same order, on a capture whose batches are cut among
// the threads.
TEST(CliReplay, CpuThreadsPrintTheSameAlerts) {
    fs::path data(WM_TEST_DATA_DIR);
    fs::path et = data / "rules/et-open-suricata5-2024-04-21";
    fs::path pcap = data / "pcaps-large/merged-zeek-traces.pcap";
    if (!fs::exists(et) || !fs::exists(pcap))
        GTEST_SKIP() << "real data not found at " << data << " (../shared/data absent)";
    fs::path yaml = wm::test::scratch_path("et.yaml");
    auto imp = run_command("rules import " + (et / "*.rules").string() + " -o " + yaml.string());
    ASSERT_EQ(imp.status, 0) << imp.err;
    const std::string base = "replay " + pcap.string() + " --rules " + yaml.string() + " --backend cpu";
    auto one = run_command(base + " --cpu-threads 1");
    auto four = run_command(base + " --cpu-threads 4");
    ASSERT_EQ(one.status, 0) << one.err;
    ASSERT_EQ(four.status, 0) << four.err;
    // Everything before the stats line (which holds the timings).
    auto alerts = [](const std::string &out) {
        const size_t stats = out.rfind("{\"event_type\":\"stats\"");
        EXPECT_NE(stats, std::string::npos);
        return out.substr(0, stats);
    };
    EXPECT_GT(std::count(one.out.begin(), one.out.end(), '\n'), 100000);
    EXPECT_TRUE(alerts(one.out) == alerts(four.out)) << "alerts differ between 1 and 4 Hyperscan threads";
}

} // namespace
