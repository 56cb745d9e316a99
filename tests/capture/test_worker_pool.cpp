// tests/capture/test_worker_pool.cpp - the reader's thread pool: every index
// runs exactly once per call (one per thread, then shared out), and an
// exception from any of them reaches the caller after all have finished.
#include "plugin/src/capture/worker_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace wm::capture {
namespace {

TEST(WorkerPool, EveryIndexRunsOncePerCallOnItsOwnThread) {
    WorkerPool pool(6);
    for (size_t n = 0; n <= 6; ++n) {
        for (int round = 0; round < 50; ++round) {
            std::vector<std::atomic<int>> hits(6);
            std::vector<std::thread::id> ids(6);
            pool.run(n, [&](size_t i) {
                hits[i]++;
                ids[i] = std::this_thread::get_id();
            });
            for (size_t i = 0; i < 6; ++i) ASSERT_EQ(hits[i].load(), i < n ? 1 : 0) << n << " " << i;
            std::set<std::thread::id> distinct(ids.begin(), ids.begin() + long(n));
            EXPECT_EQ(distinct.size(), n);
            if (n > 0) EXPECT_EQ(ids[0], std::this_thread::get_id()) << "index 0 runs on the caller";
        }
    }
}

// this_thread(): one index per OS thread, the same in every run, 0 on the
// caller; a pool run from inside another's job gives the outer index back.
TEST(WorkerPool, ThisThreadNamesTheRunningThreadStably) {
    WorkerPool pool(4), inner(3);
    std::vector<std::thread::id> owner(4);
    for (int round = 0; round < 20; ++round) {
        std::vector<size_t> index(64);
        std::vector<std::thread::id> ids(64);
        std::atomic<bool> nested_ok{true};
        pool.run(64, [&](size_t i) {
            index[i] = WorkerPool::this_thread();
            ids[i] = std::this_thread::get_id();
            if (i == 0) {
                inner.run(3, [&](size_t) { if (WorkerPool::this_thread() >= 3) nested_ok = false; });
                if (WorkerPool::this_thread() != index[0]) nested_ok = false;
            }
        });
        EXPECT_TRUE(nested_ok.load());
        EXPECT_EQ(index[0], 0u);
        for (size_t i = 0; i < 64; ++i) {
            ASSERT_LT(index[i], 4u);
            if (owner[index[i]] == std::thread::id()) owner[index[i]] = ids[i];
            EXPECT_EQ(owner[index[i]], ids[i]) << "index " << index[i] << " on two threads";
        }
    }
    EXPECT_EQ(owner[0], std::this_thread::get_id());
}

TEST(WorkerPool, AnExceptionReachesTheCallerAfterEveryJobFinished) {
    WorkerPool pool(4);
    std::atomic<int> finished{0};
    EXPECT_THROW(pool.run(4,
                          [&](size_t i) {
                              if (i == 2) throw std::runtime_error("part 2");
                              std::this_thread::sleep_for(std::chrono::milliseconds(5));
                              finished++;
                          }),
                 std::runtime_error);
    EXPECT_EQ(finished.load(), 3);
    // The pool is still usable afterwards.
    std::atomic<int> again{0};
    pool.run(4, [&](size_t) { again++; });
    EXPECT_EQ(again.load(), 4);
}

// More jobs than threads: each job still runs exactly once, the first ones
// one per thread; a thread held up by a slow job leaves the rest to others;
// an exception still waits for every job.
TEST(WorkerPool, MoreJobsThanThreadsAreShared) {
    WorkerPool pool(4);
    for (size_t n : {5u, 17u, 64u}) {
        for (int round = 0; round < 20; ++round) {
            std::vector<std::atomic<int>> hits(n);
            std::vector<std::thread::id> ids(n);
            pool.run(n, [&](size_t i) {
                hits[i]++;
                ids[i] = std::this_thread::get_id();
            });
            for (size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << n << " " << i;
            EXPECT_EQ(std::set<std::thread::id>(ids.begin(), ids.begin() + 4).size(), 4u);
            EXPECT_EQ(ids[0], std::this_thread::get_id());
        }
    }
    std::vector<std::thread::id> ids(40);
    pool.run(40, [&](size_t i) {
        ids[i] = std::this_thread::get_id();
        if (i == 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    });
    EXPECT_EQ(std::count(ids.begin(), ids.end(), ids[1]), 1) << "the slow thread took no other job";
    std::atomic<int> finished{0};
    EXPECT_THROW(pool.run(30,
                          [&](size_t i) {
                              if (i % 7 == 3) throw std::runtime_error("part");
                              finished++;
                          }),
                 std::runtime_error);
    EXPECT_EQ(finished.load(), 30 - 4); // 3, 10, 17, 24 threw; every other job ran
}

} // namespace
} // namespace wm::capture
