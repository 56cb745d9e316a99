// gpu/bench_thread_pool.h - the benchmarks' CPU peers run on threads started
// once. Starting 16 threads inside each timed call cost ~0.4 ms (run 366),
// which at a 1 MB text made Hyperscan look several times slower than it is.
// What stays in a timed call is waking the waiting threads (a condition
// variable: tens of microseconds).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wm::gpu::bench {

class ThreadPool {
  public:
    // `threads` in all: the caller of run() is thread 0, threads - 1 wait.
    explicit ThreadPool(int threads) {
        for (int t = 1; t < threads; ++t) workers_.emplace_back([this, t] { work(t); });
    }
    ~ThreadPool() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto &w : workers_) w.join();
    }
    ThreadPool(const ThreadPool &) = delete;
    ThreadPool &operator=(const ThreadPool &) = delete;

    int size() const { return static_cast<int>(workers_.size()) + 1; }

    // f(t) for every t in [0, n), n <= size(), t = 0 on the calling thread;
    // returns when all are done, rethrowing the first exception.
    void run(int n, const std::function<void(int)> &f) {
        {
            std::lock_guard<std::mutex> lock(m_);
            job_ = &f, n_ = n, pending_ = n > 0 ? n - 1 : 0, error_ = nullptr;
            ++generation_;
        }
        wake_.notify_all();
        if (n > 0) guarded(f, 0);
        std::unique_lock<std::mutex> lock(m_);
        done_.wait(lock, [&] { return pending_ == 0; });
        if (error_) std::rethrow_exception(error_);
    }

  private:
    void guarded(const std::function<void(int)> &f, int t) {
        try {
            f(t);
        } catch (...) {
            std::lock_guard<std::mutex> lock(m_);
            if (!error_) error_ = std::current_exception();
        }
    }
    void work(int t) {
        uint64_t seen = 0;
        for (;;) {
            const std::function<void(int)> *job;
            {
                std::unique_lock<std::mutex> lock(m_);
                wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
                if (stop_) return;
                seen = generation_;
                if (t >= n_) continue;
                job = job_;
            }
            guarded(*job, t);
            std::lock_guard<std::mutex> lock(m_);
            if (--pending_ == 0) done_.notify_one();
        }
    }

    std::mutex m_;
    std::condition_variable wake_, done_;
    const std::function<void(int)> *job_ = nullptr;
    int n_ = 0, pending_ = 0;
    uint64_t generation_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
    std::vector<std::thread> workers_;
};

} // namespace wm::gpu::bench
