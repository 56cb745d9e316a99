// plugin/src/scan_ahead.h - batches scanned in order on a thread of their
// own, each into a buffer of its matches, so the caller delivers one batch's
// alerts while the next one is scanned.
//
// Replay in positions mode did both on one thread: on merged-zeek x32 with
// the ET Open set (H100 host, run 188) 0.14 s of scanning (the device and
// the expansion) and then 0.09 s of alerts (one per (payload, rule)).
// The scanner is used by this thread only while batches are in flight.
#pragma once

#include "scanner.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wm {

class ScanAhead {
  public:
    // What Scanner::scan_delivering gave for one batch.
    struct Result {
        int rc = WM_SUCCESS;
        std::vector<Match> matches;            // in delivery order
        std::vector<Match> gpu_only, cpu_only; // with WM_VERIFY_MISMATCH: the scanner's differences
        std::exception_ptr error;              // the scan threw this
    };

    ScanAhead(Scanner &sc, Wanted wanted);
    ~ScanAhead(); // cancels what is queued and joins the thread
    ScanAhead(const ScanAhead &) = delete;
    ScanAhead &operator=(const ScanAhead &) = delete;

    // Runs on the scanning thread on a batch's matches once it is scanned
    // (not when the scan threw or was cancelled).
    using AfterScan = std::function<void(std::vector<Match> &)>;
    // Queues batch b (its memory must stay valid until the batch is taken
    // or idle() has returned).
    void submit(const BatchView &b, AfterScan after = nullptr);
    // Waits for the oldest queued batch and hands over its result (its
    // exception is left for the caller to rethrow).
    Result take_oldest();
    // Gives a taken result's match buffer back for a later batch.
    void recycle(std::vector<Match> &&buffer);
    // Makes the scan running stop early and skips the queued ones, then
    // waits until the thread is idle; the results are dropped.
    void cancel_and_wait() noexcept;

  private:
    struct Job {
        BatchView batch{};
        AfterScan after;
        bool done = false;
        Result result;
    };
    void run();

    Scanner &sc_;
    const Wanted wanted_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Job> jobs_;   // oldest first; the thread works on the first not done
    bool busy_ = false;      // the thread is scanning
    bool quit_ = false;
    std::atomic<bool> cancel_{false};
    std::vector<std::vector<Match>> spare_; // match buffers of taken results, reused
    std::thread thread_;
};

} // namespace wm
