// plugin/src/stream/tcp_reassembly.h - one direction of a TCP connection
// turned back into the byte stream the sender wrote.
//
// Positions are 64-bit stream offsets (byte 0 = first byte after the SYN,
// or the first byte seen when the capture starts mid-connection). Sequence
// numbers are mapped onto them by the signed 32-bit distance to the next
// expected byte, so wraparound past 2^32 needs no special case.
//
// Policies (docs/streams.md):
//   overlap        first wins: bytes already delivered or buffered are never
//                  replaced by a retransmission with different content
//                  (counted in overlap_conflicts when they differ and are
//                  still buffered);
//   out of order   buffered until max_ooo_bytes per direction; beyond that
//                  the earliest hole is skipped: a gap;
//   late bytes     bytes that land in a hole given up on, or before the
//                  stream's first byte (a capture that picked the
//                  connection up after it began, or data before a SYN's ISN),
//                  were never scanned: their segment goes out on its own
//                  (late()) and is scanned as packet mode would, keeping the
//                  matches that touch those bytes; each byte once. At most
//                  kMaxUnscanned ranges are remembered: past that the two
//                  closest merge (bytes between them may then be scanned
//                  twice, never not at all);
//   FIN            the stream ends at the FIN's sequence number once every
//                  byte before it arrived, and later data is ignored; a FIN
//                  behind the bytes delivered is old and ignored, and one
//                  that data covers before it is reached is void (a
//                  receiver takes the data), so a forged FIN cannot hide
//                  the bytes after it;
//   RST            accepted (closes the flow: FlowTable) only when its
//                  sequence number is exactly the next expected one (after
//                  a FIN reached, also the FIN's own number + 1), as Linux
//                  has it (RFC 5961: any other RST in the window draws a
//                  challenge ACK and the connection goes on); for a
//                  direction not seen yet, next expected is what the peer
//                  last acknowledged (any RST when it acknowledged nothing).
#pragma once

#include "warpmatch.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace wm::stream {

// Receives the reassembled stream: data in order, and gaps (holes given up
// on; nothing spans a gap); and late bytes, out of the stream's order: a
// segment's captured bytes [0, len) at stream offset `offset` (negative:
// before the stream's first byte), of which [lo, hi) holds bytes at offsets
// the stream had passed without them (in a gap, or before its first byte),
// each such byte handed over in one call only.
class StreamReceiver {
  public:
    virtual ~StreamReceiver() = default;
    virtual void data(uint64_t offset, const uint8_t *bytes, size_t len) = 0;
    virtual void gap(uint64_t from, uint64_t to) = 0;
    virtual void late(int64_t offset, const uint8_t *bytes, size_t len, size_t lo, size_t hi) = 0;
};

class TcpDirection {
  public:
    TcpDirection(uint64_t max_ooo_bytes, wm_stream_stats_t &stats)
        : max_ooo_(max_ooo_bytes), st_(&stats) {}

    // A SYN (or SYN/ACK) with sequence number seq: the stream starts at
    // seq + 1. Ignored once data was delivered (a retransmitted SYN).
    void syn(uint32_t seq);
    // A segment with seg_len bytes of sequence space of which the first
    // captured_len are in bytes (fewer when the snap length cut it; the rest
    // becomes a gap). fin: the segment carries FIN.
    void segment(uint32_t seq, const uint8_t *bytes, size_t captured_len, size_t seg_len,
                 bool fin, StreamReceiver &out);
    // Delivers everything buffered, skipping holes (end of flow).
    void flush(StreamReceiver &out);

    bool started() const { return started_; }
    // The sequence number the stream goes on at (started only).
    uint32_t next_sequence() const { return next_seq(); }
    // After a RST (FlowTable): until a segment takes the stream on (one
    // reaching its next byte, from behind it too), bytes behind it are
    // scanned on their own as well (a new connection whose SYN the sensor
    // missed may reuse those offsets), not taken for retransmissions of
    // bytes already scanned; each offset once, so a retransmission repeats
    // no alert. FlowTable sets it on the RST's own direction only.
    void rescan_behind() { rescan_behind_ = true; }
    // peer_acked: the other direction's latest acknowledgement number.
    bool rst_acceptable(uint32_t seq, std::optional<uint32_t> peer_acked = std::nullopt) const;
    // Every byte up to the FIN was delivered.
    bool finished() const { return fin_seen_; }
    uint32_t isn() const { return base_seq_ - 1; }
    bool had_syn() const { return had_syn_; }
    uint64_t next_offset() const { return next_off_; }
    size_t buffered_bytes() const { return ooo_bytes_; }
    size_t buffered_segments() const { return ooo_.size(); }
    // Ranges of offsets passed without their bytes, remembered (memory).
    size_t unscanned_ranges() const { return unscanned_.size(); }

  private:
    uint32_t next_seq() const { return base_seq_ + static_cast<uint32_t>(next_off_); }
    void insert(uint64_t off, const uint8_t *bytes, size_t len);
    void drain(StreamReceiver &out);
    void skip_to(uint64_t off, StreamReceiver &out);
    void skip_to_first(StreamReceiver &out);
    void late(int64_t off, const uint8_t *bytes, size_t before, size_t captured, StreamReceiver &out);
    void unscanned_add(int64_t from, int64_t to);
    void unscanned_trim();

    uint64_t max_ooo_;
    wm_stream_stats_t *st_;
    bool started_ = false, had_syn_ = false;
    bool rescan_behind_ = false; // rescan_behind(): until the stream goes on
    int64_t rescanned_to_ = INT64_MIN; // offsets behind it rescanned so far end here (each offset once)
    uint32_t base_seq_ = 0; // sequence number of stream offset 0
    uint64_t next_off_ = 0; // next offset to deliver
    bool fin_seen_ = false;    // the stream ended at fin_off_
    bool fin_pending_ = false; // a FIN at fin_off_, bytes before it still missing
    uint64_t fin_off_ = 0;
    std::map<uint64_t, std::string> ooo_; // offset -> bytes, disjoint, all >= next_off_
    size_t ooo_bytes_ = 0;
    std::string run_;                     // contiguous bytes collected by drain()
    // Offsets passed without their bytes (holes given up on, and everything
    // before offset 0), whose bytes are still to scan when they come:
    // disjoint [start, end). The range before offset 0 goes in when first
    // needed (before_start_open_). At most kMaxUnscanned ranges.
    static constexpr int64_t kBeforeStart = INT64_MIN / 4;
    static constexpr size_t kMaxUnscanned = 64;
    std::map<int64_t, int64_t> unscanned_;
    bool before_start_open_ = true;
};

} // namespace wm::stream
