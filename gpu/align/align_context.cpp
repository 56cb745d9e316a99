// gpu/align/align_context.cpp - host entry: database parts on GPUs (the seed's
// overlapped sections), per-part scoring and top-K, merge, traceback.
#include "gpu/align/align_search.h"
#include "gpu/align/device_buffer.h"
#include "gpu/align/sw_kernels.h"
#include "gpu/align/sw_tuning.h"
#include "gpu/cuda_check.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <thread>

namespace wm::align {

using dispatch::DeviceScores;
using Clock = std::chrono::steady_clock;

namespace {
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }
} // namespace

bool align_gpu_usable(int device, std::string *reason) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        if (reason) *reason = e != cudaSuccess ? std::string("no usable CUDA device: ") + cudaGetErrorString(e)
                                               : std::string("no CUDA device");
        return false;
    }
    if (device < 0 || device >= count) {
        if (reason) *reason = "device " + std::to_string(device) + " does not exist";
        return false;
    }
    cudaDeviceProp prop{};
    e = cudaGetDeviceProperties(&prop, device);
    if (e != cudaSuccess || prop.major < 9) {
        if (reason) *reason = e != cudaSuccess ? std::string(cudaGetErrorString(e))
                                               : "compute capability " + std::to_string(prop.major) + "." +
                                                     std::to_string(prop.minor) + " < 9.0 (kernels built for sm_90)";
        return false;
    }
    return true;
}

