#include "stream/stream_pipeline.h"

#include "capture/decoder.h"
#include "capture/offline_capture.h"
#include "compiled_ruleset.h"
#include "stream/frame_layers.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wm::stream {

StreamPipeline::StreamPipeline(BatchScanner &sc, const PipelineOptions &opts,
                               wm_alert_fn on_alert, void *alert_ctx)
    : sc_(sc), opts_(opts), on_alert_(on_alert), alert_ctx_(alert_ctx), geometry_(sc.rules()),
      carry_(geometry_), first_(sc.rules(), sc.rule_ids(), sc.positions()) {
    cap_.struct_size = sizeof(cap_);
    sst_.struct_size = sizeof(sst_);
    // Large batches only where the GPU scans payloads on their own. With
    // streams every match comes back (the carry filter needs them all), and
    // on an H200 merged-zeek replayed in 0.38 s with 32 MiB batches against
    // 0.18 s with 1 MiB ones, x8 in 1.75 s against 1.04-1.09 s (run 305);
    // scanned ahead, x8 took 0.82-0.87 s with 2 MiB, 0.94-0.96 with 1 MiB
    // and 0.85-1.02 with 4-8 MiB (run 308).
    size_t bytes = 1u << 20, windows = 4096;
    if (sc.on_gpu() && opts_.streams) {
        bytes = 2u << 20;
        windows = 8192;
    } else if (sc.on_gpu()) {
        bytes = 32u << 20;
        windows = 262144;
    }
    if (opts_.max_batch_bytes == 0) opts_.max_batch_bytes = bytes;
    if (opts_.max_batch_payloads == 0) opts_.max_batch_payloads = windows;
    if (!opts_.streams) return;
    // Suppressing matches in carried bytes needs their positions.
    if (!sc.positions())
        throw std::invalid_argument("streams need match positions: create the scanner with "
                                    "WM_OUTPUT_POSITIONS (CLI: --matches positions)");
    // The carry and the oracle assume literals (a match is `length` bytes
    // long); approximate and alignment matches have no fixed length.
    for (const auto &r : sc.rules())
        if (!CompiledRuleSet::is_literal(r))
            throw std::invalid_argument(fmt::format(
                "streams support literal rules only; rule {} is {}: run it without --streams",
                r.id, CompiledRuleSet::is_alignment(r) ? "an align rule" : "approximate (max_edits/max_mismatches)"));
    if (opts_.verify_streams) oracle_ = std::make_unique<HsStreamOracle>(sc.rules());
    flows_ = std::make_unique<FlowTable>(opts_.config, sst_, static_cast<FlowSink &>(*this));
    defrag_ = std::make_unique<IpDefrag>(opts_.config, sst_);
}

StreamPipeline::~StreamPipeline() {
    if (ahead_.busy) sc_.cancel(); // its windows are freed with this
}

