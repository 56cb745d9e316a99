// Scanner::submit_set / collect_set: wm_scan_batch_set pipelined across
// batches. Only the GPU fast path leaves work in flight (the matcher's
// submit_set_pairs); every other path scans at submit and queues the result,
// so a host written for the pipeline runs unchanged on the CPU backend.
#include "scanner.h"

#include "gpu/gpu_matcher.h"
#include "gpu_engine.h"
#include "status_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace wm {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

void Scanner::refuse_while_pending(const char *what) const {
    if (!pending_.empty())
        throw StatusError(WM_INVALID,
                          fmt::format("{}: {} batch(es) submitted with wm_scan_batch_set_submit are not "
                                      "collected yet; collect them first",
                                      what, pending_.size()));
}

void Scanner::keep_result(PendingSet &p, int rc) {
    p.on_gpu = false;
    p.rc = rc;
    p.hits.swap(set_hits_);
    p.gpu_only = gpu_only_;
    p.cpu_only = cpu_only_;
}

// The GPU failed with batches in flight (the matcher has dropped them). Under
// `auto` the scanner moves to the CPU and rescans each of them there (their
// memory is still the caller's until collected); otherwise they are lost, and
// the error says how many.
void Scanner::pipeline_gpu_failed(const std::exception &e) {
    if (!fallback_allowed_) drop_pending_after_gpu_failure(e.what());
    fall_back_to_cpu(e.what());
    rescan_in_flight_on_cpu();
}

// Backend gpu, a GPU failure: the matcher dropped the batches in flight, and
// collect hands results out in submission order, so every pending batch goes
// (those scanned at submit too), counted in the error.
void Scanner::drop_pending_after_gpu_failure(const std::string &why) {
    size_t in_flight = 0;
    for (const auto &p : pending_)
        in_flight += p.on_gpu;
    const size_t dropped = pending_.size();
    pending_.clear();
    throw StatusError(WM_GPU_ERROR,
                      fmt::format("{} ({} submitted batch(es) dropped, {} of them in flight on the GPU; results "
                                  "not delivered)",
                                  why, dropped, in_flight));
}

// The scanner is on the CPU now: the batches that were in flight on the GPU
// are scanned again here, in submission order.
void Scanner::rescan_in_flight_on_cpu() {
    for (auto &p : pending_) {
        if (!p.on_gpu)
            continue;
        uncount_batch(p.batch); // counted at submit; scan_set_general counts it again
        keep_result(p, scan_set_general(p.batch));
    }
}

void Scanner::submit_set(const BatchView &batch) {
    if (pending_.size() >= kPendingSetBatches)
        throw StatusError(WM_INVALID,
                          fmt::format("wm_scan_batch_set_submit: {} batches already submitted and not "
                                      "collected; collect one first",
                                      pending_.size()));
    PendingSet p;
    p.batch = batch;
    if (gpu_fast_path()) {
        auto t0 = std::chrono::steady_clock::now();
        try {
            static_cast<GpuEngine *>(primary_.get())->submit_set_hits(batch);
            p.on_gpu = true;
            count_batch(batch, 0, seconds_since(t0)); // matches added at collect
            pending_.push_back(std::move(p));
            return;
        } catch (const gpu::GpuError &e) {
            pipeline_gpu_failed(e); // throws unless the scanner moved to the CPU
        }
    }
    // Scanned at submit (a batch sampled for verification, or no fast path).
    // A GPU failure in this scan also drops the batches in flight (the
    // matcher abandons them): under `auto` the scan moved the scanner to the
    // CPU, and they are rescanned there; under `gpu` they are dropped.
    const bool in_flight = std::any_of(pending_.begin(), pending_.end(), [](const PendingSet &q) { return q.on_gpu; });
    try {
        keep_result(p, scan_set_general(batch));
    } catch (const StatusError &e) {
        if (in_flight && e.code() == WM_GPU_ERROR) drop_pending_after_gpu_failure(e.what());
        throw;
    }
    if (in_flight && backend_ != WM_BACKEND_GPU) rescan_in_flight_on_cpu();
    pending_.push_back(std::move(p));
}

int Scanner::collect_set(const wm_set_hit_t **hits, size_t *count) {
    *hits = nullptr;
    *count = 0;
    if (pending_.empty())
        throw StatusError(WM_INVALID, "wm_scan_batch_set_collect: no batch submitted");
    if (pending_.front().on_gpu) {
        if (backend_ != WM_BACKEND_GPU) // every path that leaves the GPU rescans what was in flight
            throw std::logic_error("collect_set: a batch still marked on the GPU after the scanner left it");
        auto t0 = std::chrono::steady_clock::now();
        size_t n = 0;
        try {
            n = static_cast<GpuEngine *>(primary_.get())->collect_set_hits(hits);
        } catch (const gpu::GpuError &e) {
            pipeline_gpu_failed(e);
            return collect_set(hits, count); // rescanned on the CPU
        }
        stats_.engine_seconds += seconds_since(t0);
        stats_.matches += n;
        gpu_only_.clear();
        cpu_only_.clear();
        pending_.pop_front();
        *count = n;
        return WM_SUCCESS;
    }
    PendingSet &p = pending_.front();
    collected_.swap(p.hits);
    gpu_only_.swap(p.gpu_only);
    cpu_only_.swap(p.cpu_only);
    const int rc = p.rc;
    pending_.pop_front();
    *hits = collected_.data();
    *count = collected_.size();
    return rc;
}

} // namespace wm
