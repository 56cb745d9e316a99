#include "stream/ip_defrag.h"

#include <algorithm>
#include <cstring>

namespace wm::stream {
namespace {

// Each held datagram costs its bytes plus bookkeeping; counting a fixed
// overhead per datagram and part keeps a flood of tiny fragments bounded.
constexpr size_t kDatagramOverhead = 256;
constexpr size_t kPartOverhead = 64;
constexpr uint32_t kMaxIpPacket = 65535;

uint16_t checksum16(const uint8_t *p, size_t n) {
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < n; i += 2) sum += (uint32_t(p[i]) << 8) | p[i + 1];
    if (n & 1) sum += uint32_t(p[n - 1]) << 8;
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return static_cast<uint16_t>(~sum);
}

} // namespace

size_t IpDefrag::KeyHash::operator()(const Key &k) const {
    uint64_t h = 1469598103934665603ull;
    for (uint8_t b : k.bytes) h = (h ^ b) * 1099511628211ull;
    return static_cast<size_t>(h ^ (h >> 29));
}

IpDefrag::IpDefrag(const wm_stream_config_t &cfg, wm_stream_stats_t &stats)
    : cfg_(cfg), st_(stats) {}

void IpDefrag::drop(Lru::iterator it, uint64_t &counter) {
    ++counter;
    bytes_ -= it->bytes;
    table_.erase(it->key);
    lru_.erase(it);
}

// As Linux's inet_frag_queue_insert (4.19 on; RFC 5722 for IPv6): fragments
// that arrive in order, each starting where the last one ended, make one
// run. A fragment wholly inside one run is a duplicate, dropped alone (a
// resent fragment must not cost the datagram the host still reassembles);
// any other overlap drops the datagram (returns false): first-wins here
// would let a fragment no host accepts stand for the real bytes of a later
// retransmission, and so would keeping a "duplicate" that spans two runs,
// which Linux refuses.
bool IpDefrag::insert_part(Datagram &d, uint32_t off, const uint8_t *data, uint32_t len) {
    const uint32_t end = off + len;
    if (len == 0) return true;
    if (d.runs.empty() || d.tail_end < end) { // past every fragment so far: the common case
        if (!d.runs.empty() && off < d.tail_end) return false;
        if (!d.runs.empty() && off == d.tail_end)
            std::prev(d.runs.end())->second = end; // the last run goes on
        else
            d.runs.emplace(off, end);
        d.tail_end = end;
    } else {
        const auto next = d.runs.upper_bound(off); // runs are disjoint: only neighbours can overlap
        if (next != d.runs.begin()) {
            const auto run = std::prev(next);
            if (run->second > off) {
                if (end > run->second) return false;
                st_.frag_overlap_bytes += len; // inside one run: a duplicate
                return true;
            }
        }
        if (next != d.runs.end() && next->first < end) return false;
        d.runs.emplace(off, end);
    }
    d.bytes += len + kPartOverhead;
    bytes_ += len + kPartOverhead;
    d.parts.emplace(off, std::string(reinterpret_cast<const char *>(data), len));
    return true;
}

bool IpDefrag::complete(const Datagram &d) const {
    if (!d.total_known || d.header.empty()) return false;
    uint32_t cur = 0;
    for (const auto &p : d.parts) {
        if (p.first > cur) return false;
        cur = std::max<uint32_t>(cur, p.first + uint32_t(p.second.size()));
    }
    return cur >= d.total;
}

void IpDefrag::rebuild(const Datagram &d, int version, std::vector<uint8_t> *out) const {
    out->assign(d.header.begin(), d.header.end());
    out->reserve(d.header.size() + d.total);
    for (const auto &p : d.parts) {
        if (p.first >= d.total) break;
        const uint32_t end = std::min<uint32_t>(d.total, p.first + uint32_t(p.second.size()));
        out->insert(out->end(), p.second.begin(), p.second.begin() + (end - p.first));
    }
    uint8_t *h = out->data();
    if (version == 4) {
        const uint32_t len = static_cast<uint32_t>(out->size());
        h[2] = uint8_t(len >> 8), h[3] = uint8_t(len);
        h[6] = h[7] = 0; // no flags, offset 0
        h[10] = h[11] = 0;
        const size_t ihl = size_t(h[0] & 0x0f) * 4;
        const uint16_t c = checksum16(h, ihl);
        h[10] = uint8_t(c >> 8), h[11] = uint8_t(c);
    } else {
        const uint32_t plen = static_cast<uint32_t>(out->size() - 40);
        h[4] = uint8_t(plen >> 8), h[5] = uint8_t(plen);
        h[d.frag_nh_offset] = d.proto; // unlink the fragment header
    }
}

