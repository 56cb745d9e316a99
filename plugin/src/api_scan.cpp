// C entry points: scanners and batch scanning.
#include "error_object.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/gpu_matcher.h"
#include "handles.h"
#include "status_error.h"

#include <fmt/format.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <string>

using namespace wm;

namespace {
// Releases the scanner's in-use flag on every path out of wm_scan_batch.
struct Holding {
    Scanner &s;
    ~Holding() { s.release(); }
};
} // namespace

extern "C" {

WM_API void wm_scanner_options_init(wm_scanner_options_t *o) {
    if (!o)
        return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->backend = WM_BACKEND_AUTO;
    o->output_mode = WM_OUTPUT_POSITIONS;
}

WM_API int wm_scanner_create(const wm_ruleset_t *rs, const wm_scanner_options_t *opts,
                             wm_scanner_t **out, wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (!rs || !out)
        return set_error(err, WM_INVALID, "wm_scanner_create: rs and out must be non-null");
    *out = nullptr;
    wm_scanner_options_t defaults;
    wm_scanner_options_init(&defaults);
    if (!opts)
        opts = &defaults;
    // Options of a caller built before cpu_threads (0.7). One built before
    // gpu_wait (0.8) cannot be told by its size: its tail padding made its
    // sizeof today's 48 (and it links an older SONAME anyway).
    wm_scanner_options_t upgraded;
    opts = upgraded_options(opts, defaults, {offsetof(wm_scanner_options_t, cpu_threads)}, upgraded);
    if (!size_ok(opts))
        return set_error(err, WM_INVALID,
                         "wm_scanner_create: options not initialised with wm_scanner_options_init");
    if (opts->backend < WM_BACKEND_AUTO || opts->backend > WM_BACKEND_GPU)
        return set_error(err, WM_INVALID, fmt::format("unknown backend {}", opts->backend));
    if (opts->output_mode < WM_OUTPUT_POSITIONS || opts->output_mode > WM_OUTPUT_AUTO)
        return set_error(err, WM_INVALID, fmt::format("unknown output mode {}", opts->output_mode));
    if (opts->gpu_device < 0)
        return set_error(err, WM_INVALID, "gpu_device must be >= 0");
    if (opts->gpu_wait != WM_GPU_WAIT_SPIN && opts->gpu_wait != WM_GPU_WAIT_BLOCK)
        return set_error(err, WM_INVALID, fmt::format("unknown gpu_wait {}", opts->gpu_wait));
    try {
        *out = new wm_scanner(rs->compiled, *opts);
        return WM_SUCCESS;
    } catch (...) {
        return status_from_current_exception(err);
    }
}

WM_API void wm_scanner_free(wm_scanner_t *sc) { delete sc; }

WM_API int wm_scanner_backend(const wm_scanner_t *sc) {
    return sc ? sc->scanner.backend() : WM_INVALID;
}

WM_API const char *wm_scanner_backend_reason(const wm_scanner_t *sc) {
    return sc ? sc->scanner.backend_reason().c_str() : "";
}

WM_API int wm_gpu_h2d_bandwidth(int gpu_device, size_t bytes, int repeats, double *gb_per_s, wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (!gb_per_s || bytes == 0 || repeats < 1)
        return set_error(err, WM_INVALID, "wm_gpu_h2d_bandwidth: gb_per_s, bytes > 0 and repeats >= 1 are required");
    *gb_per_s = 0;
    try {
        std::string why;
        if (!gpu::gpu_usable(gpu_device, &why))
            return set_error(err, WM_NO_GPU, fmt::format("wm_gpu_h2d_bandwidth: GPU {}: {}", gpu_device, why));
        *gb_per_s = gpu::pinned_h2d_gb_per_s(gpu_device, bytes, repeats);
        return WM_SUCCESS;
    } catch (...) {
        return status_from_current_exception(err);
    }
}

} // extern "C"

