// The stream pipeline without streams (live capture's path) delivers the
// alerts replay delivers: the same packets, rule ids, offsets, and for an
// align rule its score and aligned region.
#include "capture/pcap_writer.h"
#include "replay.h"
#include "stream_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <unistd.h>
#include <tuple>

namespace wm::stream::test {
namespace {

// (packet, rule id, has_offset, start, end, has_score, score)
using FullAlert = std::tuple<uint64_t, uint32_t, int, uint32_t, uint32_t, int, int32_t>;

int collect(const wm_alert_t *a, void *ctx) {
    static_cast<std::vector<FullAlert> *>(ctx)->emplace_back(a->packet->number, a->rule_id, a->has_offset, a->start,
                                                             a->end, a->has_score, a->score);
    return 0;
}

TEST(PipelineAlerts, WithoutStreamsEqualReplaysAlignScoresIncluded) {
    const std::string yaml = rules_yaml(rule_yaml(1, "needle") +
                                        "  - id: 2\n    msg: \"align\"\n    align: {reference: "
                                        "\"the quick brown fox jumps over\", min_score: 30}\n");
    const std::vector<std::string> payloads = {
        "GET /x?q=the quick brwn fox jumps ovr HTTP/1.1", // align (mutated) only
        "a needle and the quick brown fox jumps over it",  // both
        "nothing to see here",                             // neither
        "needle needle",                                   // literal twice: one alert
    };
    const auto pcap = std::filesystem::temp_directory_path() / ("wm_pipeline_alerts_" + std::to_string(getpid()) + ".pcap");
    Conversation conv;
    {
        capture::PcapWriter w(pcap.string(), capture::kLinktypeEthernet);
        uint32_t seq = 1;
        for (const auto &p : payloads) {
            w.write(conv.frame(true, seq, build::kAck | build::kPsh, p), 1, 0);
            seq += static_cast<uint32_t>(p.size());
        }
        w.close();
    }
    const rules::RuleSet rules = rules::load_rules_string(yaml, "test.yaml");

    const CompiledRuleSet rs(rules);
    wm_scanner_options_t o;
    wm_scanner_options_init(&o);
    o.backend = WM_BACKEND_CPU;
    o.output_mode = WM_OUTPUT_POSITIONS;
    // Live capture's path: the stream pipeline, streams off.
    std::vector<FullAlert> live;
    {
        Scanner sc(rs, o);
        ScannerForStreams adapter(sc);
        PipelineOptions po;
        StreamPipeline pl(adapter, po, &collect, &live);
        OfflineFrames frames(pcap.string());
        const pcap_pkthdr *h = nullptr;
        const uint8_t *d = nullptr;
        while (frames.next(&h, &d)) pl.frame(frames.link_type(), d, h->caplen, h->len, h->ts.tv_sec, h->ts.tv_usec);
        ASSERT_TRUE(pl.finish());
    }
    // Replay without streams: the window scanner.
    std::vector<FullAlert> replayed;
    {
        Scanner sc(rs, o);
        ReplayCallbacks cb;
        cb.on_alert = &collect;
        cb.alert_ctx = &replayed;
        wm_replay_stats_t st;
        wm_replay_stats_init(&st);
        ASSERT_EQ(replay_file(sc, pcap.string(), cb, st, nullptr), WM_SUCCESS);
    }
    std::filesystem::remove(pcap);
    std::sort(live.begin(), live.end());
    std::sort(replayed.begin(), replayed.end());
    EXPECT_EQ(live, replayed);
    // What both must be: packets 1 and 2 align with a score, 2 and 4 the literal once each.
    size_t align = 0, literal = 0;
    for (const auto &a : replayed) {
        if (std::get<1>(a) == 2) {
            ++align;
            EXPECT_EQ(std::get<5>(a), 1) << "packet " << std::get<0>(a);
            EXPECT_GE(std::get<6>(a), 30);
            EXPECT_LT(std::get<3>(a), std::get<4>(a));
        } else {
            ++literal;
            EXPECT_EQ(std::get<5>(a), 0);
            EXPECT_EQ(std::get<4>(a) - std::get<3>(a), 6u);
        }
    }
    EXPECT_EQ(align, 2u);
    EXPECT_EQ(literal, 2u);
}

} // namespace
} // namespace wm::stream::test
