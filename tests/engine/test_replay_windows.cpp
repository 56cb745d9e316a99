// replay_file (no streams) reads the capture in windows on other threads
// while the scanner works: whatever the window size and number of libpcap
// handles, the alerts are those of one plain read scanned as one batch, in
// packet order; a stop request delivers nothing after it; a corrupt record
// ends the replay with every alert before it delivered. Positions alerts
// (the first match per packet and rule) are taken from the scanner's
// delivery spans, which on the GPU split a batch. CPU here, GPU on the
// device (skips without one). The set cases also run with whole windows
// pipelined through submit/collect (WindowPipeline::On), which is what the GPU
// does by default, so CI checks that bookkeeping on the CPU. Every tuning runs
// with the payloads left in place and packed by the reader.
#include "capture/offline_capture.h"
#include "capture/packet_builder.h"
#include "capture/pcap_writer.h"
#include "compiled_ruleset.h"
#include "gpu/gpu_matcher.h"
#include "gpu/gpu_testing.h"
#include "random_rules.h"
#include "replay.h"
#include "scanner.h"
#include "status_error.h"
#include "tests/scratch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

using namespace wm;

namespace {

namespace b = capture::build;

struct Alert {
    uint64_t packet;
    uint32_t rule;
    int has_offset;
    uint32_t start, end;
    bool operator==(const Alert &o) const {
        return std::tie(packet, rule, has_offset, start, end) ==
               std::tie(o.packet, o.rule, o.has_offset, o.start, o.end);
    }
    bool operator<(const Alert &o) const {
        return std::tie(packet, rule, start, end) < std::tie(o.packet, o.rule, o.start, o.end);
    }
};

std::string temp_path(const std::string &name) { return wm::test::scratch_path(name); }

// n records: TCP or UDP payloads over "abcABx" (ports 80/53/8080/40000),
// with an ARP frame now and then.
void write_capture(const std::string &path, uint32_t seed, int n) {
    std::mt19937 rng(seed);
    capture::PcapWriter w(path, capture::kLinktypeEthernet);
    const uint16_t ports[] = {80, 53, 8080, 40000};
    const auto a = b::ip4(10, 0, 0, 1), z = b::ip4(10, 0, 0, 2);
    for (int i = 0; i < n; ++i) {
        b::Bytes f;
        const std::string payload = test::random_bytes(rng, rng() % 300, "abcABx");
        const uint16_t sp = ports[rng() % 4], dp = ports[rng() % 4];
        b::Ipv4Spec ip;
        ip.src = a;
        ip.dst = z;
        if (rng() % 13 == 0) {
            f = b::arp_request(b::kMacA, a, z);
        } else if (rng() % 2) {
            b::TcpSpec t;
            t.sport = sp;
            t.dport = dp;
            f = b::ethernet_ip(b::ipv4(ip, b::kProtoTcp, b::tcp(t, b::bytes(payload))));
        } else {
            f = b::ethernet_ip(b::ipv4(ip, b::kProtoUdp, b::udp(sp, dp, b::bytes(payload))));
        }
        w.write(f, uint32_t(i), 0);
    }
    w.close();
}

rules::RuleSet scoped_rules(uint32_t seed) {
    std::mt19937 rng(seed);
    rules::RuleSet rs = test::random_ruleset(rng, 60, "abcAB", 4);
    for (auto &r : rs.rules) {
        if (rng() % 3 != 0) continue;
        r.protocol = rng() % 2 ? rules::Protocol::Tcp : rules::Protocol::Udp;
        if (rng() % 2) r.ports = {{80, 80}, {8000, 8100}};
    }
    return rs;
}

// The reference: a plain sequential read, every payload in one batch, a
// positions scan on the CPU, first occurrence per (payload, rule). Stops
// quietly at a corrupt record, as replay does.
std::vector<Alert> reference(const CompiledRuleSet &crs, const std::string &path, bool positions) {
    capture::OfflineCapture cap(path);
    test::OwnedBatch batch;
    std::vector<uint64_t> numbers;
    wm_packet_t p{};
    try {
        while (cap.next(&p) == WM_SUCCESS) {
            batch.add(std::string(p.payload, p.payload + p.payload_len),
                      {p.proto, p.src_port, p.dst_port});
            numbers.push_back(p.number);
        }
    } catch (const capture::CaptureError &) {
    }
    Scanner sc(crs, test::scanner_options(WM_BACKEND_CPU, WM_OUTPUT_POSITIONS));
    std::vector<Match> out;
    EXPECT_EQ(sc.scan(batch.view(), out), WM_SUCCESS);
    std::map<std::pair<uint32_t, uint32_t>, Alert> first; // (payload, rule id)
    for (const auto &m : out) {
        const uint32_t id = crs.rules()[m.rule].id;
        Alert a{numbers[m.payload], id, positions ? 1 : 0, positions ? m.start : 0u,
                positions ? m.end : 0u};
        auto [it, fresh] = first.emplace(std::make_pair(m.payload, id), a);
        if (!fresh && positions && std::tie(m.end, m.start) < std::tie(it->second.end, it->second.start))
            it->second = a;
    }
    std::vector<Alert> v;
    for (const auto &[k, a] : first) v.push_back(a);
    return v;
}

struct ReplayRun {
    int rc = 0;
    std::vector<Alert> alerts;
    wm_replay_stats_t stats{};
    std::string error;
};

// How alerts reach the host: one callback each, one per window (an array),
// or none (counted in the stats only).
enum class Delivery { PerAlert, PerWindow, CountOnly };

// stop_after: the callback asks to stop once that many alerts came.
ReplayRun replay(Scanner &sc, const std::string &path, ReplayTuning t, size_t stop_after = 0,
                 Delivery delivery = Delivery::PerAlert) {
    ReplayRun r;
    struct Ctx {
        ReplayRun *r;
        size_t stop_after;
        size_t windows = 0;
    } ctx{&r, stop_after};
    ReplayCallbacks cb;
    if (delivery == Delivery::PerAlert) {
        cb.on_alert = [](const wm_alert_t *a, void *c) -> int {
            auto *x = static_cast<Ctx *>(c);
            x->r->alerts.push_back({a->packet->number, a->rule_id, a->has_offset, a->start, a->end});
            return x->stop_after && x->r->alerts.size() >= x->stop_after ? 1 : 0;
        };
        cb.alert_ctx = &ctx;
    } else if (delivery == Delivery::PerWindow) {
        cb.on_window_alerts = [](const wm_packet_t *packets, size_t num_packets, const wm_set_hit_t *hits, size_t n,
                                 void *c) -> int {
            auto *x = static_cast<Ctx *>(c);
            EXPECT_GT(n, 0u) << "a window without alerts makes no call";
            x->windows++;
            for (size_t i = 0; i < n; ++i) {
                EXPECT_LT(hits[i].payload_index, num_packets);
                if (i) EXPECT_LT(std::make_pair(hits[i - 1].payload_index, hits[i - 1].rule_id),
                                 std::make_pair(hits[i].payload_index, hits[i].rule_id)) << "hit " << i;
                x->r->alerts.push_back({packets[hits[i].payload_index].number, hits[i].rule_id, 0, 0, 0});
            }
            return x->stop_after && x->r->alerts.size() >= x->stop_after ? 1 : 0;
        };
        cb.window_alerts_ctx = &ctx;
    }
    r.stats.struct_size = sizeof(r.stats);
    r.rc = replay_file(sc, path, cb, r.stats, &r.error, t);
    return r;
}

// Alerts leave in packet order; within a packet the order is the engine's.
std::vector<Alert> checked_sorted(std::vector<Alert> v) {
    for (size_t i = 1; i < v.size(); ++i)
        EXPECT_LE(v[i - 1].packet, v[i].packet) << "alert " << i << " out of packet order";
    std::sort(v.begin(), v.end());
    return v;
}

const ReplayTuning kTunings[] = {{1, 1}, {1, 3000}, {4, 2000}, {3, 64 << 10}, {8, 1 << 20}};

ReplayTuning with(ReplayTuning t, WindowPipeline p) {
    t.pipeline = p;
    return t;
}

const char *name(WindowPipeline p) {
    return p == WindowPipeline::On ? "pipelined" : p == WindowPipeline::Off ? "one window at a time" : "auto";
}

void expect_every_tuning_matches(int backend, int mode, unsigned verify_every = 0,
                                 WindowPipeline pipeline = WindowPipeline::Auto,
                                 Delivery delivery = Delivery::PerAlert, unsigned cpu_threads = 0) {
    const std::string path = temp_path("mixed.pcap");
    write_capture(path, 7, 900);
    for (uint32_t seed : {1u, 2u}) {
        CompiledRuleSet crs(scoped_rules(seed));
        const auto want = reference(crs, path, mode == WM_OUTPUT_POSITIONS);
        ASSERT_GT(want.size(), 100u);
        wm_scanner_options_t o = test::scanner_options(backend, mode, verify_every);
        o.cpu_threads = cpu_threads;
        Scanner sc(crs, o);
        for (ReplayTuning t : kTunings) for (bool in_place : {true, false}) {
            t.payload_layout = in_place ? WM_PAYLOADS_IN_PLACE : WM_PAYLOADS_PACKED;
            SCOPED_TRACE(testing::Message() << "seed " << seed << " threads " << t.threads << " window "
                                            << t.window_bytes << " " << name(pipeline)
                                            << (delivery == Delivery::PerWindow ? ", window alerts" : "")
                                            << (in_place ? ", payloads in place" : ", payloads packed"));
            const ReplayRun r = replay(sc, path, with(t, pipeline), 0, delivery);
            EXPECT_EQ(r.rc, WM_SUCCESS) << r.error;
            EXPECT_EQ(r.stats.alerts, want.size());
            EXPECT_EQ(r.stats.capture.packets, 900u);
            if (delivery != Delivery::CountOnly) EXPECT_EQ(checked_sorted(r.alerts), want);
        }
    }
}

bool gpu_here(std::string *why) { return gpu::gpu_usable(0, why); }

TEST(ReplayWindows, SetAlertsEqualOnePlainBatchForEveryTuning) {
    expect_every_tuning_matches(WM_BACKEND_CPU, WM_OUTPUT_SET);
    expect_every_tuning_matches(WM_BACKEND_CPU, WM_OUTPUT_SET, 0, WindowPipeline::On);
}

// The same alerts as arrays, one call per window (wm_replay_options_t::on_window_alerts).
TEST(ReplayWindows, WindowAlertsEqualOnePlainBatchForEveryTuning) {
    expect_every_tuning_matches(WM_BACKEND_CPU, WM_OUTPUT_SET, 0, WindowPipeline::Auto, Delivery::PerWindow);
    expect_every_tuning_matches(WM_BACKEND_CPU, WM_OUTPUT_SET, 0, WindowPipeline::On, Delivery::PerWindow);
}

// Without a callback (warpmatch replay -q) the alerts are only counted, all of them.
TEST(ReplayWindows, AlertsAreCountedWithoutACallback) {
    expect_every_tuning_matches(WM_BACKEND_CPU, WM_OUTPUT_SET, 0, WindowPipeline::Auto, Delivery::CountOnly);
    expect_every_tuning_matches(WM_BACKEND_CPU, WM_OUTPUT_SET, 0, WindowPipeline::On, Delivery::CountOnly);
    expect_every_tuning_matches(WM_BACKEND_CPU, WM_OUTPUT_POSITIONS, 0, WindowPipeline::Auto, Delivery::CountOnly);
    expect_every_tuning_matches(WM_BACKEND_CPU, WM_OUTPUT_POSITIONS, 0, WindowPipeline::On, Delivery::CountOnly);
}

// A scanner without the set array cannot deliver windows.
TEST(ReplayWindows, WindowAlertsNeedTheSetArray) {
    const std::string path = temp_path("positions-windows.pcap");
    write_capture(path, 9, 100);
    CompiledRuleSet crs(scoped_rules(3));
    Scanner positions(crs, test::scanner_options(WM_BACKEND_CPU, WM_OUTPUT_POSITIONS));
    EXPECT_THROW(replay(positions, path, {4, 2000}, 0, Delivery::PerWindow), std::invalid_argument);
}

// Positions: each window scanned on a thread of its own while the alerts of
// the one before it are delivered (ScanAhead), or one window at a time.
TEST(ReplayWindows, PositionAlertsEqualOnePlainBatchForEveryTuning) {
    expect_every_tuning_matches(WM_BACKEND_CPU, WM_OUTPUT_POSITIONS);
    expect_every_tuning_matches(WM_BACKEND_CPU, WM_OUTPUT_POSITIONS, 0, WindowPipeline::On);
    // 16 Hyperscan threads: a window cut into runs, delivered as they finish.
    expect_every_tuning_matches(WM_BACKEND_CPU, WM_OUTPUT_POSITIONS, 0, WindowPipeline::Auto, Delivery::PerAlert, 16);
}

// A callback that asks to stop gets nothing after that: per alert, the
// alerts up to that one; per window, the windows up to that one's end.
TEST(ReplayWindows, StopRequestDeliversNothingAfterIt) {
    const std::string path = temp_path("stop.pcap");
    write_capture(path, 9, 900);
    CompiledRuleSet crs(scoped_rules(3));
    Scanner sc(crs, test::scanner_options(WM_BACKEND_CPU, WM_OUTPUT_SET));
    const auto all = replay(sc, path, {4, 2000}).alerts;
    for (auto delivery : {Delivery::PerAlert, Delivery::PerWindow}) {
        for (auto pipeline : {WindowPipeline::Off, WindowPipeline::On}) {
            for (size_t stop : {1u, 57u, 400u}) {
                SCOPED_TRACE(testing::Message() << "stop after " << stop << ", " << name(pipeline)
                                                << (delivery == Delivery::PerWindow ? ", window alerts" : ""));
                // The scanner is used again after each stop: nothing stays submitted.
                const ReplayRun r = replay(sc, path, with({4, 2000}, pipeline), stop, delivery);
                EXPECT_EQ(r.rc, WM_SCAN_TERMINATED);
                if (delivery == Delivery::PerAlert) EXPECT_EQ(r.alerts.size(), stop);
                else EXPECT_GE(r.alerts.size(), stop);
                ASSERT_LT(r.alerts.size(), all.size());
                EXPECT_EQ(r.stats.alerts, r.alerts.size());
                EXPECT_EQ(sc.pending_set(), 0u);
                EXPECT_TRUE(std::equal(r.alerts.begin(), r.alerts.end(), all.begin())) << "not the first alerts";
            }
        }
    }
    // Positions: the alerts come from the scanner's delivery spans (scanned
    // ahead on a thread of their own, or not), and a stop ends the batch's
    // delivery there; the scanner is usable again after it.
    Scanner positions(crs, test::scanner_options(WM_BACKEND_CPU, WM_OUTPUT_POSITIONS));
    const auto all_positions = replay(positions, path, {4, 2000}).alerts;
    for (auto pipeline : {WindowPipeline::Off, WindowPipeline::On})
    for (size_t stop : {1u, 57u, 400u}) {
        SCOPED_TRACE(testing::Message() << "positions, stop after " << stop << ", " << name(pipeline));
        const ReplayRun r = replay(positions, path, with({4, 2000}, pipeline), stop);
        EXPECT_EQ(r.rc, WM_SCAN_TERMINATED);
        EXPECT_EQ(r.alerts.size(), stop);
        EXPECT_EQ(r.stats.alerts, stop);
        ASSERT_LT(r.alerts.size(), all_positions.size());
        EXPECT_TRUE(std::equal(r.alerts.begin(), r.alerts.end(), all_positions.begin())) << "not the first alerts";
    }
}

TEST(ReplayWindows, CorruptRecordEndsTheReplayAfterEverythingBeforeIt) {
    const std::string path = temp_path("corrupt.pcap");
    write_capture(path, 11, 700);
    // Overwrite the caplen of record 500 with a length no capture allows.
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    uint64_t at = 24;
    for (int i = 1; i < 500; ++i) {
        f.seekg(long(at + 8));
        uint8_t len[4];
        f.read(reinterpret_cast<char *>(len), 4);
        at += 16 + (uint32_t(len[0]) | uint32_t(len[1]) << 8 | uint32_t(len[2]) << 16 | uint32_t(len[3]) << 24);
    }
    f.seekp(long(at + 8));
    const uint8_t huge[4] = {0xff, 0xff, 0xff, 0x7f};
    f.write(reinterpret_cast<const char *>(huge), 4);
    f.close();

    CompiledRuleSet crs(scoped_rules(4));
    const auto want = reference(crs, path, false);
    Scanner sc(crs, test::scanner_options(WM_BACKEND_CPU, WM_OUTPUT_SET));
    for (auto pipeline : {WindowPipeline::Off, WindowPipeline::On}) {
        for (const auto &t : kTunings) {
            SCOPED_TRACE(testing::Message() << "threads " << t.threads << " window " << t.window_bytes << " "
                                            << name(pipeline));
            const ReplayRun r = replay(sc, path, with(t, pipeline));
            EXPECT_EQ(r.rc, WM_CAPTURE_ERROR);
            EXPECT_NE(r.error.find("packet 500"), std::string::npos) << r.error;
            EXPECT_EQ(r.stats.capture.packets, 499u);
            EXPECT_EQ(checked_sorted(r.alerts), want);
        }
    }
    // Positions, windows scanned ahead or not: every alert before the bad record too.
    const auto want_positions = reference(crs, path, true);
    Scanner positions(crs, test::scanner_options(WM_BACKEND_CPU, WM_OUTPUT_POSITIONS));
    for (auto pipeline : {WindowPipeline::Off, WindowPipeline::On}) {
        SCOPED_TRACE(testing::Message() << "positions, " << name(pipeline));
        const ReplayRun r = replay(positions, path, with({4, 2000}, pipeline));
        EXPECT_EQ(r.rc, WM_CAPTURE_ERROR);
        EXPECT_EQ(r.stats.capture.packets, 499u);
        EXPECT_EQ(checked_sorted(r.alerts), want_positions);
    }
}

TEST(ReplayWindowsGpu, SetPositionsAndVerifiedRunsEqualTheReference) {
    std::string why;
    if (!gpu_here(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    expect_every_tuning_matches(WM_BACKEND_GPU, WM_OUTPUT_SET); // pipelined
    expect_every_tuning_matches(WM_BACKEND_GPU, WM_OUTPUT_SET, 0, WindowPipeline::Auto, Delivery::PerWindow);
    expect_every_tuning_matches(WM_BACKEND_GPU, WM_OUTPUT_SET, 0, WindowPipeline::Off);
    expect_every_tuning_matches(WM_BACKEND_GPU, WM_OUTPUT_POSITIONS);
    expect_every_tuning_matches(WM_BACKEND_GPU, WM_OUTPUT_POSITIONS, 0, WindowPipeline::Off);
    // Positions expanded on 5 host threads: a payload's matches may reach
    // the replay in several spans.
    expect_every_tuning_matches(WM_BACKEND_GPU, WM_OUTPUT_POSITIONS, 0, WindowPipeline::Auto, Delivery::PerAlert, 5);
    expect_every_tuning_matches(WM_BACKEND_GPU, WM_OUTPUT_POSITIONS, 2, WindowPipeline::Auto, Delivery::PerAlert, 5);
    expect_every_tuning_matches(WM_BACKEND_GPU, WM_OUTPUT_SET, 2);
}

// A GPU failure in a window scanned ahead (the third positions chunk of the
// replay, on the scanning thread): under `auto` the scanner finishes that
// window on Hyperscan and the replay's alerts are all there, once; with
// `gpu` the replay throws the scanner's error (no window is left in flight),
// and the same scanner replays the file again afterwards.
TEST(ReplayWindowsGpu, FailureInAWindowScannedAhead) {
    std::string why;
    if (!gpu_here(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    const std::string path = temp_path("ahead-failure.pcap");
    write_capture(path, 13, 900);
    CompiledRuleSet crs(scoped_rules(5));
    const auto want = reference(crs, path, true);
    for (int backend : {WM_BACKEND_AUTO, WM_BACKEND_GPU}) {
        SCOPED_TRACE(backend == WM_BACKEND_AUTO ? "auto" : "gpu");
        Scanner sc(crs, test::scanner_options(backend, WM_OUTPUT_POSITIONS));
        ASSERT_EQ(sc.backend(), WM_BACKEND_GPU);
        gpu::testing::fail_positions_chunk(3);
        if (backend == WM_BACKEND_AUTO) {
            const ReplayRun r = replay(sc, path, {4, 2000});
            EXPECT_EQ(r.rc, WM_SUCCESS) << r.error;
            EXPECT_EQ(checked_sorted(r.alerts), want);
            EXPECT_EQ(sc.backend(), WM_BACKEND_CPU);
        } else {
            EXPECT_THROW(replay(sc, path, {4, 2000}), StatusError);
            gpu::testing::fail_positions_chunk(0);
            const ReplayRun again = replay(sc, path, {4, 2000});
            EXPECT_EQ(again.rc, WM_SUCCESS) << again.error;
            EXPECT_EQ(checked_sorted(again.alerts), want);
        }
        gpu::testing::fail_positions_chunk(0);
    }
}

} // namespace
