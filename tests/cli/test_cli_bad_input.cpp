// The CLI on bad input: out-of-range options, unknown commands, outputs that
// would destroy an input or cannot be written, truncated captures under
// `bench`. Each is refused with a message that names what is wrong.
#include "run_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

using wm::test::run_command;
namespace fs = std::filesystem;

namespace {

const std::string kDemoPcap = std::string(WM_BINARY_DIR) + "/demo/demo.pcap";
const std::string kDemoRules = std::string(WM_SOURCE_DIR) + "/rules/examples/demo.yaml";

// A copy of `from` at scratch path `name`, its first `bytes` bytes (all when 0).
std::string copy_of(const std::string &from, const std::string &name, size_t bytes = 0) {
    const std::string data = wm::test::slurp(from);
    const std::string to = wm::test::scratch_path(name);
    std::ofstream(to, std::ios::binary).write(data.data(), static_cast<std::streamsize>(bytes ? bytes : data.size()));
    return to;
}

// The EVE alert lines of a replay's output, sorted (the stats line carries timings).
std::vector<std::string> alert_lines(const std::string &out) {
    std::vector<std::string> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        if (line.find("\"event_type\":\"alert\"") != std::string::npos) lines.push_back(line);
    std::sort(lines.begin(), lines.end());
    return lines;
}

struct BadOption {
    std::string args;   // after the command
    std::string option; // what the message must name
};

class CliBadOption : public ::testing::TestWithParam<BadOption> {};

} // namespace

TEST_P(CliBadOption, IsRefusedByName) {
    const BadOption &b = GetParam();
    auto r = run_command(b.args);
    EXPECT_NE(r.status, 0) << b.args;
    EXPECT_NE(r.err.find(b.option), std::string::npos) << b.args << "\n" << r.err;
    EXPECT_EQ(r.out.find("\"event_type\""), std::string::npos) << "nothing ran: " << b.args;
}

INSTANTIATE_TEST_SUITE_P(
    Options, CliBadOption,
    ::testing::Values(BadOption{"bench " + kDemoPcap + " -r " + kDemoRules + " --repeats 0", "--repeats"},
                      BadOption{"bench " + kDemoPcap + " -r " + kDemoRules + " --corpus-mb 99999999", "--corpus-mb"},
                      BadOption{"bench " + kDemoPcap + " -r " + kDemoRules + " --batch-mb 0", "--batch-mb"},
                      BadOption{"bench " + kDemoPcap + " -r " + kDemoRules + " --threads -5", "--threads"},
                      BadOption{"replay " + kDemoPcap + " -r " + kDemoRules + " --window-mb -1", "--window-mb"},
                      BadOption{"replay " + kDemoPcap + " -r " + kDemoRules + " --window-mb 17592186044416",
                                "--window-mb"},
                      BadOption{"replay " + kDemoPcap + " -r " + kDemoRules + " --gpu-wait sleepy", "--gpu-wait"},
                      BadOption{"bench " + kDemoPcap + " -r " + kDemoRules + " --gpu-wait 7", "--gpu-wait"},
                      BadOption{"replay " + kDemoPcap + " -r " + kDemoRules + " --payload-layout sideways",
                                "--payload-layout"},
                      BadOption{"bench " + kDemoPcap + " -r " + kDemoRules + " --payload-layout 7", "--payload-layout"},
                      BadOption{"live -i lo -r " + kDemoRules + " --gpu-wait yield", "--gpu-wait"},
                      BadOption{"live -i lo -r " + kDemoRules + " --snaplen 0", "--snaplen"},
                      BadOption{"live -i lo -r " + kDemoRules + " --duration nan", "--duration"},
                      BadOption{"live -i lo -r " + kDemoRules + " --batch-mb -1", "--batch-mb"},
                      BadOption{"live -i lo -r " + kDemoRules + " --tunnel-ports foo=1",
                                "tunnel ports \"foo=1\": unknown tunnel \"foo\""},
                      BadOption{"live -i lo -r " + kDemoRules + " --matches set --streams", "--matches set"},
                      BadOption{"replay " + kDemoPcap + " -r " + kDemoRules + " --matches set --streams",
                                "--streams needs match positions"},
                      BadOption{"frobnicate", "frobnicate"}));

