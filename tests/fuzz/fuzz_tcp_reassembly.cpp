// tests/fuzz/fuzz_tcp_reassembly.cpp - one TCP direction fed segments of a
// known byte stream in any order: duplicates, overlaps, snap-length cuts,
// conflicting retransmissions, FINs, sequence numbers across 2^32.
// Properties:
// - deliveries (data and gaps) follow each other from offset 0, in order;
// - every delivered byte is the stream's own (or, for an offset a
//   conflicting copy reached, a copy that had arrived by then);
// - with a SYN, room for every out-of-order byte, nothing cut, no conflict
//   and every byte of the stream sent, flushing delivers exactly the stream
//   up to its FIN (or all of it), with no gap before that end (segments
//   may also reach past it, with holes there).
// Input: 4 bytes of ISN, a flags byte, 2 bytes of stream length (at most
// 2,047), then 5 bytes per segment: offset (2), length, flags, cut.
#include "stream/tcp_reassembly.h"
#include "tests/fuzz/fuzz_input.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using wm::fuzz::fail;
using wm::fuzz::require;

uint8_t stream_byte(uint64_t off) { return static_cast<uint8_t>((off * 131 + (off >> 7) * 17 + 5) & 0xff); }
uint8_t conflicting_byte(uint64_t off) { return static_cast<uint8_t>(~stream_byte(off)); }

// Checks each delivery as it comes.
struct Checker final : wm::stream::StreamReceiver {
    uint64_t shift = 0;                 // stream offset of delivered offset 0 (no SYN: the first byte seen)
    uint64_t next = 0;                  // where the next delivery must start
    std::vector<uint8_t> seen_variant;  // per stream offset: bit 0 the stream's byte arrived, bit 1 a conflicting one
    std::string delivered;              // data bytes, in order
    uint64_t first_gap = UINT64_MAX;    // delivered offset of the first gap
    void data(uint64_t off, const uint8_t *b, size_t n) override {
        require(off == next, "data at " + std::to_string(off) + ", expected at " + std::to_string(next));
        for (size_t i = 0; i < n; ++i) {
            const uint64_t s = off + i + shift;
            const uint8_t v = s < seen_variant.size() ? seen_variant[s] : 0;
            const bool ok = (b[i] == stream_byte(s) && (v & 1)) || (b[i] == conflicting_byte(s) && (v & 2));
            if (!ok) fail("byte at stream offset " + std::to_string(s) + " is no copy that arrived");
        }
        delivered.append(reinterpret_cast<const char *>(b), n);
        next += n;
    }
    // Late bytes: each a copy that arrived, at an offset the stream passed.
    // (A byte may come late twice: a span over two holes covers what lies
    // between, and capped holes merge.)
    void late(int64_t seg, const uint8_t *bytes, size_t, size_t lo, size_t hi) override {
        require(lo < hi, "an empty late span");
        const int64_t off = seg + int64_t(lo);
        const uint8_t *b = bytes + lo;
        const size_t n = hi - lo;
        require(off + int64_t(n) <= int64_t(next), "late bytes at or past the next delivery");
        for (size_t i = 0; i < n; ++i) {
            const int64_t s = off + int64_t(i) + int64_t(shift);
            require(s >= 0 && uint64_t(s) < seen_variant.size(), "late bytes outside the stream");
            const uint8_t v = seen_variant[size_t(s)];
            const bool ok = (b[i] == stream_byte(uint64_t(s)) && (v & 1)) ||
                            (b[i] == conflicting_byte(uint64_t(s)) && (v & 2));
            if (!ok) fail("late byte at stream offset " + std::to_string(s) + " is no copy that arrived");
        }
    }
    void gap(uint64_t from, uint64_t to) override {
        require(from == next && to > from, "a gap [" + std::to_string(from) + ", " + std::to_string(to) +
                                               ") where the next delivery is " + std::to_string(next));
        first_gap = std::min(first_gap, from);
        next = to;
    }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 7) return 0;
    const uint32_t isn = uint32_t{data[0]} << 24 | uint32_t{data[1]} << 16 | uint32_t{data[2]} << 8 | data[3];
    const uint8_t setup = data[4];
    const uint64_t length = (uint64_t{data[5]} << 8 | data[6]) & 2047;
    const bool with_syn = setup & 1;
    const uint64_t max_ooo = (setup & 6) == 0 ? 64 : (setup & 6) == 2 ? 700 : uint64_t{1} << 20;

    wm_stream_stats_t stats{};
    stats.struct_size = sizeof(stats);
    wm::stream::TcpDirection dir(max_ooo, stats);
    Checker out;
    out.seen_variant.assign(length + 2048 + 256, 0);
    if (with_syn) dir.syn(isn);

    std::vector<bool> covered(length, false);
    bool cut = false, conflict = false, first = true;
    uint64_t fin_end = UINT64_MAX; // stream offset the first FIN ends at
    for (size_t at = 7; at + 5 <= size; at += 5) {
        const uint64_t off = (uint64_t{data[at]} << 8 | data[at + 1]) % (length + 64);
        const size_t len = data[at + 2];
        const uint8_t flags = data[at + 3];
        const size_t captured = flags & 1 ? len - std::min<size_t>(len, data[at + 4] % 32) : len;
        const bool fin = flags & 2, conflicting = flags & 4;
        std::vector<uint8_t> bytes(len);
        for (size_t i = 0; i < len; ++i) bytes[i] = conflicting ? conflicting_byte(off + i) : stream_byte(off + i);
        if (first && !with_syn && (len > 0 || fin)) { // the first byte seen is offset 0 (a bare ACK starts nothing)
            out.shift = off;
            first = false;
        }
        // What arrives before it is delivered: the checker accepts these copies.
        for (size_t i = 0; i < captured; ++i) out.seen_variant[off + i] |= conflicting ? 2 : 1;
        cut = cut || captured < len;
        conflict = conflict || conflicting;
        for (size_t i = 0; i < captured && off + i < length; ++i) covered[off + i] = true;
        if (fin && fin_end == UINT64_MAX) fin_end = off + len;
        dir.segment(isn + 1 + static_cast<uint32_t>(off), bytes.data(), captured, len, fin, out);
    }
    dir.flush(out);

    // The stream exactly, when nothing could have made it otherwise.
    bool all_sent = true;
    for (bool c : covered) all_sent = all_sent && c;
    const uint64_t end = fin_end < length ? fin_end : length;
    if (with_syn && max_ooo > 4096 && !cut && !conflict && all_sent && fin_end >= length) {
        require(out.first_gap >= end, "a gap at " + std::to_string(out.first_gap) + " in a stream whose every byte arrived");
        require(out.delivered.size() >= end, "the stream delivered short: " + std::to_string(out.delivered.size()) +
                                                  " of " + std::to_string(end) + " bytes");
        for (uint64_t i = 0; i < end; ++i)
            if (static_cast<uint8_t>(out.delivered[i]) != stream_byte(i)) fail("stream byte " + std::to_string(i));
    }
    return 0;
}