bool StreamPipeline::frame(int dlt, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
                           int64_t ts_sec, int64_t ts_usec) {
    if (stopped_) return false;
    ++cap_.packets;
    cap_.bytes += caplen;
    if (caplen < wirelen) ++cap_.snaplen_truncated;
    // The capture clock only moves forward: merged captures jump back.
    if (ts_sec > now_sec_) now_sec_ = ts_sec;
    now_usec_ = std::max(now_usec_, ts_sec * 1000000 + ts_usec);
    if (opts_.streams && now_sec_ > last_expire_sec_) {
        last_expire_sec_ = now_sec_;
        flows_->expire(now_sec_);
        defrag_->expire(now_sec_);
    }
    wm_packet_t pkt{};
    capture::FrameLayers where;
    // The readers' one record decoder: the same fields, skip reasons and counts.
    const int rc = capture::decode_record(dlt, ++records_, ts_sec, ts_usec, caplen, wirelen, data, &pkt,
                                          opts_.tunnel_ports, &where);
    if (where.tunnels > 0) { // copied where the packet is kept (a batch, a flow's last packet)
        carrier_ = capture::tunnel_of(where);
        pkt.tunnel = &carrier_;
    }
    if (!opts_.streams) {
        if (rc == capture::kDecodedPayload) {
            ++cap_.payloads;
            cap_.payload_bytes += pkt.payload_len;
            add_datagram(pkt);
        } else {
            ++cap_.skipped[rc];
        }
        return !stopped_;
    }
    if (rc != WM_SKIP_FRAGMENT) {
        decoded(data, caplen, rc, where, pkt);
        return !stopped_;
    }
    // A fragment counts as skipped; the datagram it may complete is then
    // delivered like a packet of its own (same number and time).
    ++cap_.skipped[WM_SKIP_FRAGMENT];
    // The fragment is the innermost IP header the decoder reached (inside
    // a tunnel, the inner packet's).
    const int64_t ipo = where.ip_offset;
    IpInfo info;
    if (ipo < 0 || !parse_ip(data + ipo, caplen - ipo, &info) || !info.fragment) return !stopped_;
    if (!defrag_->add(data + ipo, caplen - ipo, info, where.vlans, now_sec_, &datagram_)) return !stopped_;
    wm_packet_t whole = pkt;
    const uint32_t n = static_cast<uint32_t>(datagram_.size());
    capture::FrameLayers inner;
    const int r2 = capture::decode_frame(capture::kDltRaw, datagram_.data(), n, &whole, &inner, opts_.tunnel_ports);
    if (whole.flow_id != 0) whole.flow_id = capture::flow_hash_vlans(whole.flow_id, where.vlans); // the datagram has no tags
    capture::set_packet_vlans(&whole, where.vlans, where.vlan_tags);
    inner.vlans = where.vlans;
    // The fragments' carrier, tunnels in the datagram deeper; or the datagram's own outermost tunnel.
    if (where.tunnels > 0 || inner.tunnels > 0) {
        carrier_ = capture::tunnel_of(where.tunnels > 0 ? where : inner);
        carrier_.depth = static_cast<uint8_t>(where.tunnels + inner.tunnels);
        whole.tunnel = &carrier_;
    }
    if (r2 == capture::kDecodedPayload || r2 == WM_SKIP_NO_PAYLOAD || r2 == WM_SKIP_TRUNCATED) {
        if (r2 == capture::kDecodedPayload) {
            ++cap_.payloads;
            cap_.payload_bytes += whole.payload_len;
        }
        if (whole.proto == WM_PROTO_TCP)
            tcp(datagram_.data(), n, inner, whole);
        else if (r2 == capture::kDecodedPayload)
            add_datagram(whole);
    }
    return !stopped_;
}

void StreamPipeline::decoded(const uint8_t *frame, uint32_t caplen, int rc, const capture::FrameLayers &where,
                             wm_packet_t &pkt) {
    if (rc == capture::kDecodedPayload) {
        ++cap_.payloads;
        cap_.payload_bytes += pkt.payload_len;
    } else {
        ++cap_.skipped[rc];
    }
    // TRUNCATED with the protocol known: the TCP header is whole and the
    // snap length cut all of the payload; the flow still needs its sequence
    // space (it becomes a gap) and its flags.
    const bool tcp_ok = rc == capture::kDecodedPayload || rc == WM_SKIP_NO_PAYLOAD ||
                        rc == WM_SKIP_TRUNCATED;
    if (tcp_ok && pkt.proto == WM_PROTO_TCP)
        tcp(frame, caplen, where, pkt);
    else if (rc == capture::kDecodedPayload)
        add_datagram(pkt);
}

