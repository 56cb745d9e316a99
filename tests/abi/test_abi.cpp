// ABI suite: only the public header and the shared library. Every entry
// point rejects NULL, zero-length and wrong-state arguments with its code.
#include "warpmatch.h"
#include "warpmatch_stream.h"

#include "abi_fixture.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace abi_test;

int stop_now(uint32_t, uint32_t, uint32_t, uint32_t, void *) { return 1; }

TEST(Abi, Versions) {
    EXPECT_EQ(wm_abi_version(), WM_ABI_VERSION);
    const std::string header_version = std::to_string(WM_VERSION_MAJOR) + "." + std::to_string(WM_VERSION_MINOR) +
                                       "." + std::to_string(WM_VERSION_PATCH);
    EXPECT_EQ(std::string(wm_version()).rfind(header_version + " ", 0), 0u) << wm_version();
    EXPECT_STREQ(wm_status_name(WM_RULE_ERROR), "WM_RULE_ERROR");
    EXPECT_STREQ(wm_status_name(12345), "WM_UNKNOWN_STATUS");
}

// The loader found the library by its SONAME, which must name the ABI: a host
// built against another WM_ABI_VERSION then fails to load instead of calling
// into mismatched structs.
TEST(Abi, SonameCarriesTheAbiVersion) {
    Dl_info info{};
    ASSERT_NE(dladdr(reinterpret_cast<void *>(&wm_abi_version), &info), 0);
    ASSERT_NE(info.dli_fname, nullptr);
    const std::string loaded = info.dli_fname;
    const std::string soname = "libwarpmatch.so." + std::to_string(WM_ABI_VERSION);
    ASSERT_GE(loaded.size(), soname.size()) << loaded;
    EXPECT_EQ(loaded.substr(loaded.size() - soname.size()), soname) << "loaded " << loaded;
}

TEST(Abi, FreeFunctionsAcceptNullAndRealObjects) {
    wm_error_free(nullptr);
    wm_ruleset_free(nullptr);
    wm_scanner_free(nullptr);
    wm_capture_close(nullptr);
    wm_free(nullptr);
    // And the same functions release what the library handed out.
    wm_ruleset_t *good = nullptr, *bad = nullptr;
    wm_error_t *err = nullptr;
    ASSERT_EQ(wm_ruleset_load_string(kRules, sizeof(kRules) - 1, "n", &good, nullptr), WM_SUCCESS);
    EXPECT_NE(good, nullptr);
    wm_ruleset_free(good);
    EXPECT_EQ(wm_ruleset_load_string("version: 1\nrules: 5\n", 19, "bad", &bad, &err),
              WM_RULE_ERROR);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(bad, nullptr); // *out stays null on failure
    wm_error_free(err);
}

TEST(Abi, RulesetLoadArgumentChecks) {
    wm_ruleset_t *rs = nullptr;
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_ruleset_load_file(nullptr, &rs, &err), WM_INVALID);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(err->code, WM_INVALID);
    wm_error_free(err);
    EXPECT_EQ(wm_ruleset_load_file("x.yaml", nullptr, nullptr), WM_INVALID);
    EXPECT_EQ(wm_ruleset_load_file("", &rs, nullptr), WM_INVALID);
    EXPECT_EQ(wm_ruleset_load_string(nullptr, 5, "n", &rs, nullptr), WM_INVALID);
    EXPECT_EQ(wm_ruleset_load_string(kRules, 0, "n", &rs, nullptr), WM_INVALID);
    EXPECT_EQ(wm_ruleset_load_string(kRules, sizeof(kRules) - 1, "n", nullptr, nullptr),
              WM_INVALID);
}

TEST(Abi, MissingFileIsAnIoErrorNamingTheFile) {
    wm_ruleset_t *rs = nullptr;
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_ruleset_load_file("/nonexistent/rules.yaml", &rs, &err), WM_IO_ERROR);
    EXPECT_EQ(rs, nullptr);
    ASSERT_NE(err, nullptr);
    EXPECT_NE(std::string(err->message).find("/nonexistent/rules.yaml"), std::string::npos)
        << err->message;
    wm_error_free(err);
}

