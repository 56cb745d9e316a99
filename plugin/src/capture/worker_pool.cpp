// plugin/src/capture/worker_pool.cpp - see worker_pool.h.
#include "capture/worker_pool.h"

#include <algorithm>
#include <stdexcept>

namespace wm::capture {

WorkerPool::WorkerPool(size_t width) : errors_(std::max<size_t>(width, 1)) {
    for (size_t i = 1; i < width; ++i) workers_.emplace_back([this, i] { work(i); });
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    start_.notify_all();
    for (auto &t : workers_) t.join();
}

void WorkerPool::work(size_t index) {
    unsigned long long seen = 0;
    for (;;) {
        const std::function<void(size_t)> *job;
        {
            std::unique_lock<std::mutex> lock(mu_);
            start_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            if (index >= job_size_) continue; // not needed this time
            job = job_;
        }
        try {
            (*job)(index);
        } catch (...) {
            errors_[index] = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(mu_);
        if (--pending_ == 0) done_.notify_one();
    }
}

void WorkerPool::run(size_t n, const std::function<void(size_t)> &fn) {
    if (n == 0) return;
    if (n > workers_.size() + 1) throw std::invalid_argument("WorkerPool::run: more jobs than threads");
    std::fill(errors_.begin(), errors_.end(), nullptr);
    if (n > 1) {
        {
            std::lock_guard<std::mutex> lock(mu_);
            job_ = &fn;
            job_size_ = n;
            pending_ = n - 1;
            ++generation_;
        }
        start_.notify_all();
    }
    try {
        fn(0);
    } catch (...) {
        errors_[0] = std::current_exception();
    }
    if (n > 1) {
        std::unique_lock<std::mutex> lock(mu_);
        done_.wait(lock, [&] { return pending_ == 0; });
    }
    for (auto &e : errors_)
        if (e) std::rethrow_exception(e);
}

} // namespace wm::capture