void StreamPipeline::tcp(const uint8_t *frame, size_t caplen, const capture::FrameLayers &where, wm_packet_t &pkt) {
    if (where.ip_offset < 0) return;
    const uint8_t *ip = frame + where.ip_offset;
    const size_t ip_len = caplen - size_t(where.ip_offset);
    IpInfo info;
    if (!parse_ip(ip, ip_len, &info) || info.fragment) return;
    const size_t l4 = info.l4_offset;
    TcpHeader th;
    if (l4 > ip_len || !parse_tcp(ip + l4, ip_len - l4, &th)) return;
    // An IP length past what the wire carried: a host drops the packet, so
    // the flow must not take its claimed bytes (they would become a gap, and
    // the real bytes resent after it a retransmission).
    const uint64_t on_wire = std::max<uint64_t>(pkt.wirelen, caplen) - size_t(where.ip_offset);
    if (info.declared_len > on_wire) return;
    size_t seg_len = pkt.payload ? pkt.payload_len : 0;
    if (info.declared_len > uint64_t(info.l4_offset) + th.header_len)
        seg_len = info.declared_len - info.l4_offset - th.header_len;
    flows_->on_tcp(pkt, th, seg_len, where.vlans, now_sec_);
}

void StreamPipeline::note_added(const wm_packet_t &trigger) {
    // The batch's age runs from the capture clock when its first entry came
    // in: bytes released later than their packet (a filled hole, a flow's
    // end) count from their release, not from the packet they refer to.
    (void)trigger;
    if (batch_.count() == 1) pending_since_ = now_usec_;
    if (oracle_ && expected_.size() < batch_.count()) expected_.resize(batch_.count());
    if (!flushing_ && (batch_.bytes() >= opts_.max_batch_bytes ||
                       batch_.count() >= opts_.max_batch_payloads)) {
        ++batches_full_;
        if (opts_.scan_ahead)
            submit_ahead();
        else
            flush();
    }
}

void StreamPipeline::add_datagram(const wm_packet_t &pkt) {
    if (stopped_) return;
    CarryMatcher::add_datagram(pkt, batch_);
    note_added(pkt);
}

void StreamPipeline::data(Flow &f, int dir, uint64_t off, const uint8_t *bytes, size_t len,
                          const wm_packet_t &trigger) {
    if (stopped_) return;
    carry_.add_stream(f.side[dir], f.serial, dir, off, bytes, len, trigger, batch_, sst_);
    if (oracle_) {
        expected_.resize(batch_.count());
        ++sst_.oracle_windows;
        oracle_->data(f.serial, dir, off, bytes, len, batch_.meta.back(), expected_.back());
    }
    note_added(trigger);
}

void StreamPipeline::gap(Flow &f, int dir, uint64_t, uint64_t to) {
    carry_.gap(f.side[dir], to);
    if (oracle_) oracle_->gap(f.serial, dir);
}

void StreamPipeline::late(Flow &, int, const uint8_t *bytes, size_t len, size_t lo, size_t hi,
                          const wm_packet_t &trigger) {
    if (stopped_) return;
    wm_packet_t piece = trigger; // the alert names the packet and where in it the bytes are
    piece.payload_offset += static_cast<uint32_t>(bytes - trigger.payload);
    piece.payload = bytes;
    piece.payload_len = static_cast<uint32_t>(len);
    CarryMatcher::add_datagram(piece, batch_);
    batch_.info.back().late_lo = static_cast<uint32_t>(lo);
    batch_.info.back().late_hi = static_cast<uint32_t>(hi);
    note_added(piece);
}

void StreamPipeline::end(Flow &f) {
    if (oracle_) oracle_->end(f.serial);
}

// Window by window, the scanner's stream matches must be exactly what
// Hyperscan stream mode reported for the same bytes.
void StreamPipeline::check_oracle(const Scanned &s) {
    const WindowBatch &b = s.batch;
    size_t i = 0;
    std::vector<StreamMatch> got;
    for (size_t w = 0; w < b.count(); ++w) {
        got.clear();
        for (; i < matches_.size() && matches_[i].payload == w; ++i)
            got.emplace_back(matches_[i].rule, b.info[w].base + matches_[i].end);
        if (!b.info[w].stream || got == s.expected[w]) continue;
        ++sst_.oracle_mismatches;
        ++mismatches_;
        if (why_.size() < 50) {
            auto list = [&](const std::vector<StreamMatch> &v) {
                std::string s;
                for (const auto &m : v)
                    s += fmt::format(" {}@{}", sc_.rules()[m.first].id, m.second);
                return s.empty() ? std::string(" none") : s;
            };
            why_.push_back(fmt::format("stream verify mismatch: packet {} flow {} dir {}: "
                                       "scanner{} / Hyperscan stream mode{}",
                                       b.packets[w].number, b.info[w].flow, b.info[w].dir, list(got),
                                       list(s.expected[w])));
        }
    }
}

