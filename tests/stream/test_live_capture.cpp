// `warpmatch live` end to end: a veth pair whose far end lives in a network
// namespace made by the test; tcpreplay sends the demo capture into it and
// `warpmatch live` captures on the near end until SIGTERM. The alerts must
// equal those of `warpmatch replay` on the same capture (same flags), the
// stats must say nothing was dropped, and `--streams` must hold too. Skips
// with a message where namespaces, veth or tcpreplay are not available.
// The demo capture carried in VXLAN to Linux's port 8472 gives the demo's
// alerts under `--tunnel-ports vxlan=8472`: live capture decodes with the
// ports it is given.
#include "capture/packet_builder.h"
#include "capture/pcap_writer.h"
#include "tests/shell_quote.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <pcap/pcap.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::string kDemoPcap = std::string(WM_BINARY_DIR) + "/demo/demo.pcap";
const std::string kDemoRules = std::string(WM_SOURCE_DIR) + "/rules/examples/demo.yaml";

int sh(const std::string &cmd) {
    const int rc = std::system((cmd + " >/dev/null 2>&1").c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const std::string &path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Everything but the packet number and time, which differ between a file
// and a live interface (the kernel adds its own packets and timestamps).
using AlertKey = std::tuple<uint32_t, std::string, int, std::string, int, int, int, int>;

std::multiset<AlertKey> alerts_in(const std::string &out, json *stats) {
    std::multiset<AlertKey> keys;
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
        const json j = json::parse(line);
        if (j["event_type"] == "stats") {
            *stats = j["stats"];
            continue;
        }
        keys.emplace(j["alert"]["signature_id"].get<uint32_t>(), j["src_ip"], j["src_port"],
                     j["dest_ip"], j["dest_port"], j.value("payload_offset", -1),
                     j.value("payload_end", -1), j["payload_len"]);
    }
    return keys;
}

// A veth pair: near end in this namespace, far end in a fresh namespace.
class VethPair {
  public:
    VethPair() {
        const std::string id = std::to_string(getpid() % 100000);
        ns_ = "wmtest" + id, near_ = "wmn" + id, far_ = "wmf" + id;
        if (geteuid() != 0) {
            why_ = "not root (needs CAP_NET_ADMIN to create a namespace and veth pair)";
            return;
        }
        if (sh("command -v ip") != 0 || sh("command -v tcpreplay") != 0) {
            why_ = "iproute2 or tcpreplay missing (apt-get install iproute2 tcpreplay)";
            return;
        }
        if (sh("ip netns add " + ns_) != 0) {
            why_ = "cannot create a network namespace here (ip netns add failed)";
            return;
        }
        made_ = true;
        if (sh("ip link add " + near_ + " type veth peer name " + far_) != 0 ||
            sh("ip link set " + far_ + " netns " + ns_) != 0) {
            why_ = "cannot create a veth pair here (ip link add type veth failed)";
            return;
        }
        // Room for the demo's full-size frames inside VXLAN's 50 bytes.
        sh("ip link set " + near_ + " mtu 9000");
        sh("ip netns exec " + ns_ + " ip link set " + far_ + " mtu 9000");
        // No IPv6 on the pair: no router solicitations mixed into the capture.
        sh("sysctl -w net.ipv6.conf." + near_ + ".disable_ipv6=1");
        sh("ip netns exec " + ns_ + " sysctl -w net.ipv6.conf." + far_ + ".disable_ipv6=1");
        if (sh("ip link set " + near_ + " up") != 0 ||
            sh("ip netns exec " + ns_ + " ip link set " + far_ + " up") != 0) {
            why_ = "cannot bring the veth pair up";
            return;
        }
        ok_ = true;
    }
    ~VethPair() {
        if (made_) {
            sh("ip link del " + near_);
            sh("ip netns del " + ns_);
        }
    }
    bool ok() const { return ok_; }
    const std::string &why() const { return why_; }
    const std::string &near_end() const { return near_; }
    std::string send(const std::string &pcap, const std::string &mbps) const {
        return "ip netns exec " + ns_ + " tcpreplay -q -i " + far_ + " --mbps=" + mbps + " " +
               wm::test::shell_quote(pcap);
    }

  private:
    std::string ns_, near_, far_, why_;
    bool made_ = false, ok_ = false;
};

struct LiveRun {
    std::string out, err;
    int status = -1;
};

// Starts `warpmatch live`, waits until it captures, sends the capture,
// stops it with SIGTERM settle_ms later and collects its output.
LiveRun live_replay(const VethPair &v, const std::string &flags, const std::string &pcap = kDemoPcap,
                    int settle_ms = 300) {
    char tmpl[] = "/tmp/wm-live-XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    LiveRun r;
    const pid_t pid = fork();
    if (pid == 0) {
        const std::string cmd = wm::test::shell_quote(WM_CLI) + " live -i " + v.near_end() + " -r " +
                                wm::test::shell_quote(kDemoRules) + " -b cpu " + flags + " >" + dir + "/out 2>" +
                                dir + "/err";
        execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), (char *)nullptr);
        _exit(127);
    }
    for (int i = 0; i < 100 && slurp(dir + "/err").find("capturing on") == std::string::npos; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sh(v.send(pcap, "5"));
    std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
    kill(pid, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.out = slurp(dir + "/out");
    r.err = slurp(dir + "/err");
    fs::remove_all(dir);
    return r;
}

std::string replay_out(const std::string &flags) {
    const std::string out = "/tmp/wm-live-offline-" + std::to_string(getpid());
    sh(wm::test::shell_quote(WM_CLI) + " replay " + wm::test::shell_quote(kDemoPcap) + " -r " +
       wm::test::shell_quote(kDemoRules) + " -b cpu " + flags + " -o " + out);
    std::string s = slurp(out);
    fs::remove(out);
    return s;
}

class LiveCapture : public ::testing::TestWithParam<const char *> {};

TEST_P(LiveCapture, AlertsEqualOfflineReplayOfTheSameCapture) {
    ASSERT_TRUE(fs::exists(kDemoPcap)) << "demo capture not built: " << kDemoPcap;
    VethPair veth;
    if (!veth.ok()) GTEST_SKIP() << "live capture test skipped: " << veth.why();
    const std::string flags = GetParam();
    const LiveRun live = live_replay(veth, flags + " --max-latency-ms 20");
    ASSERT_EQ(live.status, 0) << live.err;
    json live_stats, offline_stats;
    const auto got = alerts_in(live.out, &live_stats);
    const auto want = alerts_in(replay_out(flags), &offline_stats);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(got, want) << live.err;
    ASSERT_TRUE(live_stats.contains("live")) << live.out;
    EXPECT_EQ(live_stats["live"]["pcap_dropped"], 0);
    EXPECT_GE(live_stats["packets"].get<uint64_t>(), offline_stats["packets"].get<uint64_t>());
    EXPECT_EQ(live_stats["payloads"], offline_stats["payloads"]);
    EXPECT_EQ(live_stats["alerts"], offline_stats["alerts"]);
    EXPECT_GT(live_stats["batches"].get<uint64_t>(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Flags, LiveCapture, ::testing::Values("--no-streams", "--streams"),
                         [](const auto &info) {
                             return std::string(info.param).find("no") != std::string::npos
                                        ? "PerPacket"
                                        : "Streams";
                         });

// A stop right after the last packet: the kernel hands over a partly filled
// block only when the capture's timeout retires it (here 100 ms, a quarter
// of --max-latency-ms), so the drain must outlast that, or the packets still
// in the block are lost unscanned (they were, before).
TEST(LiveCaptureStop, AStopRightAfterTheTrafficScansEveryPacket) {
    ASSERT_TRUE(fs::exists(kDemoPcap)) << "demo capture not built: " << kDemoPcap;
    VethPair veth;
    if (!veth.ok()) GTEST_SKIP() << "live capture test skipped: " << veth.why();
    const LiveRun live = live_replay(veth, "--no-streams --max-latency-ms 400", kDemoPcap, 2);
    ASSERT_EQ(live.status, 0) << live.err;
    json live_stats, offline_stats;
    const auto got = alerts_in(live.out, &live_stats);
    const auto want = alerts_in(replay_out("--no-streams"), &offline_stats);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(got, want) << live.err;
    EXPECT_EQ(live_stats["payloads"], offline_stats["payloads"]);
}

// The demo capture, every frame carried in VXLAN (outer Ethernet, IPv4,
// UDP to 8472, VXLAN), written next to it.
std::string demo_in_vxlan_8472() {
    namespace b = wm::capture::build;
    const std::string path = "/tmp/wm-live-vxlan-" + std::to_string(getpid()) + ".pcap";
    char errbuf[PCAP_ERRBUF_SIZE];
    pcap_t *in = pcap_open_offline(kDemoPcap.c_str(), errbuf);
    if (!in) return {};
    wm::capture::PcapWriter w(path, wm::capture::kLinktypeEthernet);
    pcap_pkthdr *h = nullptr;
    const u_char *d = nullptr;
    while (pcap_next_ex(in, &h, &d) == 1) {
        const b::Bytes vxlan = b::concat({8, 0, 0, 0, 0, 0, 5, 0}, b::Bytes(d, d + h->caplen));
        const b::Ipv4Spec outer{b::ip4(198, 51, 100, 1), b::ip4(198, 51, 100, 2)};
        w.write(b::ethernet_ip(b::ipv4(outer, b::kProtoUdp, b::udp(49152, 8472, vxlan))), uint32_t(h->ts.tv_sec),
                uint32_t(h->ts.tv_usec));
    }
    pcap_close(in);
    w.close();
    return path;
}

TEST(LiveCaptureTunnels, VxlanOnAGivenPortGivesTheCarriedTrafficsAlerts) {
    ASSERT_TRUE(fs::exists(kDemoPcap)) << "demo capture not built: " << kDemoPcap;
    VethPair veth;
    if (!veth.ok()) GTEST_SKIP() << "live capture test skipped: " << veth.why();
    const std::string wrapped = demo_in_vxlan_8472();
    ASSERT_FALSE(wrapped.empty());
    for (const std::string flags : {"--no-streams", "--streams"}) {
        SCOPED_TRACE(flags);
        const LiveRun live = live_replay(veth, flags + " --max-latency-ms 20 --tunnel-ports vxlan=8472", wrapped);
        ASSERT_EQ(live.status, 0) << live.err;
        json live_stats, demo_stats;
        const auto want = alerts_in(replay_out(flags), &demo_stats);
        ASSERT_FALSE(want.empty());
        EXPECT_EQ(alerts_in(live.out, &live_stats), want) << live.err;
        EXPECT_EQ(live_stats["payloads"], demo_stats["payloads"]);
    }
    fs::remove(wrapped);
}

TEST(LiveCaptureCli, UnknownInterfaceFailsWithAReason) {
    const std::string cmd = wm::test::shell_quote(WM_CLI) + " live -i wm-no-such-if0 -r " +
                            wm::test::shell_quote(kDemoRules) + " --duration 1 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    const int rc = pclose(p);
    EXPECT_NE(WEXITSTATUS(rc), 0);
    EXPECT_NE(out.find("wm-no-such-if0"), std::string::npos) << out;
    EXPECT_NE(out.find("WM_IO_ERROR"), std::string::npos) << out;
}

} // namespace