TEST(Abi, RuleErrorsCarryLocationsAndIds) {
    const char bad[] = "version: 1\nrules:\n  - id: 5\n    msg: m\n    pattern: \"\"\n"
                       "  - id: 5\n    msg: m\n    pattern: x\n    colour: red\n";
    wm_ruleset_t *rs = nullptr;
    wm_error_t *err = nullptr;
    ASSERT_EQ(wm_ruleset_load_string(bad, sizeof(bad) - 1, "bad.yaml", &rs, &err), WM_RULE_ERROR);
    ASSERT_NE(err, nullptr);
    EXPECT_GE(err->count, 3u) << err->message; // empty pattern, duplicate id, unknown key
    for (size_t i = 0; i < err->count; ++i) {
        EXPECT_STREQ(err->diagnostics[i].file, "bad.yaml");
        EXPECT_GT(err->diagnostics[i].line, 0u);
        EXPECT_EQ(err->diagnostics[i].rule_id, 5);
    }
    EXPECT_NE(std::string(err->message).find("bad.yaml:"), std::string::npos);
    wm_error_free(err);
}

TEST_F(Fixture, InfoAndRuleLookup) {
    wm_ruleset_info_t info;
    EXPECT_EQ(wm_ruleset_info(rs, &info), WM_INVALID); // not initialised
    wm_ruleset_info_init(&info);
    EXPECT_EQ(wm_ruleset_info(nullptr, &info), WM_INVALID);
    ASSERT_EQ(wm_ruleset_info(rs, &info), WM_SUCCESS);
    EXPECT_EQ(info.rules, 2u);
    EXPECT_EQ(info.nocase_rules, 1u);
    EXPECT_EQ(info.min_pattern_len, 2u);
    EXPECT_EQ(info.max_pattern_len, 3u);
    EXPECT_EQ(std::strlen(info.hash), 16u);
    wm_rule_info_t ri;
    wm_rule_info_init(&ri);
    ASSERT_EQ(wm_ruleset_rule(rs, 20, &ri), WM_SUCCESS);
    EXPECT_STREQ(ri.msg, "twenty");
    EXPECT_EQ(wm_ruleset_rule(rs, 99, &ri), WM_INVALID);
}

TEST_F(Fixture, SerializationIsDeterministic) {
    wm_ruleset_t *again = nullptr;
    ASSERT_EQ(wm_ruleset_load_string(kRules, sizeof(kRules) - 1, "other-name", &again, nullptr),
              WM_SUCCESS);
    char *a = nullptr, *b = nullptr;
    size_t na = 0, nb = 0;
    ASSERT_EQ(wm_ruleset_serialize(rs, &a, &na), WM_SUCCESS);
    ASSERT_EQ(wm_ruleset_serialize(again, &b, &nb), WM_SUCCESS);
    ASSERT_EQ(na, nb);
    EXPECT_EQ(std::memcmp(a, b, na), 0);
    EXPECT_EQ(wm_ruleset_serialize(nullptr, &a, &na), WM_INVALID);
    wm_free(a);
    wm_free(b);
    wm_ruleset_free(again);
}

TEST_F(Fixture, ScanBatchDeliversMatches) {
    const char data[] = "xxabcab" "AB";
    uint32_t offsets[] = {0, 7, 7, 9};
    wm_batch_t b{reinterpret_cast<const uint8_t *>(data), offsets, 3, nullptr};
    std::vector<Hit> hits;
    ASSERT_EQ(wm_scan_batch(sc, &b, collect, &hits, nullptr), WM_SUCCESS);
    ASSERT_EQ(hits.size(), 4u);
    // Canonical order: payload, end, rule.
    EXPECT_EQ(hits[0].rule, 20u); // "ab" at [2,4)
    EXPECT_EQ(hits[0].end, 4u);
    EXPECT_EQ(hits[1].rule, 10u); // "abc" at [2,5)
    EXPECT_EQ(hits[2].rule, 20u); // "ab" at [5,7)
    EXPECT_EQ(hits[3].payload, 2u); // "AB" nocase
    EXPECT_EQ(hits[3].start, 0u);
    wm_scanner_stats_t st;
    wm_scanner_stats_init(&st);
    ASSERT_EQ(wm_scanner_stats(sc, &st), WM_SUCCESS);
    EXPECT_EQ(st.matches, 4u);
    EXPECT_EQ(st.payloads, 3u);
    EXPECT_EQ(wm_scanner_backend(sc), WM_BACKEND_CPU);
}

