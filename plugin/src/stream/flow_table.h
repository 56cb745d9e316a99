// plugin/src/stream/flow_table.h - TCP flows keyed by the bidirectional
// 5-tuple and VLAN ids, each with two reassembled directions, in
// least-recently-used order so that timeouts and evictions take the oldest
// first.
//
// Lifecycle: a flow starts with a SYN or with a segment carrying data (a
// capture that starts mid-connection); a bare ACK/FIN/RST for an unknown
// flow is counted and ignored. It ends when both directions finished (FIN),
// on a new SYN for the same 5-tuple (port reuse), when idle longer than
// idle_timeout_s (capture time), or when max_flows or memcap_bytes push it
// out. A RST at the exact next sequence number closes the connection
// (counted then) but ends the flow only when it had no data: otherwise the
// flow stays, so that data after a RST the host never received continues
// its stream. Such a flow takes data within the out-of-order window of
// where its stream goes on; data further off or a SYN-ACK with a new ISN
// ends it and starts a new flow (a new connection whose SYN was missed),
// and a SYN follows the rules of a SYN mid-connection. Ending a flow
// delivers what it still buffers (holes become gaps) before
// FlowSink::end(): nothing captured is dropped silently.
#pragma once

#include "stream/frame_layers.h"
#include "stream/tcp_reassembly.h"
#include "warpmatch.h"

#include <array>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace wm::stream {

// IP version, protocol, lower endpoint, higher endpoint (address, port),
// VLAN ids (capture::FrameLayers).
using FlowKey = std::array<uint8_t, 41>;

struct Flow {
    FlowKey key{};
    uint64_t serial = 0;           // unique per flow for the lifetime of the table
    uint8_t client_ip[16]{};       // source of the first packet = direction 0
    uint16_t client_port = 0;
    int64_t last_sec = 0;
    size_t memory = 0;             // as counted against memcap_bytes
    TcpDirection tcp[2];
    // A SYN with a new ISN that was ignored mid-connection (direction, ISN):
    // the new connection it may be is taken up when the peer answers it
    // with a SYN-ACK acknowledging it (the old one's FINs were not seen).
    std::optional<std::pair<int, uint32_t>> ignored_syn;
    // An accepted RST closed the connection (counted in flows_closed then),
    // but the flow stays until it times out, is evicted, a new connection
    // takes its 5-tuple or data comes far from where its stream goes on:
    // a RST that never reached the host (TTL-limited, dropped behind the
    // sensor) would otherwise cut the stream, and a signature split across
    // it, while the host goes on receiving it.
    bool reset = false;
    // Per direction, owned by the matcher but held (and counted) here: the
    // bytes carried into the next window, and the metadata of the latest
    // packet, which alerts on data delivered without a packet refer to.
    struct Side {
        std::string carry;
        uint32_t pad = 0;
        wm_packet_t last{};
        wm_tunnel_t last_carrier{}; // what last.tunnel points at, when set (flows stay put in the LRU list)
        std::optional<uint32_t> acked; // this direction's latest ACK number: the other's next sequence number
    } side[2];

    Flow(uint64_t max_ooo, wm_stream_stats_t &st) : tcp{{max_ooo, st}, {max_ooo, st}} {}
};

class FlowSink {
  public:
    virtual ~FlowSink() = default;
    // In-order bytes of direction dir at stream offset off; trigger is the
    // packet that delivered them (payload fields not meaningful).
    virtual void data(Flow &f, int dir, uint64_t off, const uint8_t *bytes, size_t len,
                      const wm_packet_t &trigger) = 0;
    virtual void gap(Flow &f, int dir, uint64_t from, uint64_t to) = 0;
    // Late bytes of direction dir (StreamReceiver::late): a segment's bytes
    // [0, len) inside trigger's payload, scanned on their own as packet mode
    // scans a payload; only matches touching [lo, hi) count.
    virtual void late(Flow &f, int dir, const uint8_t *bytes, size_t len, size_t lo, size_t hi,
                      const wm_packet_t &trigger) = 0;
    virtual void end(Flow &f) = 0;
};

class FlowTable {
  public:
    FlowTable(const wm_stream_config_t &cfg, wm_stream_stats_t &stats, FlowSink &sink);
    ~FlowTable();

    // A decoded TCP packet (addresses, ports and payload from decode_frame;
    // payload may be null), its TCP header, the sequence space its data
    // occupies (> payload_len when the snap length cut it) and its frame's
    // VLAN ids (capture::FrameLayers), which key the flow too. now_sec is the
    // capture clock: the latest timestamp seen, so that captures whose time
    // jumps backwards (merged files) do not expire flows early.
    void on_tcp(const wm_packet_t &pkt, const TcpHeader &tcp, size_t seg_len, uint32_t vlans, int64_t now_sec);
    // Ends flows idle since before now_sec - idle_timeout_s.
    void expire(int64_t now_sec);
    // Ends every flow (end of capture), oldest first.
    void end_all();
    // The carry of a flow changed size: recount its memory.
    void account(Flow &f);

    size_t flows() const { return table_.size(); }
    size_t memory_bytes() const { return memory_; }

  private:
    using Lru = std::list<Flow>; // most recent first
    enum class End { Closed, TimedOut, Evicted, Reused, AtEnd }; // a reset flow is counted once, at its RST

    Lru::iterator create(const wm_packet_t &pkt, const FlowKey &key);
    void end_flow(Lru::iterator it, End why);
    void flush_direction(Flow &f, int d); // delivers what direction d buffered, holes becoming gaps
    void flush_flow(Flow &f);             // ... both directions
    Lru::iterator victim(const Flow *keep);
    static constexpr int kResetSearch = 64; // least recently used flows searched for a reset one
    static bool no_data(const Flow &f);     // neither direction has had a byte
    void enforce_caps(const Flow *keep);

    const wm_stream_config_t &cfg_;
    wm_stream_stats_t &st_;
    FlowSink &sink_;
    Lru lru_;
    struct KeyHash {
        size_t operator()(const FlowKey &k) const;
    };
    std::unordered_map<FlowKey, Lru::iterator, KeyHash> table_;
    size_t memory_ = 0;
    size_t resets_live_ = 0; // flows kept after their RST (victim() searches only with one)
    uint64_t next_serial_ = 1;
};

} // namespace wm::stream