bool IpDefrag::add(const uint8_t *ip, size_t caplen, const IpInfo &info, uint32_t vlans, int64_t now_sec,
                   std::vector<uint8_t> *datagram) {
    ++st_.frag_fragments;
    const bool v6 = info.version == 6;
    // The fragment's data runs to the end of the declared packet; it must
    // have been captured whole, and only the last fragment may be unaligned.
    const uint64_t end = info.declared_len;
    if (end == 0 || end > caplen || end < info.frag_data_offset) {
        ++st_.frag_invalid;
        return false;
    }
    const uint32_t len = static_cast<uint32_t>(end - info.frag_data_offset);
    // IPv4: header + data within 65535; IPv6: payload length (all but the
    // fixed 40-byte header) within 65535.
    const uint64_t limit = kMaxIpPacket + (v6 ? 40 : 0);
    if ((info.more_fragments && len % 8 != 0) || len == 0 ||
        uint64_t(info.frag_offset) + len + info.unfrag_len > limit) {
        ++st_.frag_invalid;
        return false;
    }

    Key k;
    k.bytes[0] = uint8_t(info.version);
    if (v6) {
        std::memcpy(&k.bytes[1], ip + 8, 32);
    } else {
        std::memcpy(&k.bytes[1], ip + 12, 4);
        std::memcpy(&k.bytes[17], ip + 16, 4);
    }
    std::memcpy(&k.bytes[33], &info.frag_id, 4);
    // IPv4's id is 16 bits, so byte 36 is free for the protocol (RFC 791's
    // key); written after the id, which would overwrite it.
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the id's high bytes at 35-36");
    if (!v6) k.bytes[36] = info.proto;
    k.bytes[37] = uint8_t(vlans >> 16), k.bytes[38] = uint8_t(vlans >> 8), k.bytes[39] = uint8_t(vlans);

    auto found = table_.find(k);
    if (found == table_.end()) {
        while (!lru_.empty() && table_.size() >= cfg_.frag_max_datagrams)
            drop(lru_.begin(), st_.frag_evicted);
        lru_.push_back(Datagram{});
        auto it = std::prev(lru_.end());
        it->key = k;
        it->first_sec = now_sec;
        it->bytes = kDatagramOverhead;
        bytes_ += kDatagramOverhead;
        found = table_.emplace(k, it).first;
    }
    auto it = found->second;
    Datagram &d = *it;
    if (info.frag_offset == 0 && d.header.empty()) {
        d.header.assign(reinterpret_cast<const char *>(ip), info.unfrag_len);
        d.frag_nh_offset = info.frag_nh_offset;
        d.proto = info.proto;
        d.bytes += d.header.size();
        bytes_ += d.header.size();
    }
    // The datagram's end, as Linux checks it (ip_frag_queue, ip6_frag_queue):
    // a last fragment ending before bytes already held, or any fragment
    // reaching past a known end, makes the whole datagram invalid. Taking
    // the shorter end instead would rebuild a datagram of whatever came
    // first, cut short, which no host receives.
    const uint32_t frag_end = info.frag_offset + len;
    const uint32_t held_end =
        d.parts.empty() ? 0 : d.parts.rbegin()->first + static_cast<uint32_t>(d.parts.rbegin()->second.size());
    if (!info.more_fragments) {
        if ((d.total_known && d.total != frag_end) || held_end > frag_end) { // two different ends
            drop(it, st_.frag_invalid);
            return false;
        }
        d.total_known = true;
        d.total = frag_end;
    } else if (d.total_known && frag_end > d.total) {
        drop(it, st_.frag_invalid);
        return false;
    }
    if (!insert_part(d, info.frag_offset, ip + info.frag_data_offset, len)) {
        drop(it, st_.frag_overlap_drops);
        return false;
    }
    st_.frag_memory_peak_bytes = std::max<uint64_t>(st_.frag_memory_peak_bytes, bytes_);
    if (complete(d)) {
        rebuild(d, info.version, datagram);
        ++st_.frag_reassembled;
        bytes_ -= d.bytes;
        table_.erase(d.key);
        lru_.erase(it);
        return true;
    }
    // Over the byte cap: drop the oldest datagrams, this one last.
    while (bytes_ > cfg_.frag_memcap_bytes && !lru_.empty()) {
        const bool last = lru_.begin() == it;
        drop(lru_.begin(), st_.frag_evicted);
        if (last) break;
    }
    return false;
}

void IpDefrag::expire(int64_t now_sec) {
    while (!lru_.empty() && lru_.front().first_sec + int64_t(cfg_.frag_timeout_s) < now_sec)
        drop(lru_.begin(), st_.frag_timeouts);
}

} // namespace wm::stream