TEST_F(Fixture, ScanBatchArgumentChecks) {
    const char data[] = "abc";
    uint32_t offsets[] = {0, 3};
    uint32_t bad_offsets[] = {3, 0};
    wm_batch_t b{reinterpret_cast<const uint8_t *>(data), offsets, 1, nullptr};
    std::vector<Hit> hits;
    EXPECT_EQ(wm_scan_batch(nullptr, &b, collect, &hits, nullptr), WM_INVALID);
    EXPECT_EQ(wm_scan_batch(sc, nullptr, collect, &hits, nullptr), WM_INVALID);
    EXPECT_EQ(wm_scan_batch(sc, &b, nullptr, &hits, nullptr), WM_INVALID);
    wm_batch_t empty{reinterpret_cast<const uint8_t *>(data), offsets, 0, nullptr};
    EXPECT_EQ(wm_scan_batch(sc, &empty, collect, &hits, nullptr), WM_INVALID);
    wm_batch_t no_offsets{reinterpret_cast<const uint8_t *>(data), nullptr, 1, nullptr};
    EXPECT_EQ(wm_scan_batch(sc, &no_offsets, collect, &hits, nullptr), WM_INVALID);
    wm_batch_t decreasing{reinterpret_cast<const uint8_t *>(data), bad_offsets, 1, nullptr};
    EXPECT_EQ(wm_scan_batch(sc, &decreasing, collect, &hits, nullptr), WM_INVALID);
    wm_batch_t no_data{nullptr, offsets, 1, nullptr};
    EXPECT_EQ(wm_scan_batch(sc, &no_data, collect, &hits, nullptr), WM_INVALID);
    EXPECT_EQ(wm_scan_batch(sc, &b, stop_now, nullptr, nullptr), WM_SCAN_TERMINATED);
    EXPECT_TRUE(hits.empty());
}

// The same batch as ScanBatchDeliversMatches, as one array of distinct
// (rule, payload) hits ordered by payload, then rule id.
TEST_F(Fixture, ScanBatchSetDeliversOneArray) {
    const char data[] = "xxabcab" "AB";
    uint32_t offsets[] = {0, 7, 7, 9};
    wm_batch_t b{reinterpret_cast<const uint8_t *>(data), offsets, 3, nullptr};
    const wm_set_hit_t *hits = nullptr;
    size_t n = 0;
    ASSERT_EQ(wm_scan_batch_set(sc, &b, &hits, &n, nullptr), WM_SUCCESS);
    ASSERT_EQ(n, 3u);
    EXPECT_EQ(hits[0].payload_index, 0u);
    EXPECT_EQ(hits[0].rule_id, 10u);
    EXPECT_EQ(hits[1].payload_index, 0u);
    EXPECT_EQ(hits[1].rule_id, 20u);
    EXPECT_EQ(hits[2].payload_index, 2u);
    EXPECT_EQ(hits[2].rule_id, 20u);
    wm_scanner_stats_t st;
    wm_scanner_stats_init(&st);
    ASSERT_EQ(wm_scanner_stats(sc, &st), WM_SUCCESS);
    EXPECT_EQ(st.matches, 3u);
}