Wanted StreamPipeline::wanted() const {
    // One alert per (window, rule) is delivered; with streams the carry
    // filter and the oracle need every match, else the scanning threads
    // may leave repeats out.
    return opts_.streams ? Wanted::EveryMatch : Wanted::FirstPerRule;
}

void StreamPipeline::hand_over(Scanned &to) {
    batch_.bind_payloads();
    to.batch.clear(); // the batch it last held, delivered (or whose scan threw)
    to.expected.clear();
    std::swap(to.batch, batch_);
    to.expected.swap(expected_);
    to.since = pending_since_;
}

bool StreamPipeline::flush() {
    if (stopped_) return false;
    if (ahead_.busy && !take_ahead()) return false;
    if (batch_.count() == 0) return true;
    flushing_ = true;
    hand_over(current_);
    std::vector<std::string> why;
    const int rc = sc_.scan(current_.batch.view(), matches_, &why, wanted());
    const bool go_on = finish_scan(current_, rc, why, false);
    flushing_ = false;
    return go_on;
}

void StreamPipeline::submit_ahead() {
    if (stopped_ || (ahead_.busy && !take_ahead())) return;
    hand_over(ahead_);
    ahead_.crossing = 0;
    // The carry filter too runs on the scanning thread: a tenth of the
    // pipeline thread's work on merged-zeek x8 (run 305).
    BatchScanner::AfterScan filter;
    if (opts_.streams)
        filter = [this](std::vector<Match> &m) {
            wm_stream_stats_t st{};
            carry_.filter(ahead_.batch, m, st);
            ahead_.crossing = st.cross_segment_matches;
        };
    sc_.submit(ahead_.batch.view(), wanted(), std::move(filter));
    ahead_.busy = true;
}

bool StreamPipeline::take_ahead() {
    ahead_.busy = false; // taken, even when the scan threw
    std::vector<std::string> why;
    const int rc = sc_.take(matches_, &why);
    sst_.cross_segment_matches += ahead_.crossing;
    return finish_scan(ahead_, rc, why, rc != WM_SCAN_TERMINATED); // a cancelled scan skipped `after`
}

// A scanned batch's matches -> stream matches (unless `filtered` already)
// -> alerts (s is emptied by the next hand_over()).
bool StreamPipeline::finish_scan(Scanned &s, int rc, std::vector<std::string> &why, bool filtered) {
    ++batches_;
    if (rc == WM_VERIFY_MISMATCH) {
        mismatches_ += why.size();
        for (auto &w : why)
            if (why_.size() < 50) why_.push_back(std::move(w));
    }
    if (opts_.streams && !filtered) carry_.filter(s.batch, matches_, sst_);
    if (oracle_) check_oracle(s);
    const bool go_on = deliver(s.batch);
    if (observer_) observer_->batch_done(s.since);
    if (!go_on) stopped_ = true;
    return go_on;
}

// One alert per (window, rule): the first occurrence, as replay without
// streams delivers it (an align rule's alert carries its score).
bool StreamPipeline::deliver(const WindowBatch &b) {
    first_.new_batch();
    for (const Match &m : matches_) {
        const wm_alert_t *a = first_.first(m, &b.packets[m.payload]);
        if (!a) continue;
        ++alerts_;
        if (on_alert_ && on_alert_(a, alert_ctx_) != 0) return false;
    }
    return true;
}

bool StreamPipeline::finish() {
    if (flows_ && !stopped_) flows_->end_all();
    return flush();
}

} // namespace wm::stream
