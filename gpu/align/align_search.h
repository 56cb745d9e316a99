// gpu/align/align_search.h - public host API of GPU Smith-Waterman search.
// Plain C++17, no CUDA headers: code built by g++ alone can include it.
//
// Two uses:
//  * DatabaseSearcher - the seed chapter's search: one query (<= 1024 bytes
//    for the production kernel, any length for the row-parallel one) against a
//    large database kept on one or more GPUs; the K best end columns with
//    their alignments (start/end in both sequences, score, CIGAR).
//  * PayloadAligner - the IDS use: many payloads x few reference sequences
//    per call; every (payload, reference) pair whose best local score reaches
//    min_score, with its aligned region.
//
// Lifecycle: construct once (uploads the database / allocates), then call
// search()/align() any number of times from one thread. Not thread safe.
// Every GPU failure throws wm::gpu::GpuError naming the CUDA call; bad
// arguments throw std::invalid_argument. Without CUDA support (or without a
// usable device) constructors throw std::runtime_error whose message starts
// with the reason, e.g. "built without CUDA support".
#pragma once

#include "gpu/align/align_types.h"
#include "gpu/host_wait.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wm::align {

// True when `device` can run the kernels (compute capability >= 9.0 for the
// DPX path); otherwise false and *reason says why.
bool align_gpu_usable(int device, std::string *reason);
// Number of visible CUDA devices (0 without CUDA support).
int align_device_count();

enum class Kernel {
    Production,  // wavefront warps, 16-bit DPX pairs, 32-bit fallback (query <= 1024)
    RowParallel, // the seed's row-parallel algorithm (any query length)
};

struct SearchOptions {
    uint32_t top_k = 200;         // end columns kept (the seed's K)
    uint64_t overlap = 0;         // section overlap; 0 = exact_overlap(query, scores)
    Kernel kernel = Kernel::Production;
    bool traceback = true;
    uint32_t traceback_window = 256; // least first window; misses retry 4x wider (traceback_window_for)
};

struct SearchTimings {
    double score_ms = 0;       // scoring kernels (slowest device)
    double topk_ms = 0;        // per-device top-K + merge
    double traceback_ms = 0;
    double total_ms = 0;       // wall time of search()
    double rowpar_phase_ms[3] = {0, 0, 0}; // H~/F, scan, H (RowParallel, device 0, sampled)
    uint32_t sections = 0;     // sections scored (all devices)
    uint32_t fallback_sections = 0; // recomputed in 32-bit lanes
};

struct SearchResult {
    std::vector<Hit> hits; // best first: score desc, then db_end asc
    SearchTimings timings;
};

class DatabaseSearcher {
  public:
    // Splits db[0, n) into devices.size() * sections_per_device parts (the seed's
    // overlapped sections), one GPU per part round-robin, and uploads each part
    // with max_overlap bytes before it. db must outlive the searcher (tracebacks
    // read windows from it). devices empty = every visible device.
    DatabaseSearcher(const uint8_t *db, uint64_t n, std::vector<int> devices = {}, uint32_t sections_per_device = 1,
                     uint64_t max_overlap = 8192);
    ~DatabaseSearcher();
    DatabaseSearcher(const DatabaseSearcher &) = delete;
    DatabaseSearcher &operator=(const DatabaseSearcher &) = delete;

    // Throws std::invalid_argument when the overlap exceeds max_overlap or the
    // query is longer than the kernel supports.
    SearchResult search(const uint8_t *query, size_t m, const ScoreParams &p, const SearchOptions &o = {});

    const std::vector<int> &devices() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// One alignment of a payload against a reference.
struct PayloadHit {
    uint32_t payload;   // index in the batch
    uint32_t reference; // index in the reference list
    Hit hit;            // db_* = payload offsets, query_* = reference offsets
};

class PayloadAligner {
  public:
    // references: each 1..1024 bytes. wait: how align() waits for the
    // device (gpu/host_wait.h).
    PayloadAligner(std::vector<std::string> references, ScoreParams p, int device = 0,
                   wm::gpu::HostWait wait = wm::gpu::HostWait::Spin);
    ~PayloadAligner();
    PayloadAligner(const PayloadAligner &) = delete;
    PayloadAligner &operator=(const PayloadAligner &) = delete;

    // Payload i is data[offsets[i], offsets[i+1]); offsets has count + 1 entries.
    // Returns the hits with score >= min_score (min_score >= 1), ordered by
    // (payload, reference), each with its traceback.
    std::vector<PayloadHit> align(const uint8_t *data, const uint32_t *offsets, uint32_t count, int min_score);
    wm::gpu::HostWait host_wait() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace wm::align