TEST_F(Fixture, ScanBatchSetArgumentChecks) {
    const char data[] = "abc";
    uint32_t offsets[] = {0, 3};
    uint32_t bad_offsets[] = {3, 0};
    wm_batch_t b{reinterpret_cast<const uint8_t *>(data), offsets, 1, nullptr};
    const wm_set_hit_t *hits = reinterpret_cast<const wm_set_hit_t *>(&b); // must be reset
    size_t n = 99;
    EXPECT_EQ(wm_scan_batch_set(sc, &b, nullptr, &n, nullptr), WM_INVALID);
    EXPECT_EQ(wm_scan_batch_set(sc, &b, &hits, nullptr, nullptr), WM_INVALID);
    EXPECT_EQ(wm_scan_batch_set(nullptr, &b, &hits, &n, nullptr), WM_INVALID);
    EXPECT_EQ(hits, nullptr);
    EXPECT_EQ(n, 0u);
    EXPECT_EQ(wm_scan_batch_set(sc, nullptr, &hits, &n, nullptr), WM_INVALID);
    wm_batch_t decreasing{reinterpret_cast<const uint8_t *>(data), bad_offsets, 1, nullptr};
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_scan_batch_set(sc, &decreasing, &hits, &n, &err), WM_INVALID);
    ASSERT_NE(err, nullptr);
    EXPECT_NE(std::string(err->message).find("wm_scan_batch_set: offsets decrease at payload 0"),
              std::string::npos)
        << err->message;
    wm_error_free(err);
    wm_batch_t empty{reinterpret_cast<const uint8_t *>(data), offsets, 0, nullptr};
    EXPECT_EQ(wm_scan_batch_set(sc, &empty, &hits, &n, nullptr), WM_INVALID);
}

// Pipelined set scans: the hits of each batch as wm_scan_batch_set gives them;
// misuse gets WM_INVALID with a message naming the call.
TEST_F(Fixture, ScanBatchSetPipelined) {
    const char d0[] = "abcxAB", d1[] = "zzzz", d2[] = "ab";
    uint32_t o0[] = {0, 3, 6}, o1[] = {0, 4}, o2[] = {0, 2};
    const wm_batch_t b[3] = {{reinterpret_cast<const uint8_t *>(d0), o0, 2, nullptr},
                             {reinterpret_cast<const uint8_t *>(d1), o1, 1, nullptr},
                             {reinterpret_cast<const uint8_t *>(d2), o2, 1, nullptr}};
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> want;
    for (const auto &x : b) {
        const wm_set_hit_t *hits = nullptr;
        size_t n = 0;
        ASSERT_EQ(wm_scan_batch_set(sc, &x, &hits, &n, nullptr), WM_SUCCESS);
        want.emplace_back();
        for (size_t i = 0; i < n; ++i) want.back().push_back({hits[i].payload_index, hits[i].rule_id});
    }
    ASSERT_EQ(want[0].size(), 3u); // abc (10) and AB (20) in payload 0, AB (20) in payload 1
    const wm_set_hit_t *hits = nullptr;
    size_t n = 0;
    for (size_t i = 0; i < 3; ++i) {
        ASSERT_EQ(wm_scan_batch_set_submit(sc, &b[i], nullptr), WM_SUCCESS);
        if (i == 0) continue;
        ASSERT_EQ(wm_scan_batch_set_collect(sc, &hits, &n, nullptr), WM_SUCCESS);
        std::vector<std::pair<uint32_t, uint32_t>> got;
        for (size_t k = 0; k < n; ++k) got.push_back({hits[k].payload_index, hits[k].rule_id});
        EXPECT_EQ(got, want[i - 1]) << "batch " << i - 1;
    }
    wm_error_t *err = nullptr;
    std::vector<size_t> pending{2}; // batch 2 is still submitted; fill the pipeline with 0, 1, 0, ...
    for (size_t k = 0; pending.size() < WM_SET_PIPELINE_DEPTH; ++k) {
        EXPECT_EQ(wm_scan_batch_set_submit(sc, &b[k % 2], nullptr), WM_SUCCESS);
        pending.push_back(k % 2);
    }
    EXPECT_EQ(wm_scan_batch_set_submit(sc, &b[1], &err), WM_INVALID);
    ASSERT_NE(err, nullptr);
    const std::string depth = std::to_string(WM_SET_PIPELINE_DEPTH);
    EXPECT_NE(std::string(err->message).find("wm_scan_batch_set_submit: " + depth + " batches already submitted"),
              std::string::npos)
        << err->message;
    wm_error_free(err);
    std::vector<Hit> cb_hits;
    EXPECT_EQ(wm_scan_batch(sc, &b[0], collect, &cb_hits, &err), WM_INVALID);
    ASSERT_NE(err, nullptr);
    EXPECT_NE(std::string(err->message).find("wm_scan_batch: " + depth + " batch(es) submitted"), std::string::npos)
        << err->message;
    wm_error_free(err);
    EXPECT_EQ(wm_scan_batch_set(sc, &b[0], &hits, &n, nullptr), WM_INVALID);
    uint8_t *buf = nullptr;
    EXPECT_EQ(wm_scanner_batch_buffer_at(sc, 1, 1 << 20, &buf, nullptr), WM_INVALID); // would grow
    for (size_t i : pending) { // collected in submission order
        ASSERT_EQ(wm_scan_batch_set_collect(sc, &hits, &n, nullptr), WM_SUCCESS);
        std::vector<std::pair<uint32_t, uint32_t>> got;
        for (size_t k = 0; k < n; ++k) got.push_back({hits[k].payload_index, hits[k].rule_id});
        EXPECT_EQ(got, want[i]) << "batch " << i;
    }
    EXPECT_EQ(wm_scan_batch_set_collect(sc, &hits, &n, &err), WM_INVALID);
    ASSERT_NE(err, nullptr);
    EXPECT_NE(std::string(err->message).find("no batch submitted"), std::string::npos) << err->message;
    wm_error_free(err);
    EXPECT_EQ(hits, nullptr);
    EXPECT_EQ(n, 0u);
    EXPECT_EQ(wm_scan_batch_set_submit(nullptr, &b[0], nullptr), WM_INVALID);
    EXPECT_EQ(wm_scan_batch_set_submit(sc, nullptr, nullptr), WM_INVALID);
    EXPECT_EQ(wm_scan_batch_set_collect(nullptr, &hits, &n, nullptr), WM_INVALID);
    EXPECT_EQ(wm_scan_batch_set_collect(sc, nullptr, &n, nullptr), WM_INVALID);
    EXPECT_EQ(wm_scan_batch_set_collect(sc, &hits, nullptr, nullptr), WM_INVALID);
}