namespace {
// Checks a batch's shape; WM_SUCCESS or the error, named after `fn`.
int check_batch(const char *fn, const wm_batch_t *batch, wm_error_t **err) {
    if (batch->count == 0)
        return set_error(err, WM_INVALID, fmt::format("{}: empty batch (count == 0)", fn));
    if (!batch->offsets)
        return set_error(err, WM_INVALID, fmt::format("{}: offsets must be non-null", fn));
    for (size_t i = 0; i < batch->count; ++i)
        if (batch->offsets[i + 1] < batch->offsets[i])
            return set_error(err, WM_INVALID,
                             fmt::format("{}: offsets decrease at payload {}", fn, i));
    if (!batch->data && batch->offsets[batch->count] != batch->offsets[0])
        return set_error(err, WM_INVALID, fmt::format("{}: data must be non-null", fn));
    return WM_SUCCESS;
}

// The verification differences of the scanner's last scan, as the error.
int verify_mismatch(const Scanner &s, wm_error_t **err) {
    const auto &rules = s.ruleset().rules();
    std::string msg = fmt::format("{} GPU-only and {} Hyperscan-only matches", s.gpu_only().size(),
                                  s.cpu_only().size());
    size_t shown = 0;
    for (const auto *v : {&s.gpu_only(), &s.cpu_only()})
        for (const auto &m : *v)
            if (shown++ < 20)
                msg += fmt::format("\npayload {} rule {} [{}, {}): {} only", m.payload,
                                   rules[m.rule].id, m.start, m.end,
                                   v == &s.gpu_only() ? "GPU" : "Hyperscan");
    return set_error(err, WM_VERIFY_MISMATCH, msg);
}
} // namespace