int align_device_count() {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

// Everything one part of the database needs on its GPU.
struct Part {
    int device = 0;
    uint64_t load_begin = 0, own_begin = 0, own_end = 0;
    DeviceBuffer db, colmax, sections, overflow, list, rowpar;
};

struct DeviceState {
    int device = 0, sms = 0;
    cudaStream_t stream = nullptr;
    dispatch::TopKWorkspace *topk = nullptr;
    DeviceBuffer query, query_bytes, matrix;
    DeviceBuffer tb_db, tb_jobs, tb_work, tb_res, tb_ops; // traceback scratch
    std::vector<Part *> parts;
};

struct DatabaseSearcher::Impl {
    const uint8_t *db = nullptr;
    uint64_t n = 0, max_overlap = 0;
    std::vector<int> devices;
    std::deque<DeviceState> dev; // deque: DeviceState holds non-movable buffers
    std::vector<std::unique_ptr<Part>> parts;

    ~Impl() {
        for (DeviceState &d : dev) {
            cudaSetDevice(d.device);
            if (d.topk) dispatch::topk_destroy(d.topk);
            if (d.stream) cudaStreamDestroy(d.stream);
        }
    }

    DeviceScores scores(DeviceState &d, const ScoreParams &p) {
        if (!p.matrix.empty()) d.matrix.upload(p.matrix.data(), p.matrix.size(), d.stream);
        return {p.match, p.mismatch, p.gap_open, p.gap_extend, p.max_score(),
                p.matrix.empty() ? nullptr : (const int8_t *)d.matrix.get()};
    }

    // Scores one part; returns its top-K (global columns) and counts sections.
    void score_part(DeviceState &d, Part &pt, size_t m, const ScoreParams &p, const SearchOptions &o,
                    uint64_t overlap, std::vector<std::pair<int32_t, uint64_t>> &out, SearchTimings &t) {
        const DeviceScores ds = scores(d, p);
        const uint64_t nload = pt.own_end - pt.load_begin;
        int32_t *d_colmax = pt.colmax.reserve<int32_t>(nload);
        auto t0 = Clock::now();
        if (o.kernel == Kernel::Production) {
            const int rows = m <= 32u * tuning::kRowsSmall ? tuning::kRowsSmall : tuning::kRowsLarge;
            const uint64_t min_own = std::max<uint64_t>(overlap * tuning::kMinOwnPerOverlap, 256);
            // One full wave of warps (two sections each): a partial second
            // wave would cost as much time as a full one.
            const uint64_t wave = (uint64_t)d.sms * dispatch::wavefront_resident_warps_per_sm(rows) * 2;
            const std::vector<Section> secs = plan_sections(pt.own_begin, pt.own_end, overlap, wave, min_own);
            t.sections += (uint32_t)secs.size();
            pt.sections.upload(secs.data(), secs.size(), d.stream);
            uint8_t *d_over = pt.overflow.reserve<uint8_t>(secs.size());
            WM_CUDA_CHECK(cudaMemsetAsync(d_over, 0, secs.size(), d.stream));
            dispatch::wavefront((const uint16_t *)d.query.get(), rows, (const uint8_t *)pt.db.get(), pt.load_begin,
                                (const Section *)pt.sections.get(), (uint32_t)secs.size(), nullptr, false, ds, d_colmax,
                                d_over, d.stream);
            std::vector<uint8_t> over(secs.size());
            WM_CUDA_CHECK(cudaMemcpyAsync(over.data(), d_over, over.size(), cudaMemcpyDeviceToHost, d.stream));
            WM_CUDA_CHECK(cudaStreamSynchronize(d.stream));
            std::vector<uint32_t> list;
            for (uint32_t k = 0; k < over.size(); ++k)
                if (over[k]) list.push_back(k);
            if (!list.empty()) { // 16-bit lanes came near their limit: recompute exactly in 32 bits
                t.fallback_sections += (uint32_t)list.size();
                pt.list.upload(list.data(), list.size(), d.stream);
                dispatch::wavefront((const uint16_t *)d.query.get(), rows, (const uint8_t *)pt.db.get(), pt.load_begin,
                                    (const Section *)pt.sections.get(), (uint32_t)list.size(),
                                    (const uint32_t *)pt.list.get(), true, ds, d_colmax, d_over, d.stream);
            }
        } else {
            void *work = pt.rowpar.reserve<char>(dispatch::rowpar_workspace_bytes(nload));
            float phase[3] = {0, 0, 0};
            dispatch::row_parallel((const uint8_t *)d.query_bytes.get(), (uint32_t)m, (const uint8_t *)pt.db.get(),
                                   nload, ds, d_colmax, work, d.stream, d.device == devices[0] ? phase : nullptr);
            for (int k = 0; k < 3; ++k) t.rowpar_phase_ms[k] += phase[k];
            t.sections += 1;
        }
        WM_CUDA_CHECK(cudaStreamSynchronize(d.stream));
        t.score_ms += ms_since(t0);
        t0 = Clock::now();
        std::vector<int32_t> sc(o.top_k);
        std::vector<uint64_t> col(o.top_k);
        const uint64_t skip = pt.own_begin - pt.load_begin;
        const uint32_t got = dispatch::top_k(d.topk, d_colmax + skip, pt.own_end - pt.own_begin, o.top_k, sc.data(),
                                             col.data(), d.stream);
        for (uint32_t k = 0; k < got; ++k) out.push_back({sc[k], col[k] + pt.own_begin});
        t.topk_ms += ms_since(t0);
    }

    // f(k) for every device on its own host thread; rethrows the first error.
    template <typename F> void for_each_device(F &&f) {
        std::vector<std::exception_ptr> errors(dev.size());
        std::vector<std::thread> threads;
        for (size_t k = 0; k < dev.size(); ++k)
            threads.emplace_back([&, k] {
                try {
                    WM_CUDA_CHECK(cudaSetDevice(dev[k].device));
                    f(k);
                } catch (...) {
                    errors[k] = std::current_exception();
                }
            });
        for (auto &t : threads) t.join();
        for (auto &e : errors)
            if (e) std::rethrow_exception(e);
    }

    // Hits are dealt round-robin to the devices (any device can trace any hit:
    // the window bytes are uploaded from the host).
    void traceback(const uint8_t *query, size_t m, const ScoreParams &p, const SearchOptions &o,
                   std::vector<Hit> &hits) {
        for_each_device([&](size_t k) {
            std::vector<size_t> todo;
            for (size_t h = k; h < hits.size(); h += dev.size()) todo.push_back(h);
            trace_on(dev[k], std::move(todo), query, m, p, o, hits);
        });
    }

    void trace_on(DeviceState &d, std::vector<size_t> todo, const uint8_t *query, size_t m, const ScoreParams &p,
                  const SearchOptions &o, std::vector<Hit> &hits) {
        const DeviceScores ds = scores(d, p);
        // Windows grow 4x per round (traceback_window_for) until the window
        // scores the hit: random DNA hits span ~1.3 m columns, far below the
        // exact bound (~6 m with the seed's scores).
        unsigned round = 0;
        while (!todo.empty()) {
            std::vector<dispatch::TraceJob> jobs;
            std::vector<uint8_t> bytes;
            uint64_t win = 0;
            std::vector<bool> can_widen;
            for (size_t k : todo) {
                const uint64_t want = traceback_window_for(round, m, p, hits[k].score, o.traceback_window);
                const uint64_t end = hits[k].db_end - 1;
                const uint64_t begin = end + 1 > want ? end + 1 - want : 0;
                jobs.push_back({bytes.size(), (uint32_t)(end - begin + 1), 0});
                can_widen.push_back(begin > 0 && want < span_bound(m, p, hits[k].score));
                bytes.insert(bytes.end(), db + begin, db + end + 1);
                win = std::max(win, want);
            }
            const uint32_t max_win = (uint32_t)win;
            const uint32_t max_ops = (uint32_t)(m + win + 1);
            d.tb_db.upload(bytes.data(), bytes.size(), d.stream);
            d.tb_jobs.upload(jobs.data(), jobs.size(), d.stream);
            void *work = d.tb_work.reserve<uint8_t>(dispatch::traceback_workspace_bytes((uint32_t)jobs.size(), max_win, (uint32_t)m));
            auto *d_res = d.tb_res.reserve<dispatch::TraceResult>(jobs.size());
            char *d_ops = d.tb_ops.reserve<char>((size_t)jobs.size() * max_ops);
            dispatch::traceback((const uint8_t *)d.query_bytes.get(), (uint32_t)m, (const uint8_t *)d.tb_db.get(),
                                (const dispatch::TraceJob *)d.tb_jobs.get(), (uint32_t)jobs.size(), max_win, ds, work,
                                d_res, d_ops, max_ops, d.stream);
            std::vector<dispatch::TraceResult> res(jobs.size());
            std::vector<char> ops((size_t)jobs.size() * max_ops);
            WM_CUDA_CHECK(cudaMemcpyAsync(res.data(), d_res, res.size() * sizeof(res[0]), cudaMemcpyDeviceToHost, d.stream));
            WM_CUDA_CHECK(cudaMemcpyAsync(ops.data(), d_ops, ops.size(), cudaMemcpyDeviceToHost, d.stream));
            WM_CUDA_CHECK(cudaStreamSynchronize(d.stream));
            std::vector<size_t> again;
            for (size_t a = 0; a < todo.size(); ++a) {
                Hit &h = hits[todo[a]];
                const dispatch::TraceResult &r = res[a];
                if (r.score < h.score && can_widen[a]) { // the alignment starts before this window
                    again.push_back(todo[a]);
                    continue;
                }
                const uint64_t begin = h.db_end - jobs[a].win_len;
                h.query_end = (uint32_t)r.query_end;
                h.query_begin = (uint32_t)r.query_begin;
                h.db_begin = begin + (uint64_t)r.db_begin;
                if (r.n_ops > 0) h.cigar = cigar_from_reversed_ops(ops.data() + a * max_ops, r.n_ops);
            }
            todo.swap(again);
            ++round;
        }
    }
};

DatabaseSearcher::DatabaseSearcher(const uint8_t *db, uint64_t n, std::vector<int> devices, uint32_t per_device,
                                   uint64_t max_overlap)
    : impl_(new Impl) {
    Impl &s = *impl_;
    s.db = db;
    s.n = n;
    s.max_overlap = max_overlap;
    if (devices.empty())
        for (int k = 0; k < align_device_count(); ++k) devices.push_back(k);
    std::string why;
    if (devices.empty() || !align_gpu_usable(devices[0], &why))
        throw std::runtime_error(why.empty() ? "no CUDA device" : why);
    s.devices = devices;
    for (size_t k = 0; k < devices.size(); ++k) s.dev.emplace_back();
    for (size_t k = 0; k < devices.size(); ++k) {
        DeviceState &d = s.dev[k];
        d.device = devices[k];
        for (DeviceBuffer *b : {&d.tb_db, &d.tb_jobs, &d.tb_work, &d.tb_res, &d.tb_ops}) b->device = d.device;
        WM_CUDA_CHECK(cudaSetDevice(d.device));
        WM_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, d.device));
        WM_CUDA_CHECK(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking));
        d.topk = dispatch::topk_create();
    }
    const uint64_t nparts = (uint64_t)devices.size() * std::max<uint32_t>(per_device, 1);
    const uint64_t per = (n + nparts - 1) / nparts;
    for (uint64_t k = 0; k < nparts; ++k) {
        auto pt = std::make_unique<Part>();
        DeviceState &d = s.dev[k % devices.size()];
        pt->device = d.device;
        pt->own_begin = std::min(n, k * per);
        pt->own_end = std::min(n, (k + 1) * per);
        pt->load_begin = pt->own_begin > max_overlap ? pt->own_begin - max_overlap : 0;
        for (DeviceBuffer *b : {&pt->db, &pt->colmax, &pt->sections, &pt->overflow, &pt->list, &pt->rowpar})
            b->device = d.device;
        WM_CUDA_CHECK(cudaSetDevice(d.device));
        pt->db.upload(db + pt->load_begin, pt->own_end - pt->load_begin, d.stream);
        d.parts.push_back(pt.get());
        s.parts.push_back(std::move(pt));
    }
    for (DeviceState &d : s.dev) {
        WM_CUDA_CHECK(cudaSetDevice(d.device));
        WM_CUDA_CHECK(cudaStreamSynchronize(d.stream));
    }
}