TEST_F(Fixture, BatchBufferSlots) {
    uint8_t *b0 = nullptr, *b1 = nullptr;
    ASSERT_EQ(wm_scanner_batch_buffer_at(sc, 0, 64, &b0, nullptr), WM_SUCCESS);
    ASSERT_EQ(wm_scanner_batch_buffer_at(sc, 1, 64, &b1, nullptr), WM_SUCCESS);
    EXPECT_NE(b0, b1);
    std::memset(b0, 'a', 64);
    std::memset(b1, 'b', 64); // distinct memory: b0 keeps its bytes
    EXPECT_EQ(b0[63], 'a');
    uint8_t *again = nullptr;
    ASSERT_EQ(wm_scanner_batch_buffer(sc, 64, &again, nullptr), WM_SUCCESS);
    EXPECT_EQ(again, b0); // wm_scanner_batch_buffer is slot 0
    EXPECT_EQ(wm_scanner_batch_buffer_at(sc, WM_BATCH_BUFFER_SLOTS, 64, &b0, nullptr), WM_INVALID);
    EXPECT_EQ(wm_scanner_batch_buffer_at(nullptr, 0, 64, &b0, nullptr), WM_INVALID);
}

TEST_F(Fixture, BatchBufferBuildsBatchesInPlace) {
    uint8_t *buf = nullptr;
    EXPECT_EQ(wm_scanner_batch_buffer(nullptr, 16, &buf, nullptr), WM_INVALID);
    EXPECT_EQ(wm_scanner_batch_buffer(sc, 0, &buf, nullptr), WM_INVALID);
    EXPECT_EQ(wm_scanner_batch_buffer(sc, 16, nullptr, nullptr), WM_INVALID);
    ASSERT_EQ(wm_scanner_batch_buffer(sc, 16, &buf, nullptr), WM_SUCCESS);
    ASSERT_NE(buf, nullptr);
    std::memcpy(buf, "zzabc", 5);
    uint32_t offsets[] = {0, 5};
    wm_batch_t b{buf, offsets, 1, nullptr};
    std::vector<Hit> hits;
    ASSERT_EQ(wm_scan_batch(sc, &b, collect, &hits, nullptr), WM_SUCCESS);
    ASSERT_EQ(hits.size(), 2u); // "ab" (20) at [2,4) and "abc" (10) at [2,5)
    EXPECT_EQ(hits[0].rule, 20u);
    EXPECT_EQ(hits[1].rule, 10u);
}

