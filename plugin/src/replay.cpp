#include "replay.h"

#include "capture/offline_capture.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <unordered_map>

namespace wm {

namespace {

using Clock = std::chrono::steady_clock;

// Payloads of one batch, copied out of libpcap's buffer (which the next
// read overwrites), with the packet each came from.
struct PendingBatch {
    std::vector<uint8_t> data;
    std::vector<uint32_t> offsets{0};
    std::vector<wm_payload_meta_t> meta;
    std::vector<wm_packet_t> packets;

    size_t count() const { return packets.size(); }
    void add(const wm_packet_t &p) {
        data.insert(data.end(), p.payload, p.payload + p.payload_len);
        offsets.push_back(static_cast<uint32_t>(data.size()));
        meta.push_back(wm_payload_meta_t{p.proto, p.src_port, p.dst_port});
        packets.push_back(p);
    }
    void clear() {
        data.clear();
        offsets.assign(1, 0);
        meta.clear();
        packets.clear();
    }
};

class Replayer {
  public:
    Replayer(Scanner &sc, const ReplayCallbacks &cb, wm_replay_stats_t &st)
        : sc_(sc), cb_(cb), st_(st) {
        bool gpu = sc.backend() == WM_BACKEND_GPU;
        // GPU batches must be large to amortise PCIe and launch latency; CPU
        // batches small to keep alerts flowing.
        max_bytes_ = gpu ? (32u << 20) : (1u << 20);
        max_payloads_ = gpu ? 262144 : 4096;
    }

    bool full() const {
        return batch_.data.size() >= max_bytes_ || batch_.count() >= max_payloads_;
    }
    PendingBatch &batch() { return batch_; }

    // Scans the pending batch and delivers its alerts; false when the alert
    // callback asked to stop.
    bool flush() {
        if (batch_.count() == 0)
            return true;
        for (size_t i = 0; i < batch_.count(); ++i)
            batch_.packets[i].payload = batch_.data.data() + batch_.offsets[i];
        BatchView view{batch_.data.data(), batch_.offsets.data(), batch_.count(),
                       batch_.meta.data()};
        int rc = sc_.scan(view, matches_);
        st_.batches++;
        if (rc == WM_VERIFY_MISMATCH)
            record_mismatches();
        bool go_on = deliver();
        batch_.clear();
        return go_on;
    }

    const std::vector<std::string> &mismatches() const { return mismatch_lines_; }

  private:
    void record_mismatches() {
        auto note = [&](const std::vector<Match> &v, const char *who) {
            for (const auto &m : v) {
                st_.verify_mismatches++;
                if (mismatch_lines_.size() >= 50)
                    continue;
                mismatch_lines_.push_back(fmt::format(
                    "verify mismatch: packet {} (batch {}, payload {}) rule {} [{}, {}): {} only",
                    batch_.packets[m.payload].number, st_.batches, m.payload,
                    sc_.ruleset().rules()[m.rule].id, m.start, m.end, who));
            }
        };
        note(sc_.gpu_only(), "GPU");
        note(sc_.cpu_only(), "Hyperscan");
    }

    // One alert per (payload, rule): the first occurrence.
    bool deliver() {
        bool positions = sc_.output_mode() == WM_OUTPUT_POSITIONS;
        size_t i = 0;
        while (i < matches_.size()) {
            uint32_t p = matches_[i].payload;
            seen_.clear();
            for (; i < matches_.size() && matches_[i].payload == p; ++i) {
                const Match &m = matches_[i];
                if (!seen_.emplace(m.rule, true).second)
                    continue;
                wm_alert_t a{};
                a.struct_size = sizeof(a);
                a.packet = &batch_.packets[p];
                a.rule_id = sc_.ruleset().rules()[m.rule].id;
                a.has_offset = positions ? 1 : 0;
                a.start = m.start;
                a.end = m.end;
                st_.alerts++;
                if (cb_.on_alert && cb_.on_alert(&a, cb_.alert_ctx) != 0)
                    return false;
            }
        }
        return true;
    }

    Scanner &sc_;
    const ReplayCallbacks &cb_;
    wm_replay_stats_t &st_;
    size_t max_bytes_, max_payloads_;
    PendingBatch batch_;
    std::vector<Match> matches_;
    std::unordered_map<uint32_t, bool> seen_;
    std::vector<std::string> mismatch_lines_;
};

} // namespace

int replay_file(Scanner &sc, const std::string &path, const ReplayCallbacks &cb,
                wm_replay_stats_t &stats, std::string *error) {
    auto t0 = Clock::now();
    auto last_progress = t0;
    capture::OfflineCapture cap(path);
    Replayer rp(sc, cb, stats);
    int status = WM_SUCCESS;
    auto finish = [&]() {
        stats.capture = cap.stats();
        stats.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        stats.gbit_per_s = stats.seconds > 0
                               ? stats.capture.payload_bytes * 8.0 / stats.seconds / 1e9
                               : 0.0;
    };
    try {
        try {
            wm_packet_t pkt{};
            pkt.struct_size = sizeof(pkt);
            while (cap.next(&pkt) == WM_SUCCESS) {
                rp.batch().add(pkt);
                if (rp.full() && !rp.flush()) {
                    status = WM_SCAN_TERMINATED;
                    break;
                }
                auto now = Clock::now();
                if (cb.on_progress && now - last_progress >= std::chrono::seconds(1)) {
                    last_progress = now;
                    cb.on_progress(cap.stats().packets, cap.stats().bytes,
                                   std::chrono::duration<double>(now - t0).count(),
                                   cb.progress_ctx);
                }
            }
        } catch (const capture::CaptureError &e) {
            // Corrupt record: scan what was read before it, then report.
            status = WM_CAPTURE_ERROR;
            if (error)
                *error = e.what();
        }
        if (status != WM_SCAN_TERMINATED && !rp.flush())
            status = WM_SCAN_TERMINATED;
    } catch (...) {
        finish(); // an engine failure still reports what was counted so far
        throw;
    }
    finish();
    if (status == WM_SUCCESS && !rp.mismatches().empty()) {
        status = WM_VERIFY_MISMATCH;
        if (error) {
            *error = fmt::format("{} verify mismatches; first ones:", stats.verify_mismatches);
            for (const auto &l : rp.mismatches())
                *error += "\n" + l;
        }
    }
    return status;
}

} // namespace wm
