// plugin/src/capture/window_reader.cpp - see window_reader.h.
#include "capture/window_reader.h"

#include "capture/offline_capture.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace wm::capture {

namespace {

// Bytes past a part's end that its last record usually runs into (read with
// the part when its payloads are packed; a record running further is read
// on its own).
constexpr uint64_t kPartPast = 4096;
static_assert(WindowReader::kInPlaceSlack >= kPartPast + 262144 + PcapFile::kRecordHeader,
              "in place, a window's last record fits past its end");

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

WindowReader::WindowReader(const std::string &path, uint64_t window_bytes, unsigned threads,
                           const std::string &filter)
    : path_(path), window_bytes_(std::clamp<uint64_t>(window_bytes, 1, kMaxWindowBytes)),
      threads_(std::clamp(threads, 1u, 64u)), pool_(threads_) {
    // Opening with libpcap first gives the error of a plain read for a file
    // that is missing or not a capture, and the link type as libpcap maps it.
    // The handle stays open: in-place reads use its descriptor, and it reads
    // on (seek()) from a record it must read itself.
    sequential_ = std::make_unique<SliceReader>(path, 0, 1);
    dlt_ = sequential_->link_type();
    if (!filter.empty()) filter_ = std::make_unique<FrameFilter>(filter, dlt_);
    sequential_->set_filter(filter_.get());
    if (path != "-") { // standard input: libpcap's, perhaps not from its start
        file_ = std::make_unique<PcapFile>(sequential_->file_descriptor(), dlt_);
        if (!file_->usable()) file_.reset();
    }
    opened_in_place_ = file_ != nullptr;
}

WindowReader::~WindowReader() = default;

void WindowReader::set_tunnel_ports(const TunnelPorts *ports) {
    ports_ = ports;
    sequential_->set_tunnel_ports(ports);
}

bool WindowReader::next(PayloadWindow &w, const BufferFn &buffer) {
    w.data = nullptr;
    w.offsets.assign(1, 0);
    w.sources.clear();
    w.meta.clear();
    w.packets.clear();
    w.stats = wm_capture_stats_t{};
    w.stats.struct_size = sizeof(w.stats);
    w.error.clear();
    if (over_) return false;
    return file_ ? next_in_place(w, buffer) : next_sequential(w, buffer);
}

void WindowReader::hand_over(uint64_t number) {
    sequential_->seek(pos_, number);
    file_.reset();
}

bool WindowReader::next_in_place(PayloadWindow &w, const BufferFn &buffer) {
    const uint64_t size = file_->size();
    if (pos_ >= size) {
        // The size the file had when opened: libpcap reads on from here, so
        // records appended since are read too (or it reports the end).
        hand_over(next_number_);
        return next_sequential(w, buffer);
    }
    const uint64_t base = pos_, end = std::min(size, pos_ + window_bytes_);
    // Parts span kRecordsPerPart of the records a part's start falls in, as
    // the last window had them: guessing where a part's first record starts
    // tests every offset up to it (run 376: 64 KB records in parts of 256 KB
    // read at 0.15x libpcap's speed). But a window of many records keeps a
    // part per thread at least: a few big records among many small ones had
    // left most threads idle on the small ones' decoding (a review).
    uint64_t parts = uint64_t{threads_} * kPartsPerThread;
    if (cut_record_bytes_ > 0) {
        const uint64_t by_bytes = static_cast<uint64_t>(double(end - pos_) / (kRecordsPerPart * cut_record_bytes_));
        const uint64_t least = last_records_ >= uint64_t{kRecordsPerThread} * threads_ ? threads_ : 1;
        parts = std::clamp<uint64_t>(by_bytes, least, parts);
    }
    const size_t n = static_cast<size_t>(std::clamp<uint64_t>(end - pos_, 1, parts));
    // Part k holds the records that start in [stop[k-1], stop[k]).
    std::vector<uint64_t> stop(n);
    for (size_t k = 0; k < n; ++k) stop[k] = pos_ + (end - pos_) * (k + 1) / n;
    if (runs_.size() < n) runs_.resize(n);
    // In place: each part reads its own bytes (no read-ahead, which would
    // write bytes another part writes) into the window's buffer; its last
    // record is read on its own (RecordRun::outside) and copied into the
    // buffer by assemble(). The last part reads a little past the window.
    uint8_t *raw = nullptr;
    const uint64_t raw_cap = std::min(size, end + kInPlaceSlack) - base;
    const uint64_t read_end = std::min(size, end + kPartPast);
    if (payloads_in_place_) raw = buffer(raw_cap);
    const auto t0 = std::chrono::steady_clock::now();
    pool_.run(n, [&](size_t k) {
        const uint64_t lo = k == 0 ? pos_ : stop[k - 1], hi = std::min(size, stop[k] + kPartPast);
        RecordRun &run = runs_[k];
        FileSpan span;
        if (raw) {
            span = file_->read_span(lo, k + 1 == n ? read_end : stop[k], raw + (lo - base));
        } else {
            run.span.resize(static_cast<size_t>(hi - lo));
            span = file_->read_span(lo, hi, run.span.data());
        }
        // (Not past what the read gave: a file that shrank has no records there.)
        const uint64_t from =
            k == 0 ? pos_ : file_->guess_record_start(lo, std::max(lo, std::min(stop[k], span.end)), &span);
        decode_in_place(*file_, dlt_, from, stop[k], run, &span, filter_.get(), ports_);
        run.span_file = raw ? 0 : lo;
        if (raw) run.span.clear();
    });
    // Chain the parts: each must begin where the previous one ended.
    uint64_t at = pos_;
    size_t used = n;
    for (size_t k = 0; k < n; ++k) {
        RecordRun &run = runs_[k];
        if (run.begin != at) {
            // A wrong guess (a record that spans the whole part leaves it
            // empty): decoded again from `at`, its bytes read again.
            const uint64_t hi = std::min(size, std::max(at, stop[k]) + kPartPast);
            run.span.resize(static_cast<size_t>(hi - at));
            const FileSpan span = file_->read_span(at, hi, run.span.data());
            decode_in_place(*file_, dlt_, at, std::max(at, stop[k]), run, &span, filter_.get(), ports_);
            run.span_file = at;
            if (at < stop[k]) ++redone_;
        }
        at = run.end;
        if (run.stopped_short) {
            used = k + 1;
            break;
        }
    }
    double run_bytes = 0, square_bytes = 0;
    uint64_t records = 0;
    for (size_t k = 0; k < used; ++k)
        run_bytes += double(runs_[k].end - runs_[k].begin), square_bytes += runs_[k].square_bytes,
            records += runs_[k].records;
    if (run_bytes > 0) cut_record_bytes_ = square_bytes / run_bytes, last_records_ = records;
    pos_ = at;
    used_ = static_cast<unsigned>(used);
    decode_s_ += seconds_since(t0);
    if (runs_[used - 1].stopped_short) {
        // A record libpcap must read itself (cut, refused, or truncated by
        // the end of the file, or the file shrank): it reads on from there.
        uint64_t records = 0;
        for (size_t k = 0; k < used; ++k) records += runs_[k].records;
        hand_over(next_number_ + records);
        if (records == 0) return next_sequential(w, buffer);
    }
    const InPlaceBytes bytes{raw, base, std::max(at, read_end) - base};
    assemble(used, w, buffer, raw ? &bytes : nullptr);
    return true;
}

bool WindowReader::next_sequential(PayloadWindow &w, const BufferFn &buffer) {
    if (runs_.empty()) runs_.resize(1);
    RecordRun &run = runs_[0];
    run.clear();
    const bool more = sequential_->read(UINT64_MAX, window_bytes_, run);
    libpcap_records_ += run.records;
    used_ = 1;
    if (!more || !run.error.empty()) over_ = true;
    if (run.records == 0 && run.error.empty()) {
        over_ = true;
        return false;
    }
    assemble(1, w, buffer);
    return true;
}

// Packs runs [0, n) into one buffer, in order, the runs shared by the
// threads; or, in place (raw: the window's file bytes from `base`, raw_bytes
// of them read), leaves the payloads there: a payload read on its own (a
// record across two parts, or a part decoded again) is copied into raw where
// the file has it.
void WindowReader::assemble(size_t n, PayloadWindow &w, const BufferFn &buffer, const InPlaceBytes *raw) {
    std::vector<size_t> byte_base(n + 1, 0), packet_base(n + 1, 0), tunnel_base(n + 1, 0);
    std::vector<uint64_t> number_base(n, 0);
    for (size_t i = 0; i < n; ++i) {
        const RecordRun &r = runs_[i];
        // Every payload packet of the run, and only those, is in payload_bytes.
        byte_base[i + 1] = byte_base[i] + r.stats.payload_bytes;
        packet_base[i + 1] = packet_base[i] + r.packets.size();
        tunnel_base[i + 1] = tunnel_base[i] + r.tunnels.size();
        if (r.numbered_in_run) number_base[i] = next_number_ - 1;
        next_number_ += r.records;
        add_capture_stats(w.stats, r.stats);
        if (!r.error.empty()) w.error = r.error;
    }
    uint8_t *data = raw ? raw->data : buffer(std::max<size_t>(byte_base[n], 1));
    const auto t0 = std::chrono::steady_clock::now();
    w.data = data;
    w.offsets.resize(packet_base[n] + 1);
    if (raw) w.sources.resize(packet_base[n]);
    w.meta.resize(packet_base[n]);
    w.packets.resize(packet_base[n]);
    w.tunnels.resize(tunnel_base[n]);
    const uintptr_t in_raw = reinterpret_cast<uintptr_t>(data);
    pool_.run(n, [&](size_t i) {
        const RecordRun &r = runs_[i];
        size_t at = byte_base[i];
        for (size_t j = 0; j < r.packets.size(); ++j) {
            const size_t k = packet_base[i] + j;
            wm_packet_t &pkt = w.packets[k];
            pkt = r.packets[j];
            if (raw) {
                const uintptr_t p = reinterpret_cast<uintptr_t>(pkt.payload);
                uint64_t source = p - in_raw; // below wraps high
                if (source >= raw->bytes) {
                    // Read on its own (a record across two parts, or a part
                    // decoded again): copied to where the file has it.
                    const uint64_t file_pos = r.file_offset_of(pkt.payload);
                    source = file_pos - raw->base;
                    if (file_pos == UINT64_MAX || file_pos < raw->base || source + pkt.payload_len > raw->bytes)
                        throw std::logic_error("window reader: a payload outside the window's bytes read in place");
                    std::memcpy(data + source, pkt.payload, pkt.payload_len);
                }
                pkt.payload = data + source;
                w.sources[k] = static_cast<uint32_t>(source);
            } else {
                std::memcpy(data + at, pkt.payload, pkt.payload_len);
                pkt.payload = data + at;
            }
            pkt.number += number_base[i];
            w.meta[k] = wm_payload_meta_t{pkt.proto, pkt.src_port, pkt.dst_port};
            at += pkt.payload_len;
            w.offsets[k + 1] = static_cast<uint32_t>(at);
        }
        for (size_t t = 0; t < r.tunnels.size(); ++t) {
            wm_tunnel_t &carrier = w.tunnels[tunnel_base[i] + t];
            carrier = r.tunnels[t].carrier;
            w.packets[packet_base[i] + r.tunnels[t].packet].tunnel = &carrier;
        }
    });
    assemble_s_ += seconds_since(t0);
}

} // namespace wm::capture