TEST_F(Fixture, ConcurrentUseOfOneScannerIsDetected) {
    // A callback that, while the scan holds the scanner, tries to use it again.
    struct Ctx {
        wm_scanner_t *sc;
        int nested = 0;
    } ctx{sc};
    const char data[] = "abc";
    uint32_t offsets[] = {0, 3};
    static wm_batch_t batch{reinterpret_cast<const uint8_t *>(data), offsets, 1, nullptr};
    auto nested = [](uint32_t, uint32_t, uint32_t, uint32_t, void *p) -> int {
        auto *c = static_cast<Ctx *>(p);
        c->nested = wm_scan_batch(c->sc, &batch, collect, nullptr, nullptr);
        return 0;
    };
    ASSERT_EQ(wm_scan_batch(sc, &batch, nested, &ctx, nullptr), WM_SUCCESS);
    EXPECT_EQ(ctx.nested, WM_SCRATCH_IN_USE);
}

TEST(Abi, CaptureArgumentChecks) {
    wm_capture_t *cap = nullptr;
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_capture_open_offline(nullptr, &cap, nullptr), WM_INVALID);
    EXPECT_EQ(wm_capture_open_offline("x.pcap", nullptr, nullptr), WM_INVALID);
    EXPECT_EQ(wm_capture_open_offline("/nonexistent/x.pcap", &cap, &err), WM_IO_ERROR);
    ASSERT_NE(err, nullptr);
    EXPECT_NE(std::string(err->message).find("/nonexistent/x.pcap"), std::string::npos);
    wm_error_free(err);
    wm_packet_t pkt;
    wm_packet_init(&pkt);
    EXPECT_EQ(wm_capture_next(nullptr, &pkt, nullptr), WM_INVALID);
    wm_capture_stats_t st;
    wm_capture_stats_init(&st);
    EXPECT_EQ(wm_capture_stats(nullptr, &st), WM_INVALID);
    EXPECT_STREQ(wm_skip_reason_name(WM_SKIP_FRAGMENT), "fragment");
    EXPECT_STREQ(wm_skip_reason_name(-1), "unknown");
}

// wm_packet_t grew vlan[] and vlan_count in 0.13: wm_capture_next fills a
// packet of the older size up to where it ends, and nothing past it.
TEST(Abi, CaptureNextFillsAPacketOfTheOlderSize) {
    // One Ethernet frame with an 802.1Q tag (VLAN 42) carrying IPv4/UDP "abc".
    const uint8_t frame[] = {2, 0, 0, 0, 0, 0xb, 2, 0, 0, 0, 0, 0xa, 0x81, 0x00, 0x00, 42, 0x08, 0x00,
                             0x45, 0, 0, 31, 0, 1, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
                             0x30, 0x39, 0, 53, 0, 11, 0, 0, 'a', 'b', 'c'};
    const uint32_t file_header[6] = {0xa1b2c3d4u, 2u | (4u << 16), 0, 0, 65535, 1};
    const uint32_t record[4] = {1700000000u, 0, sizeof frame, sizeof frame};
    const std::string path = ::testing::TempDir() + "abi_vlan.pcap";
    FILE *f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(file_header, sizeof file_header, 1, f);
    std::fwrite(record, sizeof record, 1, f);
    std::fwrite(frame, sizeof frame, 1, f);
    std::fclose(f);
    for (const size_t size : {sizeof(wm_packet_t), offsetof(wm_packet_t, vlan), offsetof(wm_packet_t, vlan) + 1}) {
        SCOPED_TRACE(size);
        wm_capture_t *cap = nullptr;
        ASSERT_EQ(wm_capture_open_offline(path.c_str(), &cap, nullptr), WM_SUCCESS);
        wm_packet_t pkt;
        std::memset(&pkt, 0xab, sizeof pkt);
        pkt.struct_size = size;
        const int rc = wm_capture_next(cap, &pkt, nullptr);
        if (size == offsetof(wm_packet_t, vlan) + 1) {
            EXPECT_EQ(rc, WM_INVALID); // neither layout
        } else {
            ASSERT_EQ(rc, WM_SUCCESS);
            EXPECT_EQ(pkt.struct_size, size);
            EXPECT_EQ(std::string(reinterpret_cast<const char *>(pkt.payload), pkt.payload_len), "abc");
            EXPECT_EQ(pkt.dst_port, 53);
            if (size == sizeof(wm_packet_t)) {
                EXPECT_EQ(pkt.vlan_count, 1);
                EXPECT_EQ(pkt.vlan[0], 42);
            } else {
                EXPECT_EQ(pkt.vlan[0], 0xabab); // the caller's bytes past its struct, untouched
                EXPECT_EQ(pkt.vlan_count, 0xab);
            }
        }
        wm_capture_close(cap);
    }
    std::remove(path.c_str());
}

