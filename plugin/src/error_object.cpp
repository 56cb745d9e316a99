#include "error_object.h"

#include "capture/offline_capture.h"
#include "gpu/gpu_matcher.h"
#include "status_error.h"

#include <new>

namespace wm {

namespace {

struct ErrorStorage {
    wm_error_t pub; // first member: wm_error_free casts back
    std::string message;
    std::vector<std::string> messages, files;
    std::vector<wm_diagnostic_t> diags;
};

// Reporting out-of-memory must not allocate (hyperscan keeps the same).
const wm_diagnostic_t kOomDiag{"out of memory", "", 0, 0, -1};
wm_error_t kOomError{WM_NOMEM, "out of memory", 1, &kOomDiag};

int build(wm_error_t **err, int code, const std::vector<rules::Diagnostic> &diags) {
    if (!err)
        return code;
    try {
        auto *s = new ErrorStorage;
        s->messages.reserve(diags.size());
        s->files.reserve(diags.size());
        for (const auto &d : diags) {
            s->messages.push_back(d.message);
            s->files.push_back(d.where.file);
            if (!s->message.empty())
                s->message += '\n';
            s->message += d.to_string();
        }
        for (size_t i = 0; i < diags.size(); ++i)
            s->diags.push_back(wm_diagnostic_t{s->messages[i].c_str(), s->files[i].c_str(),
                                               diags[i].where.line, diags[i].where.column,
                                               diags[i].rule_id});
        s->pub = wm_error_t{code, s->message.c_str(), s->diags.size(), s->diags.data()};
        *err = &s->pub;
    } catch (const std::bad_alloc &) {
        *err = &kOomError;
        return WM_NOMEM;
    }
    return code;
}

} // namespace

int set_error(wm_error_t **err, int code, const std::string &message) {
    rules::Diagnostic d;
    d.message = message;
    return build(err, code, {d});
}

int set_error(wm_error_t **err, int code, const std::vector<rules::Diagnostic> &diags) {
    return build(err, code, diags);
}

int status_from_current_exception(wm_error_t **err) {
    try {
        throw;
    } catch (const rules::RuleError &e) {
        return set_error(err, WM_RULE_ERROR, e.diagnostics());
    } catch (const StatusError &e) {
        return set_error(err, e.code(), e.what());
    } catch (const capture::CaptureError &e) {
        return set_error(err, WM_CAPTURE_ERROR, e.what());
    } catch (const gpu::GpuError &e) {
        return set_error(err, WM_GPU_ERROR, e.what());
    } catch (const std::bad_alloc &) {
        if (err)
            *err = &kOomError;
        return WM_NOMEM;
    } catch (const std::exception &e) {
        return set_error(err, WM_INVALID, e.what());
    } catch (...) {
        return set_error(err, WM_INVALID, "unknown internal error");
    }
}

} // namespace wm

extern "C" WM_API void wm_error_free(wm_error_t *err) {
    if (!err || err == &wm::kOomError)
        return;
    delete reinterpret_cast<wm::ErrorStorage *>(err);
}
