// gpu/host_wait.h - how a host thread waits for the work it gave the GPU.
// Plain C++ (no CUDA headers): engine options carry it in builds without CUDA.
#pragma once

namespace wm::gpu {

// Spin (CUDA's default with one context on a many-core host) answers soonest
// but keeps a core busy for the whole wait; Block sleeps on events made with
// cudaEventBlockingSync, which leaves that core to the host's other threads
// (a replay's readers, Hyperscan's verify threads) at the price of a wake-up
// per wait. Only an engine's own waits change: the process's device flags
// are the host's.
enum class HostWait { Spin, Block };

inline const char *host_wait_name(HostWait w) { return w == HostWait::Block ? "block" : "spin"; }

} // namespace wm::gpu
