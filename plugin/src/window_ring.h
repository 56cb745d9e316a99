// plugin/src/window_ring.h - replay's window buffers passed between its
// reader thread and its scanning thread (replay_packets.cpp).
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>

namespace wm {

// Window buffers passed between the reader thread and the scanning thread:
// free ones go to the reader, which fills them in file order; filled ones
// come back to the scanner in that order.
class WindowRing {
  public:
    // Buffers [0, free_now) are free from the start; the caller hands the
    // others over with release(k) once they exist.
    explicit WindowRing(unsigned windows, unsigned free_now = ~0u) {
        for (unsigned k = 0; k < windows && k < free_now; ++k) free_.push_back(k);
    }

    // What fill(k) did with buffer k.
    enum Fill { kOver, kFilled, kFilledLast };

    // Reader thread: fill(k) reads the next window into buffer k: kOver when
    // the file is over (nothing read), kFilledLast for a window that ends
    // with an error. An exception is handed to the scanner in the place of
    // the window it cost.
    template <typename FillFn> void produce(FillFn fill) {
        for (;;) {
            unsigned k = 0;
            {
                std::unique_lock<std::mutex> lock(mu_);
                cv_.wait(lock, [&] { return stop_ || !free_.empty(); });
                if (stop_) return;
                k = free_.front();
                free_.pop_front();
            }
            Fill got = kOver;
            std::exception_ptr e;
            try {
                got = fill(k);
            } catch (...) {
                e = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(mu_);
            if (e) error_ = e;
            if (got != kOver) filled_.push_back(k);
            else free_.push_back(k);
            const bool more = !e && got == kFilled;
            if (!more) over_ = true;
            cv_.notify_all();
            if (!more) return;
        }
    }

    // Scanner: the next filled window, in file order; false once the reader
    // is over and none is left (rethrows the reader's exception then).
    bool next_filled(unsigned *k) {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !filled_.empty() || over_; });
        if (filled_.empty()) {
            if (error_) std::rethrow_exception(error_);
            return false;
        }
        *k = filled_.front();
        filled_.pop_front();
        return true;
    }

    void release(unsigned k) {
        std::lock_guard<std::mutex> lock(mu_);
        free_.push_back(k);
        cv_.notify_all();
    }

    // Ends the reader thread at its next window.
    void stop() {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
        cv_.notify_all();
    }

  private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<unsigned> free_, filled_;
    bool over_ = false, stop_ = false;
    std::exception_ptr error_;
};

} // namespace wm