// wm_replay_options_t grew read_threads and window_bytes in 0.3,
// on_window_alerts in 0.7, bpf in 0.11 and tunnel_ports in 0.14: options of
// a 0.2, 0.6, 0.10 or 0.13 caller (the shorter structs) are still taken,
// other sizes are not.
TEST_F(Fixture, ReplayOptionsOfTheOlderSizeAreAccepted) {
    wm_replay_stats_t st;
    wm_replay_stats_init(&st);
    wm_replay_options_t ro;
    wm_replay_options_init(&ro);
    for (size_t size : {sizeof(ro), offsetof(wm_replay_options_t, read_threads),
                        offsetof(wm_replay_options_t, on_window_alerts), offsetof(wm_replay_options_t, bpf),
                        offsetof(wm_replay_options_t, tunnel_ports), offsetof(wm_replay_options_t, payload_layout)}) {
        ro.struct_size = size;
        wm_error_t *err = nullptr;
        // Past the argument checks: the missing file is the error.
        EXPECT_EQ(wm_replay_file_ex(sc, "/nonexistent.pcap", &ro, nullptr, nullptr, nullptr,
                                    nullptr, &st, nullptr, &err),
                  WM_IO_ERROR)
            << size;
        wm_error_free(err);
    }
    ro.struct_size = sizeof(ro) - 1;
    EXPECT_EQ(wm_replay_file_ex(sc, "/nonexistent.pcap", &ro, nullptr, nullptr, nullptr, nullptr,
                                &st, nullptr, nullptr),
              WM_INVALID);
}

int ignore_window(const wm_packet_t *, size_t, const wm_set_hit_t *, size_t, void *) { return 0; }

// Window alerts are the set array: a positions scanner and streams are
// refused before the file is opened, with a message naming the option.
TEST_F(Fixture, ReplayWindowAlertsNeedASetScannerWithoutStreams) {
    wm_replay_stats_t st;
    wm_replay_stats_init(&st);
    wm_replay_options_t ro;
    wm_replay_options_init(&ro);
    ro.on_window_alerts = ignore_window;
    wm_error_t *err = nullptr;
    ASSERT_EQ(wm_replay_file_ex(sc, "/nonexistent.pcap", &ro, nullptr, nullptr, nullptr, nullptr, &st, nullptr,
                                &err),
              WM_INVALID); // the fixture's scanner reports positions
    ASSERT_NE(err, nullptr);
    EXPECT_NE(std::string(err->message).find("on_window_alerts"), std::string::npos) << err->message;
    wm_error_free(err);

    wm_scanner_options_t o;
    wm_scanner_options_init(&o);
    o.backend = WM_BACKEND_CPU;
    o.output_mode = WM_OUTPUT_SET;
    wm_scanner_t *set = nullptr;
    ASSERT_EQ(wm_scanner_create(rs, &o, &set, nullptr), WM_SUCCESS);
    err = nullptr;
    EXPECT_EQ(wm_replay_file_ex(set, "/nonexistent.pcap", &ro, nullptr, nullptr, nullptr, nullptr, &st, nullptr,
                                &err),
              WM_IO_ERROR); // past the checks: the missing file is the error
    wm_error_free(err);
    ro.streams = 1;
    err = nullptr;
    EXPECT_EQ(wm_replay_file_ex(set, "/nonexistent.pcap", &ro, nullptr, nullptr, nullptr, nullptr, &st, nullptr,
                                &err),
              WM_INVALID);
    ASSERT_NE(err, nullptr);
    wm_error_free(err);
    wm_scanner_free(set);
}

