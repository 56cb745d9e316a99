// ABI suite: wm_replay_options_t::payload_layout (0.15). Payloads left where
// the file has them, packed by the reader, or the backend's default: the same
// alerts, on the same packets with the same payload bytes, for windows of one
// part and of many; a value outside the enum is refused before the file is
// read. On the GPU (skipped without one) also in set mode, where the device
// packs the payloads left in place.
#include "abi_fixture.h"
#include "abi_replay_refused.h"
#include "warpmatch_stream.h"

#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

using abi_test::Fixture;

namespace {

// Ethernet, IPv4, UDP 1234 -> 53 carrying `payload`.
std::vector<uint8_t> udp_frame(const std::string &payload) {
    const size_t ip_len = 20 + 8 + payload.size();
    std::vector<uint8_t> f = {2, 0, 0, 0, 0, 0xb, 2, 0, 0, 0, 0, 0xa, 0x08, 0x00,
                              0x45, 0, uint8_t(ip_len >> 8), uint8_t(ip_len), 0, 1, 0, 0, 64, 17, 0, 0,
                              10, 0, 0, 1, 10, 0, 0, 2,
                              0x04, 0xd2, 0, 53, uint8_t((ip_len - 20) >> 8), uint8_t(ip_len - 20), 0, 0};
    f.insert(f.end(), payload.begin(), payload.end());
    return f;
}

// 400 frames, payloads of 0-300 bytes over "abcAB xy" (an empty one now and
// then: no payload, no packet handed out).
std::string write_capture() {
    std::vector<std::vector<uint8_t>> frames;
    uint32_t x = 7;
    for (uint32_t i = 0; i < 400; ++i) {
        std::string payload((x = x * 1103515245u + 12345u) >> 23, ' ');
        for (char &c : payload) c = "abcAB xy"[(x = x * 1103515245u + 12345u) >> 29];
        if (payload.size() > 300) payload.resize(i % 7 == 0 ? 0 : 300);
        frames.push_back(udp_frame(payload));
    }
    return abi_test::write_pcap("abi_payload_layout.pcap", frames);
}

using Alert = std::tuple<uint64_t, uint32_t, uint32_t, uint32_t, std::string>; // packet, rule, start, end, payload

int collect(const wm_alert_t *a, void *ctx) {
    static_cast<std::vector<Alert> *>(ctx)->emplace_back(
        a->packet->number, a->rule_id, a->start, a->end,
        std::string(reinterpret_cast<const char *>(a->packet->payload), a->packet->payload_len));
    return 0;
}

std::vector<Alert> replay(wm_scanner_t *sc, const std::string &path, int layout, size_t window_bytes) {
    wm_replay_options_t ro;
    wm_replay_options_init(&ro);
    ro.payload_layout = layout;
    ro.read_threads = 3;
    ro.window_bytes = window_bytes;
    wm_replay_stats_t st;
    wm_replay_stats_init(&st);
    std::vector<Alert> alerts;
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_replay_file_ex(sc, path.c_str(), &ro, collect, &alerts, nullptr, nullptr, &st, nullptr, &err),
              WM_SUCCESS)
        << (err ? err->message : "");
    wm_error_free(err);
    EXPECT_EQ(st.alerts, alerts.size());
    return alerts;
}

void expect_every_layout_alike(wm_scanner_t *sc, const std::string &path) {
    for (size_t window : {size_t{0}, size_t{4096}}) {
        SCOPED_TRACE("window bytes " + std::to_string(window));
        const std::vector<Alert> packed = replay(sc, path, WM_PAYLOADS_PACKED, window);
        EXPECT_GT(packed.size(), 100u);
        EXPECT_EQ(replay(sc, path, WM_PAYLOADS_IN_PLACE, window), packed);
        EXPECT_EQ(replay(sc, path, WM_PAYLOADS_AUTO, window), packed);
    }
}

} // namespace

TEST_F(Fixture, ReplayPayloadLayoutsGiveTheSameAlerts) {
    const std::string path = write_capture();
    expect_every_layout_alike(sc, path);
    for (int bad : {-1, 3}) {
        wm_replay_options_t ro;
        wm_replay_options_init(&ro);
        EXPECT_EQ(ro.payload_layout, WM_PAYLOADS_AUTO);
        ro.payload_layout = bad;
        abi_test::expect_replay_refused(sc, path, ro, "payload_layout " + std::to_string(bad));
    }
    std::remove(path.c_str());
}

TEST_F(Fixture, ReplayPayloadLayoutsOnTheGpu) {
    wm_scanner_options_t o;
    wm_scanner_options_init(&o);
    o.backend = WM_BACKEND_GPU;
    const std::string path = write_capture();
    for (int mode : {WM_OUTPUT_POSITIONS, WM_OUTPUT_SET}) {
        o.output_mode = mode;
        wm_scanner_t *gpu = nullptr;
        wm_error_t *err = nullptr;
        if (const int rc = wm_scanner_create(rs, &o, &gpu, &err); rc != WM_SUCCESS) {
            const std::string why = err ? err->message : "";
            wm_error_free(err);
            std::remove(path.c_str());
            if (rc == WM_NO_GPU) GTEST_SKIP() << "no GPU scanner: " << why;
            FAIL() << wm_status_name(rc) << ": " << why; // a GPU is there, the scanner must be too
        }
        SCOPED_TRACE(mode == WM_OUTPUT_SET ? "set" : "positions");
        expect_every_layout_alike(gpu, path);
        wm_scanner_free(gpu);
    }
    std::remove(path.c_str());
}
