// plugin/src/stream/live_loop.h - live capture into the pipeline with a
// latency bound.
//
// A batch is scanned when it is full (the pipeline's size bound) or when its
// first packet is max_latency_ms old, whichever comes first; the loop never
// sleeps past that deadline. On stop it keeps reading until the capture
// buffer is empty, ends every flow and scans every pending batch, so every
// packet captured before the stop is scanned and its alerts delivered.
#pragma once

#include "stream/pcap_source.h"
#include "stream/stream_pipeline.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace wm::stream {

struct LiveLoopStats {
    uint64_t by_latency = 0, at_stop = 0;
    uint64_t latency_samples = 0;
    double p50_ms = 0, p99_ms = 0, max_ms = 0;
};

// Per-batch latency: capture clock when the batch got its first entry to
// alerts delivered (so it includes time spent in the kernel buffer). The
// batch flushed by the stop is left out: it waited for the stop, not the bound.
// Keeps a uniform sample of at most kMaxSamples batches (bounded memory).
class LatencyRecorder final : public BatchObserver {
  public:
    static constexpr size_t kMaxSamples = 1 << 20;
    void batch_done(int64_t first_packet_usec) override;
    void summarize(LiveLoopStats &st);

  private:
    std::vector<double> ms_;
    uint64_t seen_ = 0, rng_ = 0x9e3779b97f4a7c15ull;
    double max_ = 0;
};

// Runs until stop becomes true or the alert callback stops the pipeline.
// Throws PcapError when libpcap fails.
void run_live(LiveCapture &cap, StreamPipeline &pl, unsigned max_latency_ms,
              const std::atomic<bool> &stop, LiveLoopStats &st);

} // namespace wm::stream
