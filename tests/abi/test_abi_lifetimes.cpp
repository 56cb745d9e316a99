// ABI suite: what outlives what, and what a call leaves behind when it fails.
// A scanner keeps its rule set's compiled rules after wm_ruleset_free; the
// scanner stats of the shorter, earlier struct are filled without a write
// past it; a batch buffer no batch could address is refused by name; replay
// stats are reset also when the capture cannot be opened.
#include "warpmatch.h"
#include "warpmatch_stream.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char kRules[] = "version: 1\nrules:\n  - {id: 10, msg: ten, pattern: abc}\n  - {id: 20, msg: twenty, pattern: xyz}\n";

wm_scanner_t *cpu_scanner(const wm_ruleset_t *rs) {
    wm_scanner_options_t o;
    wm_scanner_options_init(&o);
    o.backend = WM_BACKEND_CPU;
    wm_scanner_t *sc = nullptr;
    return wm_scanner_create(rs, &o, &sc, nullptr) == WM_SUCCESS ? sc : nullptr;
}

// Rule ids wm_scan_batch reports for one payload, in order.
std::vector<uint32_t> rules_in(wm_scanner_t *sc, const std::string &payload) {
    uint32_t offsets[] = {0, static_cast<uint32_t>(payload.size())};
    const wm_batch_t b{reinterpret_cast<const uint8_t *>(payload.data()), offsets, 1, nullptr};
    std::vector<uint32_t> ids;
    auto add = [](uint32_t rule, uint32_t, uint32_t, uint32_t, void *ctx) {
        static_cast<std::vector<uint32_t> *>(ctx)->push_back(rule);
        return 0;
    };
    EXPECT_EQ(wm_scan_batch(sc, &b, add, &ids, nullptr), WM_SUCCESS);
    return ids;
}

// A rule set of kRules and a CPU scanner of it.
struct OneScanner : ::testing::Test {
    wm_ruleset_t *rs = nullptr;
    wm_scanner_t *sc = nullptr;
    void SetUp() override {
        ASSERT_EQ(wm_ruleset_load_string(kRules, sizeof(kRules) - 1, "inline", &rs, nullptr), WM_SUCCESS);
        ASSERT_NE(sc = cpu_scanner(rs), nullptr);
    }
    void TearDown() override {
        wm_scanner_free(sc);
        wm_ruleset_free(rs);
    }
};

} // namespace

TEST(AbiLifetimes, AScannerKeepsItsRulesAfterTheRuleSetIsFreed) {
    wm_ruleset_t *rs = nullptr;
    ASSERT_EQ(wm_ruleset_load_string(kRules, sizeof(kRules) - 1, "inline", &rs, nullptr), WM_SUCCESS);
    wm_scanner_t *a = cpu_scanner(rs), *b = cpu_scanner(rs);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    wm_ruleset_free(rs); // before either scanner (ASan/valgrind: no read of freed rules below)
    EXPECT_EQ(rules_in(a, "..abc..xyz"), (std::vector<uint32_t>{10, 20}));
    wm_scanner_free(a);
    EXPECT_EQ(rules_in(b, "xyzabc"), (std::vector<uint32_t>{20, 10}));
    wm_scanner_free(b);
}

TEST_F(OneScanner, ScannerStatsOfTheEarlierShorterStructAreFilled) {
    ASSERT_EQ(rules_in(sc, "abc").size(), 1u);
    // The struct as built before the *_seconds fields, then guard bytes.
    constexpr size_t kOld = offsetof(wm_scanner_stats_t, engine_seconds);
    unsigned char buf[kOld + 16];
    std::memset(buf, 0xAB, sizeof(buf));
    const size_t old_size = kOld;
    std::memcpy(buf, &old_size, sizeof(old_size));
    ASSERT_EQ(wm_scanner_stats(sc, reinterpret_cast<wm_scanner_stats_t *>(buf)), WM_SUCCESS);
    wm_scanner_stats_t got{};
    std::memcpy(&got, buf, kOld);
    EXPECT_EQ(got.struct_size, kOld);
    EXPECT_EQ(got.batches, 1u);
    EXPECT_EQ(got.payloads, 1u);
    EXPECT_EQ(got.matches, 1u);
    for (size_t i = kOld; i < sizeof(buf); ++i) EXPECT_EQ(buf[i], 0xAB) << "written past the caller's struct at " << i;
    // Any other size is still refused.
    wm_scanner_stats_t st;
    wm_scanner_stats_init(&st);
    st.struct_size = kOld + 8;
    EXPECT_EQ(wm_scanner_stats(sc, &st), WM_INVALID);
}

TEST_F(OneScanner, ABatchBufferNoBatchCouldAddressIsRefusedByName) {
    uint8_t *buf = nullptr;
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_scanner_batch_buffer(sc, SIZE_MAX, &buf, &err), WM_INVALID);
    ASSERT_NE(err, nullptr);
    const std::string msg = err->message;
    EXPECT_NE(msg.find("wm_scanner_batch_buffer"), std::string::npos) << msg;
    EXPECT_NE(msg.find("32-bit"), std::string::npos) << msg;
    wm_error_free(err);
    EXPECT_EQ(buf, nullptr);
    EXPECT_EQ(wm_scanner_batch_buffer(sc, 4096, &buf, nullptr), WM_SUCCESS) << "still usable";
    EXPECT_NE(buf, nullptr);
}

TEST_F(OneScanner, ReplayStatsAreResetWhenTheCaptureCannotBeOpened) {
    wm_replay_stats_t st;
    wm_replay_stats_init(&st);
    st.alerts = 17, st.capture.packets = 134; // as a previous replay left them
    EXPECT_EQ(wm_replay_file(sc, "/nonexistent.pcap", nullptr, nullptr, nullptr, nullptr, &st, nullptr), WM_IO_ERROR);
    EXPECT_EQ(st.alerts, 0u);
    EXPECT_EQ(st.capture.packets, 0u);
    st.alerts = 17, st.capture.packets = 134;
    EXPECT_EQ(wm_replay_file_ex(sc, "/nonexistent.pcap", nullptr, nullptr, nullptr, nullptr, nullptr, &st, nullptr,
                                nullptr),
              WM_IO_ERROR);
    EXPECT_EQ(st.alerts, 0u);
    EXPECT_EQ(st.capture.packets, 0u);
}
