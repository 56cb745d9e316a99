#include "stream/tcp_reassembly.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace wm::stream {

void TcpDirection::syn(uint32_t seq) {
    if (started_ && (next_off_ > 0 || !ooo_.empty())) return;
    started_ = had_syn_ = true;
    base_seq_ = seq + 1;
    next_off_ = 0;
}

bool TcpDirection::rst_acceptable(uint32_t seq, std::optional<uint32_t> peer_acked) const {
    // Nothing of this direction seen: the peer's acknowledgements say where
    // it is (what a receiver checks a RST against); without them, accepted.
    if (!started_ && !peer_acked) return true;
    if (!started_) return seq == *peer_acked;
    // After the FIN, which takes a sequence number, a sender's RST comes
    // at the FIN's number + 1 (Linux takes both in its closing states).
    return seq == next_seq() || (fin_seen_ && seq == next_seq() + 1);
}

// First-wins insert into the out-of-order map: only bytes not held yet.
void TcpDirection::insert(uint64_t off, const uint8_t *bytes, size_t len) {
    const uint64_t end = off + len;
    uint64_t cur = off;
    auto it = ooo_.upper_bound(off);
    if (it != ooo_.begin()) --it;
    std::vector<std::pair<uint64_t, std::string>> fresh;
    for (; cur < end; ++it) {
        const bool have = it != ooo_.end();
        const uint64_t s = have ? it->first : end, e = have ? s + it->second.size() : end;
        if (have && e <= cur) continue;
        if (cur < std::min(s, end))
            fresh.emplace_back(cur, std::string(reinterpret_cast<const char *>(bytes + (cur - off)),
                                                std::min(s, end) - cur));
        if (!have || s >= end) break;
        const uint64_t os = std::max(s, cur), oe = std::min(e, end);
        st_->overlap_bytes += oe - os;
        if (std::memcmp(it->second.data() + (os - s), bytes + (os - off), oe - os) != 0)
            ++st_->overlap_conflicts;
        cur = oe;
    }
    for (auto &f : fresh) {
        ooo_bytes_ += f.second.size();
        ooo_.emplace(f.first, std::move(f.second));
    }
}

// Delivers the contiguous run starting at next_off_ as one piece.
void TcpDirection::drain(StreamReceiver &out) {
    run_.clear();
    const uint64_t start = next_off_;
    for (auto it = ooo_.begin(); it != ooo_.end() && it->first == next_off_;) {
        const uint64_t len = it->second.size();
        // Data over a FIN not reached yet voids it: a receiver takes the
        // data and drops the FIN it covers (Linux drops an out-of-order FIN
        // that data overlaps), so the bytes must be scanned. (None is past a
        // FIN reached: such data voided it first, in segment() or
        // skip_to_first().)
        if (fin_pending_ && fin_off_ >= next_off_ && fin_off_ < next_off_ + len) fin_pending_ = false;
        run_.append(it->second);
        next_off_ += len;
        ooo_bytes_ -= it->second.size();
        it = ooo_.erase(it);
    }
    if (!run_.empty()) {
        st_->stream_bytes += run_.size();
        out.data(start, reinterpret_cast<const uint8_t *>(run_.data()), run_.size());
    }
    // Every byte before a pending FIN is in: the stream ends there.
    if (fin_pending_ && next_off_ == fin_off_) {
        fin_pending_ = false;
        fin_seen_ = true;
    }
}

void TcpDirection::unscanned_add(int64_t from, int64_t to) {
    unscanned_.emplace(from, to);
    unscanned_trim();
}

// Past kMaxUnscanned ranges, the two closest merge: the bytes between them
// (delivered already) may be scanned again, but no byte of a hole is lost.
void TcpDirection::unscanned_trim() {
    while (unscanned_.size() > kMaxUnscanned) {
        auto best = unscanned_.begin();
        int64_t best_gap = INT64_MAX;
        for (auto it = unscanned_.begin(); std::next(it) != unscanned_.end(); ++it) {
            const int64_t g = std::next(it)->first - it->second;
            if (g < best_gap) best_gap = g, best = it;
        }
        const auto next = std::next(best);
        best->second = next->second;
        unscanned_.erase(next);
    }
}

// Segment bytes [off, off + captured), of which the first `before` lie
// before next_off_: those in unscanned ranges are carved out of them, and
// the segment goes out as late bytes with their span.
void TcpDirection::late(int64_t off, const uint8_t *bytes, size_t before, size_t captured, StreamReceiver &out) {
    const int64_t end = off + static_cast<int64_t>(before);
    if (off < 0 && before_start_open_) {
        unscanned_.emplace(kBeforeStart, 0);
        before_start_open_ = false;
    }
    int64_t lo = end, hi = off;
    auto it = unscanned_.upper_bound(off);
    if (it != unscanned_.begin()) --it;
    while (it != unscanned_.end() && it->first < end) {
        const int64_t s = it->first, e = it->second;
        if (e <= off) {
            ++it;
            continue;
        }
        const int64_t a = std::max(s, off), b = std::min(e, end);
        lo = std::min(lo, a), hi = std::max(hi, b);
        it = unscanned_.erase(it);
        if (s < a) unscanned_.emplace(s, a);
        if (b < e) it = unscanned_.emplace(b, e).first;
    }
    unscanned_trim();
    if (lo < hi) out.late(off, bytes, captured, static_cast<size_t>(lo - off), static_cast<size_t>(hi - off));
}

