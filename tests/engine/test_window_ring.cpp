// tests/engine/test_window_ring.cpp - replay's buffer hand-over between its
// reader thread and its scanning thread: windows come back in the order they
// were filled, a buffer is refilled only after its release, a reader's
// exception arrives after the windows read before it, and stop() ends a
// reader that waits for a buffer.
#include "window_ring.h"

#include <gtest/gtest.h>

#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace wm {
namespace {

TEST(WindowRing, WindowsComeBackInFillOrderAndBuffersAreReusedAfterRelease) {
    for (unsigned buffers : {1u, 2u, 4u}) {
        WindowRing ring(buffers);
        std::vector<int> held(buffers, -1); // window number in each buffer, -1 free
        std::vector<int> filled_into;       // buffer of window i
        std::thread reader([&] {
            int next = 0;
            ring.produce([&](unsigned k) {
                EXPECT_EQ(held[k], -1) << "buffer " << k << " refilled before its release";
                held[k] = next;
                filled_into.push_back(static_cast<int>(k));
                return ++next == 50 ? WindowRing::kFilledLast : WindowRing::kFilled;
            });
        });
        unsigned k = 0;
        for (int want = 0; want < 50; ++want) {
            ASSERT_TRUE(ring.next_filled(&k)) << want;
            EXPECT_EQ(held[k], want);
            held[k] = -1;
            ring.release(k);
        }
        EXPECT_FALSE(ring.next_filled(&k));
        reader.join();
    }
}

// Buffers that do not exist yet are handed over later: the reader waits for
// them and fills only buffers it was given.
TEST(WindowRing, BuffersHandedOverLaterAreFilledOnlyOnceGiven) {
    WindowRing ring(3, 1);
    std::vector<unsigned> filled; // buffer of each window, in fill order
    std::mutex mu;
    std::thread reader([&] {
        int next = 0;
        ring.produce([&](unsigned k) {
            std::lock_guard<std::mutex> lock(mu);
            filled.push_back(k);
            return ++next == 6 ? WindowRing::kFilledLast : WindowRing::kFilled;
        });
    });
    unsigned k = 0;
    ASSERT_TRUE(ring.next_filled(&k));
    EXPECT_EQ(k, 0u);
    {
        std::lock_guard<std::mutex> lock(mu);
        EXPECT_EQ(filled, std::vector<unsigned>{0}) << "filled a buffer it was not given";
    }
    ring.release(1); // buffer 1 exists now; 2 later
    ring.release(k);
    std::vector<unsigned> order{0};
    for (int i = 1; i < 6; ++i) {
        ASSERT_TRUE(ring.next_filled(&k)) << i;
        order.push_back(k);
        if (i == 2) ring.release(2);
        ring.release(k);
    }
    EXPECT_FALSE(ring.next_filled(&k));
    reader.join();
    EXPECT_EQ(order, filled);
    for (size_t i = 0; i < 3 && i < filled.size(); ++i) EXPECT_NE(filled[i], 2u) << "buffer 2 before its release";
}

TEST(WindowRing, ReaderExceptionArrivesAfterTheWindowsBeforeIt) {
    WindowRing ring(4);
    std::thread reader([&] {
        int next = 0;
        ring.produce([&](unsigned) -> WindowRing::Fill {
            if (next++ == 3) throw std::runtime_error("read failed");
            return WindowRing::kFilled;
        });
    });
    unsigned k = 0;
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(ring.next_filled(&k));
        ring.release(k);
    }
    EXPECT_THROW(ring.next_filled(&k), std::runtime_error);
    reader.join();
}

TEST(WindowRing, FileOverWithoutAWindowAndStopWhileWaiting) {
    {
        WindowRing ring(2);
        std::thread reader([&] { ring.produce([](unsigned) { return WindowRing::kOver; }); });
        unsigned k = 0;
        EXPECT_FALSE(ring.next_filled(&k));
        reader.join();
    }
    WindowRing ring(2);
    int fills = 0;
    std::thread reader([&] {
        ring.produce([&](unsigned) {
            ++fills;
            return WindowRing::kFilled;
        });
    });
    unsigned k = 0;
    ASSERT_TRUE(ring.next_filled(&k)); // both taken, none released: the reader waits
    ASSERT_TRUE(ring.next_filled(&k));
    ring.stop();
    reader.join(); // returns: stop() ended the wait
    EXPECT_EQ(fills, 2);
}

} // namespace
} // namespace wm
