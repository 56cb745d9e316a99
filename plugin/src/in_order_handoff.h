// plugin/src/in_order_handoff.h - pieces made in parallel, handed over in
// order: how a batch's positions reach a serial consumer (wm_scan_batch's
// callbacks, replay's alerts) while the pieces after them are still being
// made. PositionsExpander makes slices of the GPU's matches this way,
// HyperscanEngine::scan_positions runs of payloads.
#pragma once

#include "capture/worker_pool.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

namespace wm {

// Makes pieces [0, n) on the threads of `pool` and hands them over in
// order on the calling thread:
//   make(k)  piece k, once, on any of the pool's threads; pieces are taken
//            in increasing k;
//   hand(k)  on the calling thread, k = 0, 1, ..., as soon as piece k is
//            made; false stops: nothing is made or handed over after it
//            (pieces being made are finished).
// caller: whether the calling thread makes an untaken piece itself while
// piece k is not made yet (every thread makes pieces: right when making is
// the bound, as Hyperscan's scan is), or only hands over (right when
// handing over is the bound, as the GPU positions' callbacks are: a slice
// the caller expanded held back the slices ready before it, and the C API
// row lost 12%, run 167).
// An exception from make or hand stops the rest and is rethrown here.
// ready: per-piece flags, kept by the caller (grown to n when short, so a
// call allocates nothing once it has grown). Returns false when hand stopped.
enum class CallerRole { MakesWhileWaiting, OnlyHandsOver };
bool hand_over_in_order(capture::WorkerPool &pool, size_t n, std::vector<std::atomic<uint8_t>> &ready,
                        CallerRole caller, const std::function<void(size_t)> &make,
                        const std::function<bool(size_t)> &hand);

} // namespace wm
