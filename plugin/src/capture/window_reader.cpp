// plugin/src/capture/window_reader.cpp - see window_reader.h.
#include "capture/window_reader.h"

#include "capture/offline_capture.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <thread>

namespace wm::capture {

namespace {

// Runs fn(0..n-1), one thread each (the caller's thread takes 0); the first
// exception is rethrown after every thread has finished.
template <typename Fn> void run_parallel(size_t n, Fn fn) {
    std::vector<std::exception_ptr> errors(n);
    auto guarded = [&](size_t i) {
        try {
            fn(i);
        } catch (...) {
            errors[i] = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    threads.reserve(n > 0 ? n - 1 : 0);
    for (size_t i = 1; i < n; ++i) threads.emplace_back(guarded, i);
    if (n > 0) guarded(0);
    for (auto &t : threads) t.join();
    for (auto &e : errors)
        if (e) std::rethrow_exception(e);
}

} // namespace

WindowReader::WindowReader(const std::string &path, uint64_t window_bytes, unsigned threads)
    : path_(path), window_bytes_(std::clamp<uint64_t>(window_bytes, 1, uint64_t{1} << 30)),
      threads_(std::max(threads, 1u)), slicer_(path) {
    // Opening with libpcap first gives the error of a plain read for a file
    // that is missing or not a capture; it is also the sequential reader.
    sequential_ = std::make_unique<SliceReader>(path, 0, 1);
    if (slicer_.sliceable() && threads_ > 1) sequential_.reset();
}

WindowReader::~WindowReader() = default;

bool WindowReader::next(PayloadWindow &w, const BufferFn &buffer) {
    w.data = nullptr;
    w.offsets.assign(1, 0);
    w.meta.clear();
    w.packets.clear();
    w.stats = wm_capture_stats_t{};
    w.stats.struct_size = sizeof(w.stats);
    w.error.clear();
    if (over_) return false;
    return sequential_ ? next_sequential(w, buffer) : next_sliced(w, buffer);
}

bool WindowReader::next_sliced(PayloadWindow &w, const BufferFn &buffer) {
    const bool have = walk_.valid() ? walk_.get()
                                    : slicer_.next_window(window_bytes_, threads_, slices_[cur_]);
    if (!have) {
        if (slicer_.at_clean_end()) {
            over_ = true;
            return false;
        }
        // A record the walk is unsure of: libpcap reads on from it alone.
        sequential_ =
            std::make_unique<SliceReader>(path_, slicer_.rest_offset(), slicer_.rest_number());
        return next_sequential(w, buffer);
    }
    const std::vector<FileSlice> &slices = slices_[cur_];
    cur_ ^= 1;
    walk_ = std::async(std::launch::async, [this, k = cur_] {
        return slicer_.next_window(window_bytes_, threads_, slices_[k]);
    });
    const size_t n = slices.size();
    if (parts_.size() < n) parts_.resize(n);
    run_parallel(n, [&](size_t i) {
        DecodedRecords &part = parts_[i];
        part.clear();
        try {
            SliceReader r(path_, slices[i].begin, slices[i].first_number);
            r.read(slices[i].records, SIZE_MAX, part);
        } catch (const CaptureError &e) {
            part.error = e.what();
        }
    });
    used_ = static_cast<unsigned>(n);
    // A plain read stops at the first bad record: later slices never happen.
    size_t keep = n;
    for (size_t i = 0; i < n; ++i)
        if (!parts_[i].error.empty()) {
            keep = i + 1;
            over_ = true;
            break;
        }
    assemble(keep, w, buffer);
    return true;
}

bool WindowReader::next_sequential(PayloadWindow &w, const BufferFn &buffer) {
    if (parts_.empty()) parts_.resize(1);
    DecodedRecords &part = parts_[0];
    part.clear();
    const bool more = sequential_->read(UINT64_MAX, window_bytes_, part);
    used_ = 1;
    if (!more || !part.error.empty()) over_ = true;
    if (part.stats.packets == 0 && part.error.empty()) {
        over_ = true;
        return false;
    }
    assemble(1, w, buffer);
    return true;
}

// Packs parts [0, n) into one buffer, in order, each part's copy on its own
// thread (one part: on this thread).
void WindowReader::assemble(size_t n, PayloadWindow &w, const BufferFn &buffer) {
    std::vector<size_t> byte_base(n + 1, 0), packet_base(n + 1, 0);
    for (size_t i = 0; i < n; ++i) {
        byte_base[i + 1] = byte_base[i] + parts_[i].bytes.size();
        packet_base[i + 1] = packet_base[i] + parts_[i].packets.size();
        add_capture_stats(w.stats, parts_[i].stats);
        if (!parts_[i].error.empty()) w.error = parts_[i].error;
    }
    uint8_t *data = buffer(std::max<size_t>(byte_base[n], 1));
    w.data = data;
    w.offsets.resize(packet_base[n] + 1);
    w.meta.resize(packet_base[n]);
    w.packets.resize(packet_base[n]);
    run_parallel(n, [&](size_t i) {
        const DecodedRecords &p = parts_[i];
        if (!p.bytes.empty()) std::memcpy(data + byte_base[i], p.bytes.data(), p.bytes.size());
        size_t start = 0;
        for (size_t j = 0; j < p.packets.size(); ++j) {
            const size_t k = packet_base[i] + j;
            wm_packet_t &pkt = w.packets[k];
            pkt = p.packets[j];
            pkt.payload = data + byte_base[i] + start;
            w.meta[k] = wm_payload_meta_t{pkt.proto, pkt.src_port, pkt.dst_port};
            start = p.ends[j];
            w.offsets[k + 1] = static_cast<uint32_t>(byte_base[i] + start);
        }
    });
}

} // namespace wm::capture
