// gpu/gpu_testing.h - test and study hooks of the GPU matcher (not for production use).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wm::gpu::testing {

// When non-zero, matchers created afterwards start with this many output
// records per stream, so tests can force the overflow -> grow -> rescan path.
void set_initial_output_capacity(size_t records);
// Chunks scanned again (once or in more rounds), by any matcher of the
// process so far, because their output records outgrew their slot's buffers.
size_t output_rescans();
// When non-zero, the output-buffer allocation of that number (1: the next
// one), of any matcher, fails as an out-of-memory cudaMalloc would (GpuError):
// tests that a growth which fails leaves the matcher usable.
void fail_output_allocation(size_t nth);
// Likewise for the page-locked buffer a set-pairs batch collects its pairs
// in (allocated when a batch is submitted, on first use and growth): tests
// that a submit which fails leaves no batch of its own or earlier pending.
void fail_pair_buffer_allocation(size_t nth);
// Free memory of CUDA device 0 now (cudaMemGetInfo; 0 without CUDA): tests
// that a failure frees what it allocated.
size_t device_free_bytes();

// When non-zero, matchers created afterwards cut batches into chunks of at
// most this many bytes instead of tuning::kMaxChunkBytes (pipeline studies).
void set_max_chunk_bytes(size_t bytes);
// When non-zero, matchers created afterwards give their automaton this many
// bytes of dense rows instead of tuning::dense_budget_bytes (1: the root's
// row alone), so tests can walk sparse states on the device: with the
// default budget a test's small pattern sets have none.
void set_dense_budget_bytes(size_t bytes);
// Matchers created afterwards split exact-case one-byte letter classes into
// case columns (AcCompileOptions::case_columns, off by default): GPU tests.
void set_case_columns(bool on);
// When non-zero, the next Positions chunk of that number (1: the next one),
// of any matcher, fails as a CUDA error would (GpuError) just before its
// matches reach the caller: tests of what a failure mid-batch delivers.
void fail_positions_chunk(size_t nth);

// Whether [p, p + bytes) starts and ends in page-locked host memory (what
// the matcher checks before copying a batch straight from it).
bool is_page_locked(const void *p, size_t bytes);

// Timeline of one chunk of a matcher call, in ms from the call's start; a
// point the call did not reach is negative.
struct ChunkTrace {
    enum Gpu { kCopyStart, kCopied, kScanned, kPassed, kCopiedBack, kGpuPoints };
    enum Host { kStaged, kWaitBegin, kWaitEnd, kHostPoints };
    uint32_t slot = 0, bytes = 0;
    double gpu_ms[kGpuPoints] = {-1, -1, -1, -1, -1};
    double host_ms[kHostPoints] = {-1, -1, -1};
};
// When on, every matcher call records its chunks' timeline (CUDA events and
// host clock; costs a little); last_chunk_trace() is the last call's. The
// environment variable WM_CHUNK_TRACE=FILE turns it on from the start and
// appends each timeline to FILE (format_chunk_trace).
void set_chunk_trace(bool on);
std::vector<ChunkTrace> last_chunk_trace();
// One line per chunk: slot, MB, then each point in ms (-1: not reached).
std::string format_chunk_trace(const std::vector<ChunkTrace> &trace);

} // namespace wm::gpu::testing
