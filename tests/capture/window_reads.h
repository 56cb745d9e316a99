// tests/capture/window_reads.h - what a reader delivers, gathered: the
// plain sequential read (plain_read.h) and the window reader's, and their
// comparison field by field.
#pragma once

#include "plain_read.h"

#include "plugin/src/capture/window_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace wm::capture::test {

// Payloads packed back to back, or left where the file has them
// (WindowReader::set_payloads_in_place).
enum class Layout { Packed, InPlace };

// after_window(i): called after window i was read (the file may change).
inline Seen read_windows(const std::string &path, uint64_t window, unsigned threads,
                         const std::string &filter = {}, const TunnelPorts *ports = nullptr,
                         Layout layout = Layout::Packed, const std::function<void(size_t)> &after_window = {}) {
    Seen s;
    WindowReader r(path, window, threads, filter);
    r.set_tunnel_ports(ports);
    r.set_payloads_in_place(layout == Layout::InPlace);
    PayloadWindow w;
    std::vector<uint8_t> buf;
    size_t asked = 0;
    while (r.next(w, [&](size_t n) {
        buf.assign(n, 0xEE); // fresh contents: stale bytes would show
        asked = n;
        return buf.data();
    })) {
        ++s.windows;
        s.most_parts = std::max(s.most_parts, r.parts_used());
        EXPECT_TRUE(s.error.empty()) << "a window after the error";
        EXPECT_EQ(w.offsets.size(), w.count() + 1);
        EXPECT_EQ(w.meta.size(), w.count());
        // In place only when asked (from a file read in place); the buffer
        // then holds the window's bytes and a record past its end at most.
        if (layout == Layout::Packed) EXPECT_FALSE(w.in_place());
        if (w.in_place()) {
            ++s.in_place;
            EXPECT_LE(asked, window + WindowReader::kInPlaceSlack);
            EXPECT_EQ(w.sources.size(), w.count());
        }
        for (size_t i = 0; i < w.count(); ++i) {
            const wm_packet_t &p = w.packets[i];
            if (w.in_place()) {
                EXPECT_EQ(p.payload, w.data + w.sources[i]);
                EXPECT_LE(w.sources[i] + p.payload_len, asked);
                if (i > 0) EXPECT_GE(w.sources[i], w.sources[i - 1] + w.packets[i - 1].payload_len) << "ascending";
            } else {
                EXPECT_EQ(p.payload, w.data + w.offsets[i]);
            }
            EXPECT_EQ(p.payload_len, w.offsets[i + 1] - w.offsets[i]);
            EXPECT_EQ(w.meta[i].proto, p.proto);
            EXPECT_EQ(w.meta[i].src_port, p.src_port);
            EXPECT_EQ(w.meta[i].dst_port, p.dst_port);
            s.packets.push_back(p);
            s.payloads.emplace_back(p.payload, p.payload + p.payload_len);
            s.tunnels.push_back(carrier_of(p));
        }
        s.stats.packets += w.stats.packets;
        s.stats.bytes += w.stats.bytes;
        s.stats.payloads += w.stats.payloads;
        s.stats.payload_bytes += w.stats.payload_bytes;
        s.stats.snaplen_truncated += w.stats.snaplen_truncated;
        for (int k = 0; k < WM_SKIP_REASON_COUNT; ++k) s.stats.skipped[k] += w.stats.skipped[k];
        if (!w.error.empty()) s.error = w.error;
        if (after_window) after_window(s.windows - 1);
    }
    return s;
}

inline void expect_same(const Seen &want, const Seen &got) {
    ASSERT_EQ(got.packets.size(), want.packets.size());
    ASSERT_EQ(want.tunnels.size(), want.packets.size());
    ASSERT_EQ(got.tunnels.size(), got.packets.size());
    for (size_t i = 0; i < want.packets.size(); ++i) {
        const wm_packet_t &a = want.packets[i], &g = got.packets[i];
        ASSERT_EQ(g.number, a.number) << "payload " << i;
        EXPECT_EQ(g.ts_sec, a.ts_sec);
        EXPECT_EQ(g.ts_usec, a.ts_usec);
        EXPECT_EQ(g.caplen, a.caplen);
        EXPECT_EQ(g.wirelen, a.wirelen);
        EXPECT_EQ(g.proto, a.proto);
        EXPECT_EQ(g.src_port, a.src_port);
        EXPECT_EQ(g.dst_port, a.dst_port);
        EXPECT_EQ(g.flow_id, a.flow_id);
        EXPECT_EQ(g.payload_offset, a.payload_offset);
        ASSERT_EQ(got.payloads[i], want.payloads[i]) << "packet " << a.number;
        ASSERT_EQ(got.tunnels[i].has_value(), want.tunnels[i].has_value()) << "packet " << a.number;
        if (want.tunnels[i]) EXPECT_TRUE(same_carrier(*got.tunnels[i], *want.tunnels[i])) << "packet " << a.number;
    }
    EXPECT_EQ(got.stats.packets, want.stats.packets);
    EXPECT_EQ(got.stats.bytes, want.stats.bytes);
    EXPECT_EQ(got.stats.payloads, want.stats.payloads);
    EXPECT_EQ(got.stats.payload_bytes, want.stats.payload_bytes);
    EXPECT_EQ(got.stats.snaplen_truncated, want.stats.snaplen_truncated);
    for (int k = 0; k < WM_SKIP_REASON_COUNT; ++k)
        EXPECT_EQ(got.stats.skipped[k], want.stats.skipped[k]) << "skip reason " << k;
    EXPECT_EQ(got.error, want.error);
}

struct Config {
    uint64_t window;
    unsigned threads;
};
// Tiny windows force many windows and slices; one thread is the sequential path.
inline const Config kConfigs[] = {{1, 1}, {700, 3}, {4096, 4}, {64 << 10, 8}, {16 << 20, 5}};

} // namespace wm::capture::test