DatabaseSearcher::~DatabaseSearcher() = default;

const std::vector<int> &DatabaseSearcher::devices() const { return impl_->devices; }

SearchResult DatabaseSearcher::search(const uint8_t *query, size_t m, const ScoreParams &p, const SearchOptions &o) {
    p.validate();
    Impl &s = *impl_;
    const auto t0 = Clock::now();
    SearchResult res;
    if (m == 0 || s.n == 0 || o.top_k == 0) return res;
    if (o.kernel == Kernel::Production && m > (size_t)tuning::kMaxQueryRows)
        throw std::invalid_argument("production kernel: query longer than " + std::to_string(tuning::kMaxQueryRows) +
                                    " bytes (use Kernel::RowParallel)");
    const uint64_t overlap = o.overlap ? o.overlap : exact_overlap(m, p);
    if (overlap > s.max_overlap)
        throw std::invalid_argument("overlap " + std::to_string(overlap) + " exceeds the searcher's max_overlap " +
                                    std::to_string(s.max_overlap));
    const int rows = m <= 32u * tuning::kRowsSmall ? tuning::kRowsSmall : tuning::kRowsLarge;
    // Padded codes for the production kernel only: the row-parallel kernel
    // takes queries longer than its 32 * rows registers.
    const std::vector<uint16_t> qc =
        o.kernel == Kernel::Production ? pad_query(query, m, 32 * rows) : std::vector<uint16_t>{};
    std::vector<std::vector<std::pair<int32_t, uint64_t>>> lists(s.dev.size());
    std::vector<SearchTimings> times(s.dev.size());
    s.for_each_device([&](size_t k) {
        DeviceState &d = s.dev[k];
        d.query.device = d.query_bytes.device = d.matrix.device = d.device;
        if (!qc.empty()) d.query.upload(qc.data(), qc.size(), d.stream);
        d.query_bytes.upload(query, m, d.stream);
        for (Part *pt : d.parts) s.score_part(d, *pt, m, p, o, overlap, lists[k], times[k]);
    });
    const auto tm = Clock::now();
    std::vector<std::pair<int32_t, uint64_t>> all;
    for (size_t k = 0; k < s.dev.size(); ++k) {
        all.insert(all.end(), lists[k].begin(), lists[k].end());
        res.timings.score_ms = std::max(res.timings.score_ms, times[k].score_ms);
        res.timings.topk_ms = std::max(res.timings.topk_ms, times[k].topk_ms);
        res.timings.sections += times[k].sections;
        res.timings.fallback_sections += times[k].fallback_sections;
        if (k == 0)
            for (int i = 0; i < 3; ++i) res.timings.rowpar_phase_ms[i] = times[k].rowpar_phase_ms[i];
    }
    std::sort(all.begin(), all.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    if (all.size() > o.top_k) all.resize(o.top_k);
    for (const auto &e : all) {
        Hit h;
        h.score = e.first;
        h.db_end = e.second + 1;
        res.hits.push_back(h);
    }
    res.timings.topk_ms += ms_since(tm);
    if (o.traceback && !res.hits.empty()) {
        const auto tt = Clock::now();
        s.traceback(query, m, p, o, res.hits);
        res.timings.traceback_ms = ms_since(tt);
    }
    res.timings.total_ms = ms_since(t0);
    return res;
}

} // namespace wm::align
