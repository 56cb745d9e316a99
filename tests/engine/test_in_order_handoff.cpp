// hand_over_in_order (in_order_handoff.h): pieces made on the threads of a
// pool are handed over on the calling thread in order, each made once (by
// the calling thread too only when it is to help); a stop or an exception
// hands nothing over after it.
#include "in_order_handoff.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <stdexcept>
#include <thread>

using namespace wm;

namespace {

// Pieces of uneven cost, so later ones often finish first.
void uneven_work(size_t k) { std::this_thread::sleep_for(std::chrono::microseconds((k * 7919) % 13 * 50)); }

TEST(HandOverInOrder, EveryPieceMadeOnceAndHandedOverInOrder) {
    std::vector<std::atomic<uint8_t>> ready;
    for (CallerRole role : {CallerRole::MakesWhileWaiting, CallerRole::OnlyHandsOver}) {
        for (size_t width : {1u, 2u, 5u}) {
            capture::WorkerPool pool(width);
            for (size_t n : {1u, 3u, 40u}) {
                SCOPED_TRACE(testing::Message() << width << " threads, " << n << " pieces, caller "
                                                << (role == CallerRole::OnlyHandsOver ? "only hands over" : "makes too"));
                std::vector<std::atomic<int>> made(n);
                std::vector<size_t> handed;
                const std::thread::id caller = std::this_thread::get_id();
                std::atomic<size_t> made_by_caller{0};
                EXPECT_TRUE(hand_over_in_order(
                    pool, n, ready, role,
                    [&](size_t k) {
                        uneven_work(k);
                        made[k]++;
                        made_by_caller += std::this_thread::get_id() == caller;
                    },
                    [&](size_t k) {
                        EXPECT_EQ(std::this_thread::get_id(), caller);
                        EXPECT_EQ(made[k].load(), 1) << "piece " << k << " handed over before it was made";
                        handed.push_back(k);
                        return true;
                    }));
                for (size_t k = 0; k < n; ++k) EXPECT_EQ(made[k].load(), 1) << "piece " << k;
                std::vector<size_t> want(n);
                for (size_t k = 0; k < n; ++k) want[k] = k;
                EXPECT_EQ(handed, want);
                if (role == CallerRole::OnlyHandsOver && width > 1) EXPECT_EQ(made_by_caller.load(), 0u);
            }
        }
    }
}

TEST(HandOverInOrder, StopHandsNothingOverAfterIt) {
    capture::WorkerPool pool(4);
    std::vector<std::atomic<uint8_t>> ready;
    std::vector<size_t> handed;
    EXPECT_FALSE(hand_over_in_order(pool, 30, ready, CallerRole::MakesWhileWaiting, uneven_work, [&](size_t k) {
        handed.push_back(k);
        return k != 6;
    }));
    EXPECT_EQ(handed, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6}));
}

// A piece that throws: its exception comes back, and no piece from it on
// is handed over; the pool is usable again after it.
TEST(HandOverInOrder, ExceptionComesBackAndStopsTheHandOver) {
    capture::WorkerPool pool(3);
    std::vector<std::atomic<uint8_t>> ready;
    size_t last = 0;
    EXPECT_THROW(hand_over_in_order(
                     pool, 25, ready, CallerRole::OnlyHandsOver,
                     [](size_t k) {
                         uneven_work(k);
                         if (k == 9) throw std::runtime_error("piece 9");
                     },
                     [&](size_t k) {
                         last = k;
                         return true;
                     }),
                 std::runtime_error);
    EXPECT_LT(last, 9u);
    size_t handed = 0;
    EXPECT_TRUE(hand_over_in_order(pool, 5, ready, CallerRole::MakesWhileWaiting, uneven_work, [&](size_t) { return ++handed > 0; }));
    EXPECT_EQ(handed, 5u);
}

// A worker that claimed a piece before another piece failed, but looked at
// the stop only after, skips making it: that piece must not be handed over
// (Hyperscan's positions path would hand over the last batch's matches).
// Many threads on few cores make the interleaving common (2 in 20,000 runs
// on 2 cores before the fix).
TEST(HandOverInOrder, APieceSkippedAfterAFailureIsNeverHandedOver) {
    capture::WorkerPool pool(8);
    std::vector<std::atomic<uint8_t>> ready;
    size_t handed_unmade = 0, failures = 0;
    for (int t = 0; t < 3000; ++t) {
        const size_t n = 64, fail_at = 8 + t % 40;
        std::vector<uint8_t> made(n, 0);
        try {
            hand_over_in_order(
                pool, n, ready, CallerRole::OnlyHandsOver,
                [&](size_t k) {
                    if (k == fail_at) throw std::runtime_error("make failed");
                    made[k] = 1;
                },
                [&](size_t k) {
                    handed_unmade += made[k] == 0;
                    return true;
                });
        } catch (const std::runtime_error &) {
            ++failures;
        }
    }
    EXPECT_EQ(failures, 3000u);
    EXPECT_EQ(handed_unmade, 0u);
}

} // namespace
