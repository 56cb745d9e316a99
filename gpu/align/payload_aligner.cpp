// gpu/align/payload_aligner.cpp - many payloads x few references: one section
// per payload (payload edges are true zero boundaries, so no overlap), one
// wavefront launch per reference, best column per payload, then traceback of
// the pairs that reach min_score. Buffers grow once and are reused.
#include "gpu/align/align_search.h"
#include "gpu/align/device_buffer.h"
#include "gpu/align/sw_kernels.h"
#include "gpu/align/sw_tuning.h"
#include "gpu/cuda_check.h"
#include "gpu/stream_waiter.h"

#include <algorithm>

namespace wm::align {

struct PayloadAligner::Impl {
    std::vector<std::string> refs;
    ScoreParams p;
    int device = 0;
    cudaStream_t stream = nullptr;
    // Waits for the kernels before each copy back: a copy into pageable
    // memory would wait for them inside the driver, spinning.
    std::unique_ptr<gpu::StreamWaiter> waiter;
    DeviceBuffer data, offsets, sections, overflow, list, colmax, best, bestcol, query, query_bytes, matrix;
    DeviceBuffer tb_jobs, tb_work, tb_res, tb_ops;
    ~Impl() {
        if (stream) {
            cudaSetDevice(device);
            cudaStreamDestroy(stream);
        }
    }
};

PayloadAligner::PayloadAligner(std::vector<std::string> references, ScoreParams p, int device, gpu::HostWait wait)
    : impl_(new Impl) {
    p.validate();
    for (const std::string &r : references)
        if (r.empty() || r.size() > (size_t)tuning::kMaxQueryRows)
            throw std::invalid_argument("reference length must be 1.." + std::to_string(tuning::kMaxQueryRows) +
                                        ", is " + std::to_string(r.size()));
    std::string why;
    if (!align_gpu_usable(device, &why)) throw std::runtime_error(why);
    Impl &s = *impl_;
    s.refs = std::move(references);
    s.p = std::move(p);
    s.device = device;
    for (DeviceBuffer *b : {&s.data, &s.offsets, &s.sections, &s.overflow, &s.list, &s.colmax, &s.best, &s.bestcol,
                            &s.query, &s.query_bytes, &s.matrix, &s.tb_jobs, &s.tb_work, &s.tb_res, &s.tb_ops})
        b->device = device;
    WM_CUDA_CHECK(cudaSetDevice(device));
    WM_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    s.waiter = std::make_unique<gpu::StreamWaiter>(wait);
    if (!s.p.matrix.empty()) s.matrix.upload(s.p.matrix.data(), s.p.matrix.size(), s.stream);
}

PayloadAligner::~PayloadAligner() = default;

gpu::HostWait PayloadAligner::host_wait() const { return impl_->waiter->how(); }

std::vector<PayloadHit> PayloadAligner::align(const uint8_t *data, const uint32_t *offsets, uint32_t count,
                                              int min_score) {
    if (min_score < 1) throw std::invalid_argument("min_score must be >= 1");
    Impl &s = *impl_;
    std::vector<PayloadHit> out;
    if (count == 0) return out;
    WM_CUDA_CHECK(cudaSetDevice(s.device));
    cudaStream_t st = s.stream;
    const uint32_t total = offsets[count];
    const dispatch::DeviceScores ds{s.p.match, s.p.mismatch, s.p.gap_open, s.p.gap_extend, s.p.max_score(),
                                    s.p.matrix.empty() ? nullptr : (const int8_t *)s.matrix.get()};
    const uint8_t *d_data = s.data.upload(data, std::max<uint32_t>(total, 1), st);
    const uint32_t *d_off = s.offsets.upload(offsets, count + 1, st);
    const std::vector<Section> secs = payload_sections(offsets, count);
    const Section *d_secs = s.sections.upload(secs.data(), secs.size(), st);
    uint8_t *d_over = s.overflow.reserve<uint8_t>(secs.size());
    int32_t *d_colmax = s.colmax.reserve<int32_t>(std::max<uint32_t>(total, 1));
    int32_t *d_best = s.best.reserve<int32_t>(count);
    uint32_t *d_bestcol = s.bestcol.reserve<uint32_t>(count);
    std::vector<int32_t> best(count);
    std::vector<uint32_t> bestcol(count);
    for (uint32_t r = 0; r < s.refs.size(); ++r) {
        const std::string &ref = s.refs[r];
        const size_t m = ref.size();
        const int rows = m <= 32u * tuning::kRowsSmall ? tuning::kRowsSmall : tuning::kRowsLarge;
        const std::vector<uint16_t> qc = pad_query((const uint8_t *)ref.data(), m, 32 * rows);
        s.query.upload(qc.data(), qc.size(), st);
        s.query_bytes.upload((const uint8_t *)ref.data(), m, st);
        WM_CUDA_CHECK(cudaMemsetAsync(d_over, 0, secs.size(), st));
        dispatch::wavefront((const uint16_t *)s.query.get(), rows, d_data, 0, d_secs, (uint32_t)secs.size(), nullptr,
                            false, ds, d_colmax, d_over, st);
        std::vector<uint8_t> over(secs.size());
        s.waiter->wait(st);
        WM_CUDA_CHECK(cudaMemcpyAsync(over.data(), d_over, over.size(), cudaMemcpyDeviceToHost, st));
        WM_CUDA_CHECK(cudaStreamSynchronize(st));
        std::vector<uint32_t> list;
        for (uint32_t k = 0; k < over.size(); ++k)
            if (over[k]) list.push_back(k);
        if (!list.empty()) {
            s.list.upload(list.data(), list.size(), st);
            dispatch::wavefront((const uint16_t *)s.query.get(), rows, d_data, 0, d_secs, (uint32_t)list.size(),
                                (const uint32_t *)s.list.get(), true, ds, d_colmax, d_over, st);
        }
        dispatch::segment_best(d_colmax, d_off, count, d_best, d_bestcol, st);
        s.waiter->wait(st);
        WM_CUDA_CHECK(cudaMemcpyAsync(best.data(), d_best, count * 4, cudaMemcpyDeviceToHost, st));
        WM_CUDA_CHECK(cudaMemcpyAsync(bestcol.data(), d_bestcol, count * 4, cudaMemcpyDeviceToHost, st));
        WM_CUDA_CHECK(cudaStreamSynchronize(st));
        // Traceback of the pairs that pass. A positive alignment spans fewer
        // than exact_overlap() columns, so a window that long ending at the
        // hit holds its whole traceback (as AlignEngine::scan_cpu's): the
        // workspace no longer grows with the longest payload.
        const uint64_t cap = exact_overlap(m, s.p);
        std::vector<dispatch::TraceJob> jobs;
        std::vector<uint32_t> who;
        for (uint32_t k = 0; k < count; ++k)
            if (best[k] >= min_score) {
                const uint64_t end = bestcol[k] + 1, begin = std::max<uint64_t>(offsets[k], end > cap ? end - cap : 0);
                jobs.push_back({begin, static_cast<uint32_t>(end - begin), 0});
                who.push_back(k);
            }
        // Rounds of jobs whose direction bytes fit the budget.
        for (size_t first = 0; first < jobs.size();) {
            uint32_t max_win = 1;
            size_t last = first;
            while (last < jobs.size()) {
                const uint32_t win = std::max(max_win, jobs[last].win_len);
                if (last > first && dispatch::traceback_workspace_bytes(uint32_t(last - first + 1), win, uint32_t(m)) >
                                        tuning::kTraceWorkspaceBudget)
                    break;
                max_win = win, ++last;
            }
            const uint32_t n = uint32_t(last - first), max_ops = (uint32_t)m + max_win + 1;
            s.tb_jobs.upload(jobs.data() + first, n, st);
            void *work = s.tb_work.reserve<uint8_t>(dispatch::traceback_workspace_bytes(n, max_win, (uint32_t)m));
            auto *d_res = s.tb_res.reserve<dispatch::TraceResult>(n);
            char *d_ops = s.tb_ops.reserve<char>((size_t)n * max_ops);
            dispatch::traceback((const uint8_t *)s.query_bytes.get(), (uint32_t)m, d_data,
                                (const dispatch::TraceJob *)s.tb_jobs.get(), n, max_win, ds, work, d_res, d_ops,
                                max_ops, st);
            std::vector<dispatch::TraceResult> res(n);
            std::vector<char> ops((size_t)n * max_ops);
            s.waiter->wait(st);
            WM_CUDA_CHECK(cudaMemcpyAsync(res.data(), d_res, res.size() * sizeof(res[0]), cudaMemcpyDeviceToHost, st));
            WM_CUDA_CHECK(cudaMemcpyAsync(ops.data(), d_ops, ops.size(), cudaMemcpyDeviceToHost, st));
            WM_CUDA_CHECK(cudaStreamSynchronize(st));
            for (uint32_t a = 0; a < n; ++a) {
                const uint32_t k = who[first + a];
                PayloadHit ph;
                ph.payload = k;
                ph.reference = r;
                ph.hit.score = best[k];
                ph.hit.db_end = bestcol[k] - offsets[k] + 1;
                ph.hit.query_begin = (uint32_t)res[a].query_begin;
                ph.hit.query_end = (uint32_t)res[a].query_end;
                ph.hit.db_begin = jobs[first + a].win_begin - offsets[k] + (uint64_t)res[a].db_begin;
                if (res[a].n_ops > 0) ph.hit.cigar = cigar_from_reversed_ops(ops.data() + a * max_ops, res[a].n_ops);
                out.push_back(std::move(ph));
            }
            first = last;
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const PayloadHit &a, const PayloadHit &b) {
        return a.payload != b.payload ? a.payload < b.payload : a.reference < b.reference;
    });
    return out;
}

} // namespace wm::align