TEST_F(Fixture, ReplayArgumentChecks) {
    wm_replay_stats_t st;
    wm_replay_stats_init(&st);
    EXPECT_EQ(wm_replay_file(nullptr, "x.pcap", nullptr, nullptr, nullptr, nullptr, &st, nullptr),
              WM_INVALID);
    EXPECT_EQ(wm_replay_file(sc, nullptr, nullptr, nullptr, nullptr, nullptr, &st, nullptr),
              WM_INVALID);
    EXPECT_EQ(wm_replay_file(sc, "x.pcap", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
              WM_INVALID);
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_replay_file(sc, "/nonexistent.pcap", nullptr, nullptr, nullptr, nullptr, &st,
                             &err),
              WM_IO_ERROR);
    wm_error_free(err);
    char *json = nullptr;
    EXPECT_EQ(wm_alert_to_json(rs, nullptr, &json), WM_INVALID);
    // The payload fields: flags 0 is the plain line; an unknown bit, or
    // payload fields of a packet whose payload is missing, is refused.
    wm_packet_t pkt;
    wm_packet_init(&pkt);
    const uint8_t bytes[] = {'a', 'b', 'c'};
    pkt.payload = bytes;
    pkt.payload_len = 3;
    wm_alert_t alert{};
    alert.struct_size = sizeof(alert);
    alert.packet = &pkt;
    alert.rule_id = 1;
    char *plain = nullptr, *zero = nullptr, *with = nullptr;
    ASSERT_EQ(wm_alert_to_json(rs, &alert, &plain), WM_SUCCESS);
    ASSERT_EQ(wm_alert_to_json_ex(rs, &alert, 0, &zero), WM_SUCCESS);
    EXPECT_STREQ(plain, zero);
    ASSERT_EQ(wm_alert_to_json_ex(rs, &alert, WM_EVE_PAYLOAD | WM_EVE_PAYLOAD_PRINTABLE, &with), WM_SUCCESS);
    EXPECT_NE(std::string(with).find("\"payload\":\"YWJj\",\"payload_printable\":\"abc\""), std::string::npos) << with;
    wm_free(plain);
    wm_free(zero);
    wm_free(with);
    EXPECT_EQ(wm_alert_to_json_ex(rs, &alert, 4, &json), WM_INVALID);
    pkt.payload = nullptr;
    EXPECT_EQ(wm_alert_to_json_ex(rs, &alert, WM_EVE_PAYLOAD, &json), WM_INVALID);
    EXPECT_EQ(wm_replay_stats_to_json(nullptr, &json), WM_INVALID);
    ASSERT_EQ(wm_replay_stats_to_json(&st, &json), WM_SUCCESS);
    EXPECT_NE(std::string(json).find("\"stats\""), std::string::npos);
    wm_free(json);
}

TEST(Abi, ImportArgumentChecks) {
    wm_import_report_t r;
    wm_import_report_init(&r);
    const char *files[] = {"/nonexistent.rules"};
    EXPECT_EQ(wm_rules_import(nullptr, 1, "/tmp/x.yaml", &r, nullptr), WM_INVALID);
    EXPECT_EQ(wm_rules_import(files, 0, "/tmp/x.yaml", &r, nullptr), WM_INVALID);
    EXPECT_EQ(wm_rules_import(files, 1, nullptr, &r, nullptr), WM_INVALID);
    EXPECT_EQ(wm_rules_import(files, 1, "/tmp/x.yaml", nullptr, nullptr), WM_INVALID);
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_rules_import(files, 1, "/tmp/x.yaml", &r, &err), WM_IO_ERROR);
    ASSERT_NE(err, nullptr);
    EXPECT_NE(std::string(err->message).find("/nonexistent.rules"), std::string::npos);
    wm_error_free(err);
}

} // namespace
