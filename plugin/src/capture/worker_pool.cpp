// plugin/src/capture/worker_pool.cpp - see worker_pool.h.
#include "capture/worker_pool.h"

#include <algorithm>
#include <stdexcept>

namespace wm::capture {

namespace {
thread_local size_t t_thread = 0;
} // namespace

size_t WorkerPool::this_thread() { return t_thread; }

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
        run_from(index, *job);
        std::lock_guard<std::mutex> lock(mu_);
        if (--pending_ == 0) done_.notify_one();
    }
}

// Thread `thread` runs job `thread`, then takes the jobs past the threads'
// first ones until none is left; its first exception is kept.
void WorkerPool::run_from(size_t thread, const std::function<void(size_t)> &fn) {
    const size_t outer = t_thread; // run()'s caller may be a job of another pool
    t_thread = thread;
    for (size_t i = thread; i < job_size_; i = next_.fetch_add(1)) {
        try {
            fn(i);
        } catch (...) {
            if (!errors_[thread]) errors_[thread] = std::current_exception();
        }
    }
    t_thread = outer;
}

void WorkerPool::run(size_t n, const std::function<void(size_t)> &fn) {
    if (n == 0) return;
    const size_t threads = std::min(n, workers_.size() + 1);
    std::fill(errors_.begin(), errors_.end(), nullptr);
    next_.store(threads);
    {
        // Under the lock even for a job of one: a worker that an earlier run
        // of fewer jobs than threads did not need may only now wake and read
        // job_size_ (ThreadSanitizer caught the race; runs that small come
        // from windows of a few bytes or windows that stop short).
        std::lock_guard<std::mutex> lock(mu_);
        job_size_ = n;
        if (threads > 1) {
            job_ = &fn;
            pending_ = threads - 1;
            ++generation_;
        }
    }
    if (threads > 1) start_.notify_all();
    run_from(0, fn);
    if (threads > 1) {
        std::unique_lock<std::mutex> lock(mu_);
        done_.wait(lock, [&] { return pending_ == 0; });
    }
    for (auto &e : errors_)
        if (e) std::rethrow_exception(e);
}

} // namespace wm::capture
