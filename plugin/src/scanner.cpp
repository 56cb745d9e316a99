#include "scanner.h"

#include "gpu/align/align_search.h"
#include "gpu/gpu_matcher.h"
#include "align_engine.h"
#include "approx_engine.h"
#include "gpu_engine.h"
#include "hs_engine.h"
#include "status_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <tuple>

namespace wm {

Scanner::Scanner(const CompiledRuleSet &rs, const wm_scanner_options_t &opts) : rs_(rs) {
    mode_ = opts.output_mode;
    verify_every_ = opts.verify_every;
    cpu_threads_ = std::max(opts.cpu_threads, 1u);
    rule_ids_.reserve(rs.rules().size());
    for (const auto &r : rs.rules())
        rule_ids_.push_back(r.id);
    fallback_allowed_ = opts.backend == WM_BACKEND_AUTO;
    stats_.struct_size = sizeof(stats_);
    bool want_gpu = opts.backend == WM_BACKEND_GPU || opts.backend == WM_BACKEND_AUTO;
    const gpu::HostWait wait = opts.gpu_wait == WM_GPU_WAIT_BLOCK ? gpu::HostWait::Block : gpu::HostWait::Spin;
    std::string why;
    if (want_gpu && gpu_backend_usable(opts.gpu_device, &why)) {
        try {
            gpu::GpuOptions go;
            go.device = opts.gpu_device;
            if (opts.max_batch_bytes) go.max_batch_bytes = opts.max_batch_bytes;
            if (opts.max_batch_payloads) go.max_batch_payloads = opts.max_batch_payloads;
            go.wait = wait;
            primary_ = std::make_unique<GpuEngine>(rs, go, cpu_threads_);
            backend_ = WM_BACKEND_GPU;
            reason_ = fmt::format("{}: GPU {} ({})",
                                  opts.backend == WM_BACKEND_AUTO ? "auto" : "gpu",
                                  opts.gpu_device,
                                  static_cast<GpuEngine *>(primary_.get())->describe());
        } catch (const gpu::GpuError &e) {
            why = e.what();
        } catch (const std::bad_alloc &) {
            why = "out of host memory setting up the GPU engine";
        }
    }
    if (!primary_) {
        if (opts.backend == WM_BACKEND_GPU)
            throw StatusError(WM_NO_GPU, fmt::format("GPU backend unavailable: {}", why));
        primary_ = std::make_unique<HyperscanEngine>(rs, cpu_threads_);
        backend_ = WM_BACKEND_CPU;
        reason_ = opts.backend == WM_BACKEND_AUTO
                      ? fmt::format("auto: using Hyperscan on the CPU because {}", why)
                      : std::string("cpu: Hyperscan requested");
    }
    setup_approx(opts.gpu_device, wait);
    setup_align(opts.gpu_device, wait);
    if (mode_ == WM_OUTPUT_AUTO)
        mode_ = backend_ == WM_BACKEND_GPU ? WM_OUTPUT_SET : WM_OUTPUT_POSITIONS;
    if (backend_ == WM_BACKEND_GPU && verify_every_ > 0)
        checker_ = std::make_unique<HyperscanEngine>(rs, cpu_threads_);
}

void Scanner::setup_approx(int device, gpu::HostWait wait) {
    if (rs_.approximate_rules() == 0)
        return;
    if (backend_ == WM_BACKEND_GPU) {
        try {
            approx_ = std::make_unique<ApproxEngine>(rs_, ApproxBackend::Gpu, device, wait);
            if (verify_every_ > 0)
                approx_checker_ = std::make_unique<ApproxEngine>(rs_, ApproxBackend::Cpu);
            return;
        } catch (const gpu::GpuError &e) {
            if (!fallback_allowed_)
                throw StatusError(WM_GPU_ERROR, e.what());
            reason_ += fmt::format("; approximate rules on Hyperscan because {}", e.what());
        } catch (const rules::RuleError &e) { // a pattern past the kernels' limits, which Hyperscan takes
            if (!fallback_allowed_)
                throw;
            reason_ += fmt::format("; approximate rules on Hyperscan because {}", e.what());
        }
    }
    approx_ = std::make_unique<ApproxEngine>(rs_, ApproxBackend::Cpu);
}

// The alignment kernels need more than the literal ones (DPX: compute
// capability 9.0), so a GPU scanner may still run align rules on the CPU.
void Scanner::setup_align(int device, gpu::HostWait wait) {
    if (rs_.alignment_rules() == 0)
        return;
    if (backend_ == WM_BACKEND_GPU) {
        std::string why;
        if (align::align_gpu_usable(device, &why)) {
            try {
                align_ = std::make_unique<AlignEngine>(rs_, AlignBackend::Gpu, device, wait);
                if (verify_every_ > 0)
                    align_checker_ = std::make_unique<AlignEngine>(rs_, AlignBackend::Cpu);
                return;
            } catch (const gpu::GpuError &e) {
                if (!fallback_allowed_)
                    throw StatusError(WM_GPU_ERROR, e.what());
                why = e.what();
            }
        } else if (!fallback_allowed_) {
            throw StatusError(WM_NO_GPU, fmt::format("GPU backend unavailable for align rules: {}", why));
        }
        reason_ += fmt::format("; align rules on the CPU because {}", why);
    }
    align_ = std::make_unique<AlignEngine>(rs_, AlignBackend::Cpu);
}

Scanner::~Scanner() = default;

void Scanner::fall_back_to_cpu(const std::string &why) {
    std::fprintf(stderr, "warpmatch: GPU failed (%s); continuing on Hyperscan\n", why.c_str());
    reason_ = fmt::format("auto: switched to Hyperscan on the CPU after a GPU failure: {}", why);
    auto cpu = std::make_unique<HyperscanEngine>(rs_, cpu_threads_); // first: if it throws, the GPU engine stays
    retired_gpu_ = std::move(primary_);
    primary_ = std::move(cpu);
    checker_.reset();
    approx_checker_.reset();
    backend_ = WM_BACKEND_CPU;
    if (approx_)
        approx_ = std::make_unique<ApproxEngine>(rs_, ApproxBackend::Cpu);
    align_checker_.reset();
    if (align_)
        align_ = std::make_unique<AlignEngine>(rs_, AlignBackend::Cpu);
}

void Scanner::add_delivery_time(double seconds) { stats_.delivery_seconds += seconds; }

uint8_t *Scanner::batch_buffer(size_t bytes, unsigned slot) {
    if (slot >= kBatchBufferSlots)
        throw std::invalid_argument("batch_buffer: slot out of range");
    if (backend_ == WM_BACKEND_GPU)
        return static_cast<GpuEngine *>(primary_.get())->pinned_buffer(bytes, slot);
    std::vector<uint8_t> &b = host_buffer_[slot];
    if (b.size() < bytes && !pending_.empty()) // as GpuMatcher::pinned_buffer refuses
        throw std::logic_error("batch_buffer: cannot grow a buffer while submitted batches are not collected");
    if (b.size() < bytes)
        b.resize(bytes);
    return b.data();
}

void Scanner::filter_by_meta(const BatchView &batch, std::vector<Match> &m) const {
    if (!batch.meta || !rs_.constrained())
        return;
    m.erase(std::remove_if(m.begin(), m.end(),
                           [&](const Match &x) { return !rs_.applies(x.rule, batch.meta[x.payload]); }),
            m.end());
}

void Scanner::uncount_batch(const BatchView &batch) {
    stats_.batches--;
    stats_.payloads -= batch.count;
    stats_.bytes -= batch.count ? batch.offsets[batch.count] - batch.offsets[0] : 0;
}

void Scanner::count_batch(const BatchView &batch, size_t matches, double engine_seconds) {
    stats_.engine_seconds += engine_seconds;
    stats_.batches++;
    stats_.payloads += batch.count;
    stats_.bytes += batch.count ? batch.offsets[batch.count] - batch.offsets[0] : 0;
    stats_.matches += matches;
}

int Scanner::scan(const BatchView &batch, std::vector<Match> &out) {
    refuse_while_pending("wm_scan_batch");
    return scan_in_mode(batch, static_cast<wm_output_mode>(mode_), out);
}

// The GPU engine alone, on a batch not sampled for verification: set mode
// hands over the device's pinned pairs as they are, positions mode its chunks
// as they are expanded (scan_positions_gpu); anything else takes the general
// path (same matches: the scopes equal filter_by_meta, the order is canonical,
// and rule ids ascend with the index).
bool Scanner::gpu_fast_path() const {
    const bool verify_due = checker_ && stats_.batches % verify_every_ == 0;
    return backend_ == WM_BACKEND_GPU && !approx_ && !align_ && !verify_due;
}

int Scanner::scan_delivering(const BatchView &batch, const Deliver &deliver, Wanted wanted) {
    refuse_while_pending("wm_scan_batch");
    if (mode_ == WM_OUTPUT_POSITIONS && gpu_fast_path())
        return scan_positions_gpu(batch, deliver, wanted);
    if (mode_ == WM_OUTPUT_POSITIONS && backend_ == WM_BACKEND_CPU && !approx_ && !align_)
        return scan_positions_cpu(batch, deliver, wanted);
    const int rc = scan_in_mode(batch, static_cast<wm_output_mode>(mode_), delivered_);
    const auto t0 = std::chrono::steady_clock::now();
    const bool all = delivered_.empty() || deliver(delivered_.data(), delivered_.size());
    add_delivery_time(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return all ? rc : WM_SCAN_TERMINATED;
}

// The device's chunks are expanded (and scope-filtered, by the engine) and
// delivered while later chunks are scanned: no batch-sized match vector, no
// separate filter and order passes.
int Scanner::scan_positions_gpu(const BatchView &batch, const Deliver &deliver, Wanted wanted) {
    const auto t0 = Clock::now();
    TimedDelivery sink{deliver};
    bool complete = true;
    try {
        complete = static_cast<GpuEngine *>(primary_.get())->scan_positions(batch, std::ref(sink), wanted);
    } catch (const gpu::GpuError &e) {
        if (!fallback_allowed_)
            throw StatusError(WM_GPU_ERROR, e.what());
        fall_back_to_cpu(e.what());
        // The caller had asked to stop before the GPU failed (the device
        // went on with the batch's later chunks): nothing more is delivered.
        if (sink.stopped) return count_delivered(batch, t0, sink, false);
        // Canonical order is total, so the CPU's matches after `last` are
        // exactly those the GPU had not delivered.
        const int rc = scan_in_mode(batch, WM_OUTPUT_POSITIONS, delivered_);
        auto rest = delivered_.begin();
        if (sink.matches)
            rest = std::upper_bound(delivered_.begin(), delivered_.end(), sink.last, [](const Match &a, const Match &b) {
                return std::tie(a.payload, a.end, a.rule, a.start) < std::tie(b.payload, b.end, b.rule, b.start);
            });
        add_delivery_time(sink.seconds);
        const auto d0 = Clock::now();
        const bool all = rest == delivered_.end() || deliver(&*rest, static_cast<size_t>(delivered_.end() - rest));
        add_delivery_time(std::chrono::duration<double>(Clock::now() - d0).count());
        return all ? rc : WM_SCAN_TERMINATED;
    }
    return count_delivered(batch, t0, sink, complete);
}

// Hyperscan's runs are scanned, ordered and scope-filtered on the pool
// threads and delivered in order as they finish (HyperscanEngine::scan_positions).
int Scanner::scan_positions_cpu(const BatchView &batch, const Deliver &deliver, Wanted wanted) {
    const auto t0 = Clock::now();
    TimedDelivery sink{deliver};
    const bool complete =
        static_cast<HyperscanEngine *>(primary_.get())->scan_positions(batch, std::ref(sink), wanted);
    return count_delivered(batch, t0, sink, complete);
}

bool Scanner::TimedDelivery::operator()(const Match *m, size_t n) {
    const auto d0 = Clock::now();
    const bool more = deliver(m, n);
    seconds += std::chrono::duration<double>(Clock::now() - d0).count();
    matches += n;
    last = m[n - 1];
    stopped = !more;
    return more;
}

// The stats of a batch delivered span by span since t0 (delivery time apart).
int Scanner::count_delivered(const BatchView &batch, Clock::time_point t0, const TimedDelivery &sink, bool complete) {
    add_delivery_time(sink.seconds);
    count_batch(batch, sink.matches, std::chrono::duration<double>(Clock::now() - t0).count() - sink.seconds);
    return complete ? WM_SUCCESS : WM_SCAN_TERMINATED;
}

int Scanner::scan_set(const BatchView &batch, const wm_set_hit_t **hits, size_t *count) {
    refuse_while_pending("wm_scan_batch_set");
    *hits = nullptr;
    *count = 0;
    if (gpu_fast_path()) {
        auto t0 = std::chrono::steady_clock::now();
        size_t n = 0;
        try {
            n = static_cast<GpuEngine *>(primary_.get())->scan_set_hits(batch, hits);
        } catch (const gpu::GpuError &e) {
            if (!fallback_allowed_)
                throw StatusError(WM_GPU_ERROR, e.what());
            fall_back_to_cpu(e.what()); // nothing of this batch was delivered
            return scan_set(batch, hits, count);
        }
        count_batch(batch, n,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        *count = n;
        return WM_SUCCESS;
    }
    const int rc = scan_set_general(batch);
    *hits = set_hits_.data();
    *count = set_hits_.size();
    return rc;
}

int Scanner::scan_set_general(const BatchView &batch) {
    const int rc = scan_in_mode(batch, WM_OUTPUT_SET, set_matches_);
    const auto &rules = rs_.rules();
    set_hits_.resize(set_matches_.size());
    for (size_t i = 0; i < set_matches_.size(); ++i)
        set_hits_[i] = {rules[set_matches_[i].rule].id, set_matches_[i].payload};
    // Align rules carry their region in set mode too, so sort_matches' (payload,
    // end, rule) order may differ from (payload, rule) here.
    auto less = [](const wm_set_hit_t &a, const wm_set_hit_t &b) {
        return a.payload_index != b.payload_index ? a.payload_index < b.payload_index
                                                  : a.rule_id < b.rule_id;
    };
    if (!std::is_sorted(set_hits_.begin(), set_hits_.end(), less))
        std::sort(set_hits_.begin(), set_hits_.end(), less);
    return rc;
}

int Scanner::scan_in_mode(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) {
    out.clear();
    gpu_only_.clear();
    cpu_only_.clear();
    auto t0 = std::chrono::steady_clock::now();
    try {
        primary_->scan(batch, mode, out);
        if (approx_)
            approx_->scan(batch, mode, out);
        if (align_)
            align_->scan(batch, mode, out);
    } catch (const gpu::GpuError &e) {
        if (!fallback_allowed_)
            throw StatusError(WM_GPU_ERROR, e.what());
        // `auto` promised a result: finish on the CPU from this batch on.
        // Nothing of this batch was delivered yet, so rescan all of it.
        fall_back_to_cpu(e.what());
        out.clear();
        primary_->scan(batch, mode, out);
        if (approx_)
            approx_->scan(batch, mode, out);
        if (align_)
            align_->scan(batch, mode, out);
    }
    auto t1 = std::chrono::steady_clock::now();
    filter_by_meta(batch, out);
    sort_matches(out);
    auto t2 = std::chrono::steady_clock::now();
    stats_.ordering_seconds += std::chrono::duration<double>(t2 - t1).count();
    count_batch(batch, out.size(), std::chrono::duration<double>(t1 - t0).count());

    if (!checker_ || (stats_.batches - 1) % verify_every_ != 0)
        return WM_SUCCESS;
    check_buf_.clear();
    checker_->scan(batch, mode, check_buf_);
    if (approx_checker_)
        approx_checker_->scan(batch, mode, check_buf_);
    if (align_checker_)
        align_checker_->scan(batch, mode, check_buf_);
    filter_by_meta(batch, check_buf_);
    sort_matches(check_buf_);
    stats_.verified_batches++;
    // score last: an align match with the right region but another score is
    // a difference too (one match per payload and align rule, so this keeps
    // the sort_matches order).
    auto less = [](const Match &a, const Match &b) {
        return std::tie(a.payload, a.end, a.rule, a.start, a.score) <
               std::tie(b.payload, b.end, b.rule, b.start, b.score);
    };
    std::set_difference(out.begin(), out.end(), check_buf_.begin(), check_buf_.end(),
                        std::back_inserter(gpu_only_), less);
    std::set_difference(check_buf_.begin(), check_buf_.end(), out.begin(), out.end(),
                        std::back_inserter(cpu_only_), less);
    size_t diff = gpu_only_.size() + cpu_only_.size();
    stats_.verify_mismatches += diff;
    return diff ? WM_VERIFY_MISMATCH : WM_SUCCESS;
}

} // namespace wm
