#include "stream/live_loop.h"

#include <pcap/pcap.h>

#include <algorithm>
#include <chrono>

namespace wm::stream {
namespace {

int64_t wall_usec() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

int64_t steady_usec() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Frames one dispatch takes at most: libpcap's "all that is ready" (-1)
// never returns while packets come faster than they are scanned, and a stop
// or a deadline is only looked at between dispatches.
constexpr int kDispatchMax = 4096;

struct FrameCtx {
    StreamPipeline *pl;
    LiveCapture *cap;
    int dlt;
};

void on_frame(void *ctx, const pcap_pkthdr *h, const uint8_t *frame) {
    auto *c = static_cast<FrameCtx *>(ctx);
    // The callback stopped the run: the rest of this dispatch stays in the
    // ring for a later run, not consumed unscanned.
    if (!c->pl->frame(c->dlt, frame, h->caplen, h->len, h->ts.tv_sec, h->ts.tv_usec)) c->cap->break_loop();
}

} // namespace

void LatencyRecorder::batch_done(int64_t first_packet_usec) {
    const double ms = std::max<int64_t>(0, wall_usec() - first_packet_usec) / 1000.0;
    max_ = std::max(max_, ms);
    ++seen_;
    if (ms_.size() < kMaxSamples) {
        ms_.push_back(ms);
        return;
    }
    rng_ ^= rng_ << 13, rng_ ^= rng_ >> 7, rng_ ^= rng_ << 17; // xorshift: reservoir sampling
    const uint64_t slot = rng_ % seen_;
    if (slot < kMaxSamples) ms_[slot] = ms;
}

void LatencyRecorder::summarize(LiveLoopStats &st) {
    st.latency_samples = seen_;
    st.max_ms = max_;
    if (ms_.empty()) return;
    auto pct = [&](double q) {
        const size_t k = std::min(ms_.size() - 1, static_cast<size_t>(q * (ms_.size() - 1) + 0.5));
        std::nth_element(ms_.begin(), ms_.begin() + k, ms_.end());
        return ms_[k];
    };
    st.p50_ms = pct(0.50);
    st.p99_ms = pct(0.99);
}

void run_live(LiveCapture &cap, StreamPipeline &pl, unsigned max_latency_ms,
              const std::atomic<bool> &stop, LiveLoopStats &st) {
    FrameCtx ctx{&pl, &cap, cap.link_type()};
    const int64_t bound_us = int64_t(max_latency_ms) * 1000;
    while (!stop.load(std::memory_order_relaxed) && !pl.stopped()) {
        int wait_ms = 100; // also how soon a stop is noticed without a signal
        if (pl.pending())
            wait_ms = static_cast<int>(std::clamp<int64_t>(
                (pl.pending_since_usec() + bound_us - wall_usec()) / 1000, 0, 100));
        cap.poll(wait_ms, kDispatchMax, on_frame, &ctx);
        if (pl.pending() && wall_usec() - pl.pending_since_usec() >= bound_us) {
            ++st.by_latency;
            pl.flush();
        }
    }
    // Drain: everything the kernel captured before the stop is scanned. The
    // kernel hands over a partly filled block only when its timer (the
    // capture's timeout, which may fire an eighth late) retires it, so the
    // drain lasts one such period at least (none in immediate mode), then
    // until two empty reads in a row (one may be a breakloop); traffic that
    // never pauses is cut off a second after that.
    const int64_t block_timer_ms = cap.immediate() ? 0 : cap.timeout_ms() + cap.timeout_ms() / 8 + 10;
    const int64_t settled = steady_usec() + block_timer_ms * 1000, give_up = settled + 1000000;
    for (int empty = 0; !pl.stopped() && (empty < 2 || steady_usec() < settled) && steady_usec() < give_up;) {
        const int wait_ms = static_cast<int>(std::clamp<int64_t>((settled - steady_usec()) / 1000, 0, 100));
        empty = cap.poll(wait_ms, kDispatchMax, on_frame, &ctx) > 0 ? 0 : empty + 1;
    }
    const uint64_t before = pl.batches();
    pl.observe(nullptr);
    pl.finish();
    if (pl.batches() > before) ++st.at_stop;
}

} // namespace wm::stream
