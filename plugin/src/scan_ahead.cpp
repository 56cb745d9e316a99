// plugin/src/scan_ahead.cpp - see scan_ahead.h.
#include "scan_ahead.h"

namespace wm {

ScanAhead::ScanAhead(Scanner &sc, Wanted wanted) : sc_(sc), wanted_(wanted), thread_([this] { run(); }) {}

ScanAhead::~ScanAhead() {
    cancel_and_wait();
    {
        std::lock_guard<std::mutex> lock(mu_);
        quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void ScanAhead::submit(const BatchView &b, AfterScan after) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        Job &j = jobs_.emplace_back();
        j.batch = b;
        j.after = std::move(after);
        if (!spare_.empty()) {
            j.result.matches = std::move(spare_.back());
            spare_.pop_back();
        }
    }
    cv_.notify_all();
}

void ScanAhead::recycle(std::vector<Match> &&buffer) {
    std::lock_guard<std::mutex> lock(mu_);
    if (spare_.size() < 4) spare_.push_back(std::move(buffer));
}

ScanAhead::Result ScanAhead::take_oldest() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !jobs_.empty() && jobs_.front().done; });
    Result r = std::move(jobs_.front().result);
    jobs_.pop_front();
    return r;
}

void ScanAhead::cancel_and_wait() noexcept {
    std::unique_lock<std::mutex> lock(mu_);
    cancel_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return !busy_; });
    jobs_.clear();
    cancel_ = false;
}

void ScanAhead::run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
        Job *job = nullptr;
        cv_.wait(lock, [&] {
            if (quit_) return true;
            for (Job &j : jobs_)
                if (!j.done) return (job = &j), true;
            return false;
        });
        if (!job) return; // quit
        if (cancel_) {
            job->done = true;
            job->result.rc = WM_SCAN_TERMINATED;
            continue;
        }
        busy_ = true;
        const BatchView b = job->batch;
        const AfterScan after = std::move(job->after);
        Result &r = job->result; // a deque's elements stay put while others are added
        lock.unlock();
        r.matches.clear();
        try {
            r.rc = sc_.scan_delivering(
                b,
                [&](const Match *m, size_t n) {
                    r.matches.insert(r.matches.end(), m, m + n);
                    return !cancel_.load(std::memory_order_relaxed);
                },
                wanted_);
            if (r.rc == WM_VERIFY_MISMATCH) {
                r.gpu_only = sc_.gpu_only();
                r.cpu_only = sc_.cpu_only();
            }
            if (after && r.rc != WM_SCAN_TERMINATED) after(r.matches);
        } catch (...) {
            r.error = std::current_exception();
        }
        lock.lock();
        job->done = true;
        busy_ = false;
        cv_.notify_all();
    }
}

} // namespace wm
