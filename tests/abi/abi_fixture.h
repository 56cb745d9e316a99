// tests/abi/abi_fixture.h - what the ABI suite's files share: a two-rule
// set, a fixture with a CPU scanner over it, and callbacks and batches that
// collect and feed matches (public header only).
#pragma once

#include "warpmatch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace abi_test {

inline const char kRules[] = "version: 1\n"
                             "rules:\n"
                             "  - id: 10\n"
                             "    msg: \"ten\"\n"
                             "    pattern: \"abc\"\n"
                             "  - id: 20\n"
                             "    msg: \"twenty\"\n"
                             "    pattern: \"|41 42|\"\n"
                             "    nocase: true\n";

struct Fixture : ::testing::Test {
    wm_ruleset_t *rs = nullptr;
    wm_scanner_t *sc = nullptr;
    void SetUp() override {
        ASSERT_EQ(wm_ruleset_load_string(kRules, sizeof(kRules) - 1, "inline", &rs, nullptr),
                  WM_SUCCESS);
        wm_scanner_options_t o;
        wm_scanner_options_init(&o);
        o.backend = WM_BACKEND_CPU;
        ASSERT_EQ(wm_scanner_create(rs, &o, &sc, nullptr), WM_SUCCESS);
    }
    void TearDown() override {
        wm_scanner_free(sc);
        wm_ruleset_free(rs);
    }
};

struct Hit {
    uint32_t rule, payload, start, end;
};

// At least `bytes` of payloads over "abcAB xy" (matches of both rules, in
// either case), each 0 to 2^(32 - len_shift) - 1 bytes long, from an LCG
// seeded with `seed`.
struct RandomBatch {
    std::string data;
    std::vector<uint32_t> offsets{0};
    RandomBatch(size_t bytes, uint32_t seed, unsigned len_shift) {
        uint32_t x = seed;
        while (data.size() < bytes) {
            const size_t n = (x = x * 1103515245u + 12345u) >> len_shift;
            for (size_t i = 0; i < n; ++i) data += "abcAB xy"[(x = x * 1103515245u + 12345u) >> 29];
            offsets.push_back(static_cast<uint32_t>(data.size()));
        }
    }
    wm_batch_t batch() const {
        return wm_batch_t{reinterpret_cast<const uint8_t *>(data.data()), offsets.data(), offsets.size() - 1, nullptr};
    }
};

// A classic pcap file (Ethernet, microsecond stamps) of these frames, frame
// i stamped 1700000000 + i seconds; its path under the test's temp dir.
inline std::string write_pcap(const std::string &name, const std::vector<std::vector<uint8_t>> &frames) {
    const std::string path = ::testing::TempDir() + name;
    FILE *f = std::fopen(path.c_str(), "wb");
    const uint32_t file_header[6] = {0xa1b2c3d4u, 2u | (4u << 16), 0, 0, 65535, 1};
    std::fwrite(file_header, sizeof file_header, 1, f);
    for (size_t i = 0; i < frames.size(); ++i) {
        const uint32_t len = static_cast<uint32_t>(frames[i].size());
        const uint32_t record[4] = {1700000000u + static_cast<uint32_t>(i), 0, len, len};
        std::fwrite(record, sizeof record, 1, f);
        std::fwrite(frames[i].data(), len, 1, f);
    }
    std::fclose(f);
    return path;
}

inline int collect(uint32_t rule, uint32_t payload, uint32_t start, uint32_t end, void *ctx) {
    static_cast<std::vector<Hit> *>(ctx)->push_back({rule, payload, start, end});
    return 0;
}

} // namespace abi_test
