// ABI suite: arguments the library cannot use are refused with an error
// that names them: an alert's packet of a size no header had, a replay's
// missing or uninitialised argument, an import that would overwrite its
// own input, an empty rules path.
#include "abi_fixture.h"
#include "tests/scratch.h"
#include "warpmatch_stream.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <fstream>
#include <iterator>
#include <string>

namespace {

using namespace abi_test;

struct Arguments : Fixture {};

std::string message_of(wm_error_t *err) {
    std::string m = err && err->message ? err->message : "(no error object)";
    wm_error_free(err);
    return m;
}

// The packet's struct_size says which fields the caller's struct has; one
// the library does not know is refused, not read past (its tunnel pointer
// would be followed wherever it points).
TEST_F(Arguments, AlertJsonRefusesAPacketOfASizeNoHeaderHad) {
    wm_packet_t pkt;
    wm_packet_init(&pkt);
    pkt.ip_version = 4;
    pkt.proto = WM_PROTO_TCP;
    pkt.vlan_count = 1;
    pkt.vlan[0] = 7;
    pkt.tunnel = reinterpret_cast<const wm_tunnel_t *>(0x10); // never followed below
    wm_alert_t alert{};
    alert.struct_size = sizeof(alert);
    alert.packet = &pkt;
    alert.rule_id = 10;
    char *json = nullptr;
    for (const size_t bad : {size_t{0}, size_t{8}, sizeof(wm_packet_t) + 8, size_t{12345}}) {
        pkt.struct_size = bad;
        EXPECT_EQ(wm_alert_to_json(rs, &alert, &json), WM_INVALID) << "size " << bad;
    }
    // The sizes of the 0.12 and 0.15 headers: their alerts have no vlan, or no tunnel.
    pkt.struct_size = offsetof(wm_packet_t, vlan);
    ASSERT_EQ(wm_alert_to_json(rs, &alert, &json), WM_SUCCESS);
    EXPECT_EQ(std::string(json).find("\"vlan\""), std::string::npos) << json;
    wm_free(json);
    pkt.struct_size = offsetof(wm_packet_t, tunnel);
    ASSERT_EQ(wm_alert_to_json(rs, &alert, &json), WM_SUCCESS);
    EXPECT_NE(std::string(json).find("\"vlan\":[7]"), std::string::npos) << json;
    EXPECT_EQ(std::string(json).find("\"tunnel\""), std::string::npos) << json;
    wm_free(json);
}

TEST_F(Arguments, ReplayErrorsNameTheArgument) {
    wm_replay_stats_t st;
    wm_replay_stats_init(&st);
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_replay_file(nullptr, "x.pcap", nullptr, nullptr, nullptr, nullptr, &st, &err), WM_INVALID);
    EXPECT_EQ(message_of(err), "wm_replay_file: sc (the scanner) is NULL");
    EXPECT_EQ(wm_replay_file(sc, "", nullptr, nullptr, nullptr, nullptr, &st, &err), WM_INVALID);
    EXPECT_EQ(message_of(err), "wm_replay_file: path is NULL or empty");
    st.struct_size = 3;
    EXPECT_EQ(wm_replay_file(sc, "x.pcap", nullptr, nullptr, nullptr, nullptr, &st, &err), WM_INVALID);
    EXPECT_EQ(message_of(err), "wm_replay_file: stats->struct_size is 3, not " + std::to_string(sizeof st) +
                                   ": initialise it with wm_replay_stats_init");
    wm_replay_stats_init(&st);
    wm_replay_options_t o;
    wm_replay_options_init(&o);
    wm_stream_stats_t ss;
    wm_stream_stats_init(&ss);
    ss.struct_size = 0;
    EXPECT_EQ(wm_replay_file_ex(sc, "x.pcap", &o, nullptr, nullptr, nullptr, nullptr, &st, &ss, &err), WM_INVALID);
    EXPECT_EQ(message_of(err), "wm_replay_file_ex: stream_stats->struct_size is 0, not " +
                                   std::to_string(sizeof ss) + ": initialise it with wm_stream_stats_init");
    o.stream.struct_size = 1;
    EXPECT_EQ(wm_replay_file_ex(sc, "x.pcap", &o, nullptr, nullptr, nullptr, nullptr, &st, nullptr, &err),
              WM_INVALID);
    EXPECT_EQ(message_of(err), "wm_replay_file_ex: opts->stream->struct_size is 1, not " +
                                   std::to_string(sizeof o.stream) + ": initialise it with wm_replay_options_init");
    EXPECT_EQ(wm_replay_file_ex(sc, "x.pcap", &o, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &err),
              WM_INVALID);
    EXPECT_EQ(message_of(err), "wm_replay_file_ex: stats is NULL");
}

TEST(AbiArguments, RulesLoadFileSaysWhichArgumentIsMissing) {
    wm_ruleset_t *rs = nullptr;
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_ruleset_load_file("", &rs, &err), WM_INVALID);
    EXPECT_EQ(message_of(err), "wm_ruleset_load_file: path is NULL or empty");
    EXPECT_EQ(wm_ruleset_load_file("r.yaml", nullptr, &err), WM_INVALID);
    EXPECT_EQ(message_of(err), "wm_ruleset_load_file: out is NULL");
}

// An import written over one of its inputs would destroy the Suricata rules
// it came from: refused, and the input left as it was.
TEST(AbiArguments, ImportDoesNotOverwriteItsInput) {
    const std::string src = wm::test::scratch_path("in.rules"), other = wm::test::scratch_path("other.rules");
    const std::string text = "alert tcp any any -> any 80 (msg:\"x\"; content:\"abc\"; sid:1;)\n";
    std::ofstream(src) << text;
    std::ofstream(other) << text;
    const char *files[] = {other.c_str(), src.c_str()};
    wm_import_report_t r;
    wm_import_report_init(&r);
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_rules_import(files, 2, src.c_str(), &r, &err), WM_INVALID);
    EXPECT_EQ(message_of(err), "wm_rules_import: out_yaml " + src + " is the input file " + src +
                                   "; not overwriting it");
    std::ifstream in(src);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), text);
    const std::string yaml = wm::test::scratch_path("out.yaml");
    EXPECT_EQ(wm_rules_import(files, 2, yaml.c_str(), &r, nullptr), WM_SUCCESS);
}

} // namespace