// A live capture refused for its options does not announce itself first (it
// had printed "capturing on lo" before the scanner refused set matches).
TEST(CliBadInput, LiveSetMatchesWithStreamsIsRefusedBeforeCapturing) {
    auto r = run_command("live -i lo -r " + kDemoRules + " --matches set --streams --duration 1");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("--streams needs match positions"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("capturing on"), std::string::npos) << r.err;
    auto positions =
        run_command("replay " + kDemoPcap + " -r " + kDemoRules + " --backend cpu --matches positions --streams");
    EXPECT_EQ(positions.status, 0) << positions.err;
}

TEST(CliBadInput, ReplayRefusesToOverwriteItsCaptureOrRules) {
    const std::string pcap = copy_of(kDemoPcap, "self.pcap"), rules = copy_of(kDemoRules, "self.yaml");
    const std::string pcap_before = wm::test::slurp(pcap), rules_before = wm::test::slurp(rules);
    for (const std::string &target : {pcap, rules}) {
        auto r = run_command("replay " + pcap + " -r " + rules + " --backend cpu -o " + target);
        EXPECT_EQ(r.status, 1) << target;
        EXPECT_NE(r.err.find("not overwriting"), std::string::npos) << r.err;
    }
    EXPECT_EQ(wm::test::slurp(pcap), pcap_before);
    EXPECT_EQ(wm::test::slurp(rules), rules_before);
}

TEST(CliBadInput, ReplayFailsWhenItsOutputCannotBeWritten) {
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
    auto r = run_command("replay " + kDemoPcap + " -r " + kDemoRules + " --backend cpu -o /dev/full");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("writing /dev/full failed"), std::string::npos) << r.err;
}

TEST(CliBadInput, AWindowBeyondTheFileIsCutToIt) {
    // 1 GiB windows for an 18 KB capture: four such buffers had been taken up front.
    auto big = run_command("replay " + kDemoPcap + " -r " + kDemoRules + " --backend cpu --window-mb 1024");
    auto plain = run_command("replay " + kDemoPcap + " -r " + kDemoRules + " --backend cpu");
    ASSERT_EQ(big.status, 0) << big.err;
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_EQ(alert_lines(big.out), alert_lines(plain.out));
    EXPECT_FALSE(alert_lines(plain.out).empty()) << "the demo rules match the demo capture";
}

TEST(CliBadInput, BenchRefusesATruncatedCapture) {
    const std::string cut = copy_of(kDemoPcap, "bench-cut.pcap", 10000);
    auto r = run_command("bench " + cut + " -r " + kDemoRules + " --corpus-mb 1 --repeats 1");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(cut), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("packet"), std::string::npos) << "names the packet: " << r.err;
}

TEST(CliBadInput, BenchRefusesAnUnwritableJsonBeforeRunning) {
    auto r = run_command("bench " + kDemoPcap + " -r " + kDemoRules + " --corpus-mb 1 --repeats 1 --json /nonexistent/x.json");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("/nonexistent/x.json"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("engine"), std::string::npos) << "no row ran";
}

TEST(CliBadInput, BenchRowsThatMatchNoRowFail) {
    auto r = run_command("bench " + kDemoPcap + " -r " + kDemoRules + " --corpus-mb 1 --repeats 1 --rows no-such-row");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("--rows"), std::string::npos) << r.err;
}

TEST(CliBadInput, PacketsOfAnUnsupportedLinkTypeAreReported) {
    // A classic pcap of link type 147 (DLT_USER0) with three 20-byte records.
    std::string pcap;
    const auto put32 = [&](uint32_t v) { pcap.append(reinterpret_cast<const char *>(&v), 4); };
    const auto put16 = [&](uint16_t v) { pcap.append(reinterpret_cast<const char *>(&v), 2); };
    put32(0xa1b2c3d4), put16(2), put16(4), put32(0), put32(0), put32(65535), put32(147);
    for (uint32_t k = 0; k < 3; ++k) {
        put32(1700000000 + k), put32(0), put32(20), put32(20);
        pcap.append(20, 'x');
    }
    const std::string path = wm::test::scratch_path("link147.pcap");
    std::ofstream(path, std::ios::binary) << pcap;
    auto r = run_command("replay " + path + " -r " + kDemoRules + " --backend cpu");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("3 packets skipped: a link type warpmatch does not decode"), std::string::npos) << r.err;
}
