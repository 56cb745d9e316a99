// tests/stream/test_replay_filter.cpp - wm_replay_options_t::bpf through the
// public API, streams off and on: the alerts of a filtered replay are
// exactly the unfiltered replay's alerts on the packets libpcap's own
// compile of the filter accepts (filters that keep or drop whole flows, so
// reassembly sees the same streams), numbered as in the file; the counters
// count only those packets; an expression that does not compile is
// WM_INVALID and names itself.
#include "tests/pcap_filter_oracle.h"
#include "warpmatch.h"
#include "warpmatch_stream.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

const std::string kDemoPcap = std::string(WM_BINARY_DIR) + "/demo/demo.pcap";
const std::string kDemoRules = std::string(WM_SOURCE_DIR) + "/rules/examples/demo.yaml";

// (packet number, rule id, start, end).
using Alert = std::tuple<uint64_t, uint32_t, uint32_t, uint32_t>;

struct Replayed {
    int rc = 0;
    std::string error;
    std::set<Alert> alerts;
    wm_replay_stats_t stats{};
};

int collect(const wm_alert_t *a, void *ctx) {
    static_cast<std::set<Alert> *>(ctx)->emplace(a->packet->number, a->rule_id, a->start, a->end);
    return 0;
}

Replayed replay(const std::string &pcap, bool streams, wm_output_mode mode, const char *bpf) {
    Replayed r;
    wm_error_t *err = nullptr;
    wm_ruleset_t *rs = nullptr;
    EXPECT_EQ(wm_ruleset_load_file(kDemoRules.c_str(), &rs, &err), WM_SUCCESS);
    wm_scanner_options_t so;
    wm_scanner_options_init(&so);
    so.output_mode = mode;
    wm_scanner_t *sc = nullptr;
    EXPECT_EQ(wm_scanner_create(rs, &so, &sc, &err), WM_SUCCESS);
    wm_replay_options_t ro;
    wm_replay_options_init(&ro);
    ro.streams = streams;
    ro.bpf = bpf;
    wm_replay_stats_init(&r.stats);
    r.rc = wm_replay_file_ex(sc, pcap.c_str(), &ro, collect, &r.alerts, nullptr, nullptr, &r.stats, nullptr, &err);
    if (err) r.error = err->message;
    wm_error_free(err);
    wm_scanner_free(sc);
    wm_ruleset_free(rs);
    return r;
}

struct Mode {
    bool streams;
    wm_output_mode output;
};
const Mode kModes[] = {{false, WM_OUTPUT_POSITIONS}, {false, WM_OUTPUT_SET}, {true, WM_OUTPUT_POSITIONS}};

TEST(ReplayFilter, AlertsAreTheUnfilteredOnesOnTheAcceptedPacketsWithTheirFileNumbers) {
    ASSERT_TRUE(std::filesystem::exists(kDemoPcap)) << "demo capture not built: " << kDemoPcap;
    for (const Mode &m : kModes) {
        SCOPED_TRACE(std::string(m.streams ? "streams" : "packets") + ", output " + std::to_string(m.output));
        const Replayed all = replay(kDemoPcap, m.streams, m.output, nullptr);
        ASSERT_EQ(all.rc, WM_SUCCESS) << all.error;
        ASSERT_GT(all.alerts.size(), 5u);
        EXPECT_EQ(replay(kDemoPcap, m.streams, m.output, "").alerts, all.alerts); // "" is no filter
        size_t strict_subsets = 0;
        for (const char *f : {"udp", "tcp", "port 53", "tcp port 80", "host 192.168.56.10", "not port 53"}) {
            SCOPED_TRACE(f);
            const std::set<uint64_t> keep = wm::test::records_accepted(kDemoPcap, f);
            std::set<Alert> want;
            for (const Alert &a : all.alerts)
                if (keep.count(std::get<0>(a))) want.insert(a);
            const Replayed got = replay(kDemoPcap, m.streams, m.output, f);
            ASSERT_EQ(got.rc, WM_SUCCESS) << got.error;
            EXPECT_EQ(got.alerts, want);
            EXPECT_EQ(got.stats.capture.packets, keep.size());
            strict_subsets += !want.empty() && want.size() < all.alerts.size();
        }
        EXPECT_GE(strict_subsets, 3u); // the filters do select
    }
}

TEST(ReplayFilter, AnExpressionThatDoesNotCompileIsInvalidAndNamesItself) {
    ASSERT_TRUE(std::filesystem::exists(kDemoPcap)) << "demo capture not built: " << kDemoPcap;
    for (const Mode &m : kModes) {
        const Replayed r = replay(kDemoPcap, m.streams, m.output, "tcp portt 80");
        EXPECT_EQ(r.rc, WM_INVALID) << m.streams;
        EXPECT_NE(r.error.find("capture filter 'tcp portt 80'"), std::string::npos) << r.error;
        EXPECT_TRUE(r.alerts.empty());
        EXPECT_EQ(r.stats.capture.packets, 0u);
    }
}

} // namespace
