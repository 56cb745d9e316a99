// plugin/src/in_order_handoff.cpp - see in_order_handoff.h.
#include "in_order_handoff.h"

#include <thread>

namespace wm {

namespace {
// ready flags of a piece.
constexpr uint8_t kPending = 0, kMade = 1, kFailed = 2;
} // namespace

bool hand_over_in_order(capture::WorkerPool &pool, size_t n, std::vector<std::atomic<uint8_t>> &ready,
                        CallerRole caller, const std::function<void(size_t)> &make,
                        const std::function<bool(size_t)> &hand) {
    if (n == 0) return true;
    if (ready.size() < n) ready = std::vector<std::atomic<uint8_t>>(n); // atomics do not move: made anew
    for (size_t k = 0; k < n; ++k) ready[k].store(kPending, std::memory_order_relaxed);
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    // Makes the next piece nobody took; false when none is left.
    auto make_next = [&] {
        const size_t k = next.fetch_add(1);
        if (k >= n) return false;
        uint8_t state = kFailed; // unless made (the exception comes back from run())
        struct Mark {           // a failed piece stops the rest
            std::atomic<uint8_t> &flag;
            const uint8_t &state;
            std::atomic<bool> &stop;
            ~Mark() {
                if (state == kFailed) stop.store(true, std::memory_order_relaxed);
                flag.store(state, std::memory_order_release);
            }
        } mark{ready[k], state, stop};
        // After a failure the piece is not made, and stays flagged failed: it
        // must never be handed over (it would hold the last batch's results).
        if (stop.load(std::memory_order_relaxed)) return true;
        make(k);
        state = kMade;
        return true;
    };
    // A pool of one thread has no one else to make the pieces.
    const bool helps = caller == CallerRole::MakesWhileWaiting || pool.width() == 1;
    bool complete = true;
    pool.run(pool.width(), [&](size_t job) {
        if (job > 0) {
            while (make_next()) {
            }
            return;
        }
        try {
            for (size_t k = 0; k < n; ++k) {
                uint8_t state;
                for (unsigned spins = 0; (state = ready[k].load(std::memory_order_acquire)) == kPending; ++spins)
                    if (!(helps && make_next()) && spins > 64) std::this_thread::yield();
                if (state == kFailed) { // its exception comes back from run()
                    stop.store(true, std::memory_order_relaxed);
                    return;
                }
                if (!hand(k)) {
                    complete = false;
                    stop.store(true, std::memory_order_relaxed);
                    return;
                }
            }
        } catch (...) {
            stop.store(true, std::memory_order_relaxed);
            throw;
        }
    });
    return complete;
}

} // namespace wm
