// ABI suite: one wm_live_run at a time per live capture. A second call while
// the first runs (on another thread, with another scanner) returns
// WM_BAD_STATE instead of sharing the pcap handle and the stats, and so does
// a run after one that wm_live_stop ended. A capture filter that does not
// compile is the caller's argument (WM_INVALID). Skips where the loopback
// interface cannot be opened (no CAP_NET_RAW).
#include "warpmatch.h"
#include "warpmatch_stream.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

namespace {
// Opens a live capture; nullptr and the reason where this machine cannot
// capture on the interface (no CAP_NET_RAW).
wm_live_t *open_or_why(const wm_live_options_t &lo, std::string *why) {
    wm_live_t *live = nullptr;
    wm_error_t *err = nullptr;
    if (wm_live_open(&lo, &live, &err) == WM_SUCCESS) return live;
    *why = err && err->message ? err->message : "";
    wm_error_free(err);
    return nullptr;
}
} // namespace

TEST(AbiLive, ASecondRunOfOneCaptureIsRefusedWhileTheFirstRuns) {
    const char rules[] = "version: 1\nrules:\n  - {id: 1, msg: m, pattern: abc}\n";
    wm_ruleset_t *rs = nullptr;
    ASSERT_EQ(wm_ruleset_load_string(rules, sizeof(rules) - 1, "inline", &rs, nullptr), WM_SUCCESS);
    wm_live_options_t lo;
    wm_live_options_init(&lo);
    lo.interface = "lo";
    lo.max_latency_ms = 10;
    std::string why;
    wm_live_t *live = open_or_why(lo, &why);
    if (!live) {
        wm_ruleset_free(rs);
        GTEST_SKIP() << "cannot capture on lo here: " << why;
    }
    wm_scanner_options_t so;
    wm_scanner_options_init(&so);
    so.backend = WM_BACKEND_CPU;
    wm_scanner_t *first = nullptr, *second = nullptr;
    ASSERT_EQ(wm_scanner_create(rs, &so, &first, nullptr), WM_SUCCESS);
    ASSERT_EQ(wm_scanner_create(rs, &so, &second, nullptr), WM_SUCCESS);

    // Two runs at once, whichever starts first: the other one must come back
    // at once with WM_BAD_STATE (no sleep guessing which one captures).
    struct Run {
        wm_scanner_t *scanner;
        std::atomic<int> rc{-100};
        wm_error_t *err = nullptr;
    } runs[2] = {{first}, {second}};
    std::vector<std::thread> threads;
    for (Run &r : runs)
        threads.emplace_back([&r, live] { r.rc = wm_live_run(live, r.scanner, nullptr, nullptr, &r.err); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (runs[0].rc == -100 && runs[1].rc == -100 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const int refused = runs[0].rc != -100 ? 0 : 1;
    EXPECT_EQ(runs[refused].rc, WM_BAD_STATE) << "neither run came back within 30 s";
    wm_live_stop(live);
    for (auto &t : threads) t.join();
    EXPECT_EQ(runs[1 - refused].rc, WM_SUCCESS);
    ASSERT_NE(runs[refused].err, nullptr);
    EXPECT_NE(std::string(runs[refused].err->message).find("already running"), std::string::npos)
        << runs[refused].err->message;
    wm_error_free(runs[refused].err);
    wm_error_free(runs[1 - refused].err);
    // The first run ended on wm_live_stop: the capture is over, and another
    // run says so instead of returning at once with nothing captured.
    wm_error_t *after_err = nullptr;
    EXPECT_EQ(wm_live_run(live, second, nullptr, nullptr, &after_err), WM_BAD_STATE);
    ASSERT_NE(after_err, nullptr);
    EXPECT_NE(std::string(after_err->message).find("stopped by wm_live_stop"), std::string::npos)
        << after_err->message;
    wm_error_free(after_err);

    wm_live_close(live);
    wm_scanner_free(first);
    wm_scanner_free(second);
    wm_ruleset_free(rs);
}

// A run whose callback stops it leaves the packets it did not reach in the
// capture for the next run ("can be followed by another that captures on"):
// ten datagrams wait in the ring, the first run stops at its first alert,
// the second gets the other nine. Before, libpcap's dispatch went on through
// the rest of the ring's block and they were consumed unscanned.
TEST(AbiLive, ARunStoppedByItsCallbackLeavesTheRestToTheNextRun) {
    const char rules[] = "version: 1\nrules:\n  - {id: 1, msg: m, pattern: abcdef}\n";
    wm_ruleset_t *rs = nullptr;
    ASSERT_EQ(wm_ruleset_load_string(rules, sizeof(rules) - 1, "inline", &rs, nullptr), WM_SUCCESS);
    const uint16_t port = static_cast<uint16_t>(40000 + getpid() % 20000);
    const std::string bpf = "udp dst port " + std::to_string(port);
    wm_live_options_t lo;
    wm_live_options_init(&lo);
    lo.interface = "lo";
    lo.bpf = bpf.c_str();
    lo.immediate = 1;
    lo.max_batch_bytes = 1; // a batch per datagram: the callback runs before the next one is read
    std::string why;
    wm_live_t *live = open_or_why(lo, &why);
    if (!live) {
        wm_ruleset_free(rs);
        GTEST_SKIP() << "cannot capture on lo here: " << why;
    }
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const char msg[] = "xx abcdef xx";
    for (int i = 0; i < 10; ++i)
        ASSERT_EQ(sendto(fd, msg, sizeof(msg) - 1, 0, reinterpret_cast<const sockaddr *>(&to), sizeof(to)),
                  ssize_t(sizeof(msg) - 1));
    close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(50)); // all ten in the ring

    wm_scanner_options_t so;
    wm_scanner_options_init(&so);
    so.backend = WM_BACKEND_CPU;
    wm_scanner_t *sc = nullptr;
    ASSERT_EQ(wm_scanner_create(rs, &so, &sc, nullptr), WM_SUCCESS);
    int first_alerts = 0, second_alerts = 0;
    auto stop_at_first = [](const wm_alert_t *, void *ctx) { return ++*static_cast<int *>(ctx) > 0 ? 1 : 0; };
    EXPECT_EQ(wm_live_run(live, sc, stop_at_first, &first_alerts, nullptr), WM_SCAN_TERMINATED);
    EXPECT_EQ(first_alerts, 1);
    std::thread stopper([live] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        wm_live_stop(live);
    });
    auto count = [](const wm_alert_t *, void *ctx) { return ++*static_cast<int *>(ctx), 0; };
    EXPECT_EQ(wm_live_run(live, sc, count, &second_alerts, nullptr), WM_SUCCESS);
    stopper.join();
    EXPECT_EQ(second_alerts, 9);
    wm_live_close(live);
    wm_scanner_free(sc);
    wm_ruleset_free(rs);
}

TEST(AbiLive, AFilterThatDoesNotCompileIsInvalidNotAnIoError) {
    wm_live_options_t lo;
    wm_live_options_init(&lo);
    lo.interface = "lo";
    std::string why;
    wm_live_t *live = open_or_why(lo, &why);
    if (!live) GTEST_SKIP() << "cannot capture on lo here: " << why;
    wm_live_close(live);
    lo.bpf = "tcp port (((";
    live = nullptr;
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_live_open(&lo, &live, &err), WM_INVALID);
    EXPECT_EQ(live, nullptr);
    ASSERT_NE(err, nullptr);
    EXPECT_NE(std::string(err->message).find("bad capture filter 'tcp port ((('"), std::string::npos) << err->message;
    wm_error_free(err);
}

TEST(AbiLive, StatsJsonWritesNullForWhatIsNotANumber) {
    wm_live_stats_t st;
    wm_live_stats_init(&st);
    st.pcap_received = 7;
    st.latency_p50_ms = 1.23456;
    st.latency_p99_ms = std::nan("");
    st.latency_max_ms = HUGE_VAL;
    char *json = nullptr;
    ASSERT_EQ(wm_live_stats_to_json(&st, &json), WM_SUCCESS);
    EXPECT_EQ(std::string(json), "{\"pcap_received\":7,\"pcap_dropped\":0,\"pcap_if_dropped\":0,"
                                 "\"batches_by_size\":0,\"batches_by_latency\":0,\"batches_at_stop\":0,"
                                 "\"latency_ms\":{\"p50\":1.235,\"p99\":null,\"max\":null}}");
    wm_free(json);
}