extern "C" {

WM_API int wm_scan_batch(wm_scanner_t *sc, const wm_batch_t *batch, wm_match_fn cb, void *ctx,
                         wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (!sc || !batch || !cb)
        return set_error(err, WM_INVALID, "wm_scan_batch: sc, batch and cb must be non-null");
    if (int rc = check_batch("wm_scan_batch", batch, err); rc != WM_SUCCESS)
        return rc;
    if (!sc->scanner.try_acquire())
        return set_error(err, WM_SCRATCH_IN_USE,
                         "wm_scan_batch: scanner in use by another thread; create one per thread");
    Holding hold{sc->scanner};
    try {
        BatchView view{batch->data, batch->offsets, batch->count, batch->meta};
        const uint32_t *ids = sc->scanner.rule_ids().data();
        const int rc = sc->scanner.scan_delivering(view, [&](const Match *m, size_t n) {
            for (size_t i = 0; i < n; ++i)
                if (cb(ids[m[i].rule], m[i].payload, m[i].start, m[i].end, ctx) != 0)
                    return false;
            return true;
        });
        if (rc == WM_SCAN_TERMINATED)
            return WM_SCAN_TERMINATED;
        return rc == WM_VERIFY_MISMATCH ? verify_mismatch(sc->scanner, err) : WM_SUCCESS;
    } catch (...) {
        return status_from_current_exception(err);
    }
}

WM_API int wm_scan_batch_set(wm_scanner_t *sc, const wm_batch_t *batch, const wm_set_hit_t **hits,
                             size_t *count, wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (!hits || !count)
        return set_error(err, WM_INVALID, "wm_scan_batch_set: hits and count must be non-null");
    *hits = nullptr;
    *count = 0;
    if (!sc || !batch)
        return set_error(err, WM_INVALID, "wm_scan_batch_set: sc and batch must be non-null");
    if (int rc = check_batch("wm_scan_batch_set", batch, err); rc != WM_SUCCESS)
        return rc;
    if (!sc->scanner.try_acquire())
        return set_error(err, WM_SCRATCH_IN_USE,
                         "wm_scan_batch_set: scanner in use by another thread; create one per thread");
    Holding hold{sc->scanner};
    try {
        BatchView view{batch->data, batch->offsets, batch->count, batch->meta};
        const int rc = sc->scanner.scan_set(view, hits, count);
        return rc == WM_VERIFY_MISMATCH ? verify_mismatch(sc->scanner, err) : WM_SUCCESS;
    } catch (...) {
        *hits = nullptr;
        *count = 0;
        return status_from_current_exception(err);
    }
}

WM_API int wm_scan_batch_set_submit(wm_scanner_t *sc, const wm_batch_t *batch, wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (!sc || !batch)
        return set_error(err, WM_INVALID, "wm_scan_batch_set_submit: sc and batch must be non-null");
    if (int rc = check_batch("wm_scan_batch_set_submit", batch, err); rc != WM_SUCCESS)
        return rc;
    if (!sc->scanner.try_acquire())
        return set_error(err, WM_SCRATCH_IN_USE,
                         "wm_scan_batch_set_submit: scanner in use by another thread; create one per thread");
    Holding hold{sc->scanner};
    try {
        sc->scanner.submit_set(BatchView{batch->data, batch->offsets, batch->count, batch->meta});
        return WM_SUCCESS;
    } catch (...) {
        return status_from_current_exception(err);
    }
}

WM_API int wm_scan_batch_set_collect(wm_scanner_t *sc, const wm_set_hit_t **hits, size_t *count,
                                     wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (!hits || !count)
        return set_error(err, WM_INVALID, "wm_scan_batch_set_collect: hits and count must be non-null");
    *hits = nullptr;
    *count = 0;
    if (!sc)
        return set_error(err, WM_INVALID, "wm_scan_batch_set_collect: sc must be non-null");
    if (!sc->scanner.try_acquire())
        return set_error(err, WM_SCRATCH_IN_USE,
                         "wm_scan_batch_set_collect: scanner in use by another thread; create one per thread");
    Holding hold{sc->scanner};
    try {
        const int rc = sc->scanner.collect_set(hits, count);
        return rc == WM_VERIFY_MISMATCH ? verify_mismatch(sc->scanner, err) : WM_SUCCESS;
    } catch (...) {
        *hits = nullptr;
        *count = 0;
        return status_from_current_exception(err);
    }
}

namespace {
int batch_buffer_call(const char *fn, wm_scanner_t *sc, unsigned slot, size_t bytes, uint8_t **buf,
                      wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (!sc || !buf || bytes == 0)
        return set_error(err, WM_INVALID, std::string(fn) + ": sc, buf and bytes > 0 are required");
    *buf = nullptr;
    if (slot >= WM_BATCH_BUFFER_SLOTS)
        return set_error(err, WM_INVALID,
                         std::string(fn) + ": slot " + std::to_string(slot) + " out of range (0 to " +
                                             std::to_string(WM_BATCH_BUFFER_SLOTS - 1) + ")");
    // A batch's offsets are 32-bit: a bigger buffer could not be scanned.
    if (bytes > UINT32_MAX)
        return set_error(err, WM_INVALID,
                         fmt::format("{}: {} bytes is more than a batch can hold ({}: its offsets are 32-bit)", fn,
                                     bytes, UINT32_MAX));
    if (!sc->scanner.try_acquire())
        return set_error(err, WM_SCRATCH_IN_USE, std::string(fn) + ": scanner in use");
    Holding hold{sc->scanner};
    try {
        *buf = sc->scanner.batch_buffer(bytes, slot);
        return WM_SUCCESS;
    } catch (const std::bad_alloc &) {
        return set_error(err, WM_NOMEM, fmt::format("{}: out of memory for {} bytes", fn, bytes));
    } catch (...) {
        return status_from_current_exception(err);
    }
}
} // namespace

WM_API int wm_scanner_batch_buffer(wm_scanner_t *sc, size_t bytes, uint8_t **buf,
                                   wm_error_t **err) {
    return batch_buffer_call("wm_scanner_batch_buffer", sc, 0, bytes, buf, err);
}

WM_API int wm_scanner_batch_buffer_at(wm_scanner_t *sc, unsigned slot, size_t bytes, uint8_t **buf,
                                      wm_error_t **err) {
    return batch_buffer_call("wm_scanner_batch_buffer_at", sc, slot, bytes, buf, err);
}

WM_API void wm_scanner_stats_init(wm_scanner_stats_t *st) {
    if (!st)
        return;
    std::memset(st, 0, sizeof(*st));
    st->struct_size = sizeof(*st);
}

WM_API int wm_scanner_stats(const wm_scanner_t *sc, wm_scanner_stats_t *st) {
    // A caller built before the *_seconds fields (early 0.1) passes the shorter
    // struct: fill what it has.
    constexpr size_t v01_size = offsetof(wm_scanner_stats_t, engine_seconds);
    if (!sc || !st || (st->struct_size != v01_size && !size_ok(st)))
        return WM_INVALID;
    const size_t caller_size = st->struct_size;
    wm_scanner_stats_t all = sc->scanner.stats();
    all.struct_size = caller_size;
    std::memcpy(st, &all, caller_size);
    return WM_SUCCESS;
}

} // extern "C"
