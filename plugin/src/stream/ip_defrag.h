// plugin/src/stream/ip_defrag.h - IPv4 and IPv6 fragment reassembly.
//
// Fragments are keyed by (version, source, destination, id, and for IPv4
// the protocol). A datagram is complete when its last fragment arrived and
// the data covers [0, total) without holes; it is then rebuilt as one
// unfragmented IP packet that capture::decode_frame() reads like any other.
//
// Overlaps as Linux (4.19 on) handles them, for IPv4 and IPv6 alike (RFC
// 5722): a fragment inside one run of fragments that came in order is a
// duplicate, dropped alone; any other overlap drops the whole datagram. So
// we never reassemble something a Linux receiver would not. Either version: a last fragment that
// ends before held bytes, or a fragment past the known end, drops the
// datagram, as Linux does.
//
// Bounded: at most frag_max_datagrams datagrams and frag_memcap_bytes of
// fragment data at once; the oldest datagram is dropped to make room, and
// datagrams older than frag_timeout_s (capture time, from the first
// fragment, like Linux) are dropped. Every drop is counted.
#pragma once

#include "stream/frame_layers.h"
#include "warpmatch.h"

#include <array>
#include <cstdint>
#include <list>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace wm::stream {

class IpDefrag {
  public:
    IpDefrag(const wm_stream_config_t &cfg, wm_stream_stats_t &stats);

    // One fragment: ip points at its IP header, caplen bytes captured,
    // info from parse_ip() (info.fragment is true), vlans its frame's VLAN
    // ids (capture::FrameLayers), which key the datagram beside the addresses
    // and id. Returns true and fills *datagram when this fragment completed
    // a datagram.
    bool add(const uint8_t *ip, size_t caplen, const IpInfo &info, uint32_t vlans, int64_t now_sec,
             std::vector<uint8_t> *datagram);

    // Drops datagrams whose first fragment is older than the timeout.
    void expire(int64_t now_sec);

    size_t datagrams() const { return table_.size(); }
    size_t memory_bytes() const { return bytes_; }

  private:
    struct Key {
        std::array<uint8_t, 40> bytes{}; // version, src, dst, id, proto, VLAN ids
        bool operator==(const Key &o) const { return bytes == o.bytes; }
    };
    struct KeyHash {
        size_t operator()(const Key &k) const;
    };
    struct Datagram {
        Key key;
        int64_t first_sec = 0;
        std::string header;                // unfragmentable part (from offset 0)
        uint32_t frag_nh_offset = 0;       // IPv6: next-header byte to rewrite
        uint8_t proto = 0;
        bool total_known = false;
        uint32_t total = 0;                // data length once the last fragment is in
        std::map<uint32_t, std::string> parts; // data offset -> bytes, disjoint
        std::map<uint32_t, uint32_t> runs;     // fragments that came in order, back to back: start -> end
        uint32_t tail_end = 0;                 // end of the last run (the highest end)
        size_t bytes = 0;
    };
    using Lru = std::list<Datagram>; // oldest first

    void drop(Lru::iterator it, uint64_t &counter);
    bool insert_part(Datagram &d, uint32_t off, const uint8_t *data, uint32_t len);
    bool complete(const Datagram &d) const;
    void rebuild(const Datagram &d, int version, std::vector<uint8_t> *out) const;

    const wm_stream_config_t &cfg_;
    wm_stream_stats_t &st_;
    Lru lru_;
    std::unordered_map<Key, Lru::iterator, KeyHash> table_;
    size_t bytes_ = 0;
};

} // namespace wm::stream
