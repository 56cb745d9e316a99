// plugin/src/stream/carry_matcher.h - matches across segment boundaries with
// any block-mode engine.
//
// Each piece of a reassembled stream is scanned as a window: the bytes
// carried from the same direction's earlier data, then the new bytes. The
// carry is the last (longest pattern - 1 + largest rule offset) bytes (the
// offsets of rules whose depth is already behind no longer count), so a
// match ending in the new bytes always starts inside the window, and a
// window's buffer positions never make the engine's own offset check
// reject a match that holds relative to the stream (docs/streams.md proves
// both). Matches lying wholly in the carried bytes were reported with an
// earlier window and are dropped; offset/depth are then re-applied
// relative to the start of the stream. After a gap nothing is carried; up
// to (largest offset) zero bytes of padding stand in front instead, and
// matches starting in the padding are dropped.
//
// The result equals Hyperscan stream mode over the same stream with one
// stream per gap-free run (hs_stream_oracle.h); tests check that.
#pragma once

#include "engine.h"
#include "rules/rule.h"
#include "stream/flow_table.h"
#include "warpmatch.h"

#include <cstdint>
#include <vector>

namespace wm::stream {

// What cross-segment matching needs to know about the rules.
struct RuleGeometry {
    std::vector<uint32_t> len, offset, depth;
    uint32_t max_len = 0, max_offset = 0;
    // Rules with a depth cannot match past offset + depth: beyond the
    // largest such end only offsets of depth-less rules need carrying.
    uint64_t bounded_end = 0;
    uint32_t max_unbounded_offset = 0;
    explicit RuleGeometry(const std::vector<rules::Rule> &rules);
    // Largest offset that still matters for new bytes starting at stream
    // offset off.
    uint32_t offset_at(uint64_t off) const {
        return off >= bounded_end ? max_unbounded_offset : max_offset;
    }
    // Bytes to carry in front of new bytes starting at stream offset off.
    uint32_t carry_bytes(uint64_t off) const { return max_len ? max_len - 1 + offset_at(off) : 0; }
};

// Payloads of one batch (windows or datagrams), back to back, with what is
// needed to turn engine matches back into stream matches and alerts.
struct WindowBatch {
    struct Info {
        bool stream = false;     // a TCP stream window (else a datagram)
        uint32_t prefix = 0;     // padding + carried bytes at the front
        uint32_t pad = 0;        // padding (zeros) at the very front
        uint64_t base = 0;       // stream offset of window byte 0
        uint64_t flow = 0;       // flow serial and direction
        int dir = 0;
        int32_t tunnel = -1;     // its packet's carrier in `tunnels`, or none
        // A datagram of late bytes (StreamReceiver::late): only matches
        // touching [late_lo, late_hi) count; the rest the stream had.
        uint32_t late_lo = 0, late_hi = 0;
    };
    std::vector<uint8_t> data;
    std::vector<uint32_t> offsets{0};
    std::vector<wm_payload_meta_t> meta;
    std::vector<wm_packet_t> packets;
    std::vector<Info> info;
    std::vector<wm_tunnel_t> tunnels; // the carriers of tunnelled packets, copied when added

    size_t count() const { return info.size(); }
    size_t bytes() const { return data.size(); }
    void clear();
    BatchView view() const { return BatchView{data.data(), offsets.data(), count(), meta.data()}; }
    // Points each packet's payload at its window and its tunnel at its
    // carrier (data and tunnels may have moved).
    void bind_payloads();
    // Copies the carrier p points at, if any, for entry `in` (bind_payloads points at the copy).
    void keep_carrier(const wm_packet_t &p, Info &in);
};

class CarryMatcher {
  public:
    explicit CarryMatcher(const RuleGeometry &g) : g_(g) {}

    // New in-order bytes [off, off+len) of one direction; side holds its
    // carry, which is updated.
    void add_stream(Flow::Side &side, uint64_t flow, int dir, uint64_t off, const uint8_t *bytes,
                    size_t len, const wm_packet_t &trigger, WindowBatch &b,
                    wm_stream_stats_t &st) const;
    // The stream resumes at resume_off after a hole: nothing is carried.
    void gap(Flow::Side &side, uint64_t resume_off) const;
    // A payload scanned on its own (UDP, or streams off).
    static void add_datagram(const wm_packet_t &p, WindowBatch &b);

    // Engine matches over b.view() (positions) -> stream matches: drops
    // those in carried bytes or padding, applies offset/depth relative to
    // the stream. Order is kept.
    void filter(const WindowBatch &b, std::vector<Match> &m, wm_stream_stats_t &st) const;

  private:
    const RuleGeometry &g_;
};

} // namespace wm::stream