// Gives up on [next_off_, off): a gap, then whatever follows contiguously.
void TcpDirection::skip_to(uint64_t off, StreamReceiver &out) {
    if (off <= next_off_) return;
    ++st_->gaps;
    st_->gap_bytes += off - next_off_;
    out.gap(next_off_, off);
    unscanned_add(static_cast<int64_t>(next_off_), static_cast<int64_t>(off));
    next_off_ = off;
    if (fin_pending_ && fin_off_ < next_off_) fin_pending_ = false; // skipped over, as data over it
    // Buffered bytes before the new position were part of the skipped range
    // only if they started inside it; keep their tail.
    while (!ooo_.empty() && ooo_.begin()->first < next_off_) {
        auto it = ooo_.begin();
        const uint64_t e = it->first + it->second.size();
        std::string tail = e > next_off_ ? it->second.substr(next_off_ - it->first) : "";
        ooo_bytes_ -= it->second.size();
        ooo_.erase(it);
        if (!tail.empty()) {
            ooo_bytes_ += tail.size();
            ooo_.emplace(next_off_, std::move(tail));
        }
    }
    drain(out);
}

void TcpDirection::segment(uint32_t seq, const uint8_t *bytes, size_t captured_len,
                           size_t seg_len, bool fin, StreamReceiver &out) {
    captured_len = std::min(captured_len, seg_len);
    if (!started_) {
        if (seg_len == 0 && !fin) return;
        started_ = true; // picked up mid-connection: this byte is offset 0
        base_seq_ = seq;
    }
    const int64_t delta = static_cast<int32_t>(seq - next_seq());
    int64_t off = static_cast<int64_t>(next_off_) + delta;
    const int64_t seg_end = off + static_cast<int64_t>(seg_len);
    // A FIN behind the bytes delivered is old (a receiver drops it); one at
    // or past them waits until every byte before it is in (drain), and an
    // earlier one pending is reached first.
    if (fin && !fin_seen_ && seg_end >= static_cast<int64_t>(next_off_) &&
        (!fin_pending_ || static_cast<uint64_t>(seg_end) < fin_off_)) {
        fin_pending_ = true;
        fin_off_ = static_cast<uint64_t>(seg_end);
    }
    if (seg_len == 0) {
        drain(out);
        return;
    }
    // Bytes before next_off_ were delivered already (a retransmission), or
    // passed without them: those are late bytes.
    int64_t skip = std::max<int64_t>(0, static_cast<int64_t>(next_off_) - off);
    if (skip > 0 && captured_len > 0) {
        if (rescan_behind_) { // after a RST: bytes behind the stream, scanned on their own, each offset once
            const int64_t behind = off + std::min<int64_t>(skip, static_cast<int64_t>(captured_len));
            const int64_t lo = std::max(off, rescanned_to_);
            if (lo < behind)
                out.late(off, bytes, captured_len, static_cast<size_t>(lo - off), static_cast<size_t>(behind - off));
            rescanned_to_ = std::max(rescanned_to_, behind);
        } else {
            late(off, bytes, std::min<size_t>(size_t(skip), captured_len), captured_len, out);
        }
    }
    // The stream goes on (at its next byte, from behind it too): retransmissions are that again.
    if (skip < static_cast<int64_t>(seg_len)) rescan_behind_ = false;
    if (skip >= static_cast<int64_t>(seg_len)) {
        st_->retransmitted_bytes += seg_len;
        drain(out); // a FIN on a retransmission (the first FIN lost) still ends the stream
        return;
    }
    st_->retransmitted_bytes += skip;
    if (delta == 0)
        ++st_->segments_in_order;
    else if (delta > 0)
        ++st_->segments_out_of_order;
    off += skip;
    if (fin_seen_ && static_cast<uint64_t>(off) >= fin_off_) {
        // New data at or past a FIN already reached. A host that got the FIN
        // takes no more data, so a sender only writes on when it never
        // arrived (forged, or cut short by its TTL): the FIN is void and the
        // bytes are scanned, as a host that missed it would take them.
        st_->bytes_after_fin += seg_len - skip;
        fin_seen_ = false;
    }
    if (static_cast<size_t>(skip) < captured_len)
        insert(static_cast<uint64_t>(off), bytes + skip, captured_len - skip);
    drain(out);
    // The snap length cut this segment and everything before its missing
    // tail is delivered: only a retransmission could fill it; do not wait.
    const uint64_t captured_end =
        static_cast<uint64_t>(off) + (captured_len > size_t(skip) ? captured_len - skip : 0);
    if (captured_len < seg_len && next_off_ >= captured_end)
        skip_to(std::min<uint64_t>(static_cast<uint64_t>(seg_end),
                                   fin_seen_ ? fin_off_ : UINT64_MAX), out);
    // Over the out-of-order cap: give up on holes, earliest first.
    while (ooo_bytes_ > max_ooo_ && !ooo_.empty()) skip_to_first(out);
}

// Skips the hole before the first buffered segment (past a pending FIN:
// the stream ends at the FIN instead).
void TcpDirection::skip_to_first(StreamReceiver &out) {
    const uint64_t k = ooo_.begin()->first;
    if (fin_pending_ && k > fin_off_) { // the hole holds the pending FIN: the stream ends there
        skip_to(fin_off_, out);
        if (ooo_.empty()) return;
    }
    if (fin_seen_ && k >= fin_off_) { // data past a FIN reached voids it (segment())
        st_->bytes_after_fin += ooo_bytes_;
        fin_seen_ = false;
    }
    skip_to(k, out);
}

void TcpDirection::flush(StreamReceiver &out) {
    while (!ooo_.empty()) skip_to_first(out);
}

} // namespace wm::stream
