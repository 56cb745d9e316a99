// plugin/src/capture/worker_pool.h - a fixed set of threads that run one
// indexed job at a time, so that reading a window does not start and join
// a thread per part (twice per window, dozens of windows per capture).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wm::capture {

class WorkerPool {
  public:
    // Up to `width` parallel calls per run(): the caller's thread and
    // width - 1 workers.
    explicit WorkerPool(size_t width);
    ~WorkerPool();
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    // Calls fn(i) once for every i in [0, n) and returns when all are done;
    // an exception thrown is rethrown then. Thread t < min(n, width) runs
    // job t (job 0 on the caller's thread), then each takes the next job not
    // yet taken: with more jobs than threads, a thread slowed down (by a
    // busy core, a heavy part) takes fewer of them.
    void run(size_t n, const std::function<void(size_t)> &fn);
    // Threads of a run, the caller's included.
    size_t width() const { return workers_.size() + 1; }

    // Inside a job: the index of the thread running it, in [0, width) (0:
    // run()'s caller), so a job can use per-thread state without locks.
    static size_t this_thread();

  private:
    void work(size_t index);
    void run_from(size_t thread, const std::function<void(size_t)> &fn);

    std::vector<std::thread> workers_;
    std::mutex mu_;
    std::condition_variable start_, done_;
    const std::function<void(size_t)> *job_ = nullptr;
    size_t job_size_ = 0;
    std::atomic<size_t> next_{0}; // the next job to take, past the threads' first ones
    size_t pending_ = 0;
    unsigned long long generation_ = 0;
    bool stop_ = false;
    std::vector<std::exception_ptr> errors_;
};

} // namespace wm::capture
