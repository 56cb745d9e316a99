// C entry points: versions, status names, rule sets, import.
#include "error_object.h"
#include "handles.h"
#include "rules/ids_import.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

#include <sys/stat.h>

using namespace wm;

namespace {
// Whether two paths name one existing file (device and inode).
bool same_file(const char *a, const char *b) {
    struct stat sa {}, sb {};
    return ::stat(a, &sa) == 0 && ::stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
} // namespace

extern "C" {

WM_API const char *wm_version(void) {
#define WM_STR2(x) #x
#define WM_STR(x) WM_STR2(x)
#ifdef WM_HAVE_CUDA
#define WM_BUILD_KIND "cuda"
#else
#define WM_BUILD_KIND "cpu only"
#endif
    return WM_STR(WM_VERSION_MAJOR) "." WM_STR(WM_VERSION_MINOR) "." WM_STR(
        WM_VERSION_PATCH) " (abi " WM_STR(WM_ABI_VERSION) ", " WM_BUILD_KIND ")";
}

WM_API int wm_abi_version(void) { return WM_ABI_VERSION; }

WM_API const char *wm_status_name(int status) {
    switch (status) {
    case WM_SUCCESS: return "WM_SUCCESS";
    case WM_INVALID: return "WM_INVALID";
    case WM_NOMEM: return "WM_NOMEM";
    case WM_RULE_ERROR: return "WM_RULE_ERROR";
    case WM_IO_ERROR: return "WM_IO_ERROR";
    case WM_BAD_STATE: return "WM_BAD_STATE";
    case WM_NO_GPU: return "WM_NO_GPU";
    case WM_GPU_ERROR: return "WM_GPU_ERROR";
    case WM_SCAN_TERMINATED: return "WM_SCAN_TERMINATED";
    case WM_VERIFY_MISMATCH: return "WM_VERIFY_MISMATCH";
    case WM_CAPTURE_ERROR: return "WM_CAPTURE_ERROR";
    case WM_SCRATCH_IN_USE: return "WM_SCRATCH_IN_USE";
    case WM_END: return "WM_END";
    case WM_ENGINE_ERROR: return "WM_ENGINE_ERROR";
    default: return "WM_UNKNOWN_STATUS";
    }
}

WM_API void wm_free(void *p) { std::free(p); }


WM_API int wm_ruleset_load_file(const char *path, wm_ruleset_t **out, wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (!path || !out || !*path)
        return set_error(err, WM_INVALID,
                         !out ? "wm_ruleset_load_file: out is NULL" : "wm_ruleset_load_file: path is NULL or empty");
    *out = nullptr;
    try {
        *out = new wm_ruleset(rules::load_rules_file(path));
        return WM_SUCCESS;
    } catch (const rules::RuleError &e) {
        // An unreadable file is an I/O problem, not a rule problem.
        bool io = e.diagnostics().size() == 1 && e.diagnostics()[0].where.line == 0 &&
                  e.diagnostics()[0].message.rfind("cannot open", 0) == 0;
        return set_error(err, io ? WM_IO_ERROR : WM_RULE_ERROR, e.diagnostics());
    } catch (...) {
        return status_from_current_exception(err);
    }
}

WM_API int wm_ruleset_load_string(const char *yaml, size_t len, const char *name,
                                  wm_ruleset_t **out, wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (!yaml || !out || len == 0)
        return set_error(err, WM_INVALID,
                         "wm_ruleset_load_string: yaml, out must be non-null and len > 0");
    *out = nullptr;
    try {
        *out = new wm_ruleset(rules::load_rules_string(std::string(yaml, len),
                                                       name ? name : "<string>"));
        return WM_SUCCESS;
    } catch (...) {
        return status_from_current_exception(err);
    }
}

WM_API void wm_ruleset_free(wm_ruleset_t *rs) { delete rs; }

WM_API void wm_ruleset_info_init(wm_ruleset_info_t *info) {
    if (!info)
        return;
    std::memset(info, 0, sizeof(*info));
    info->struct_size = sizeof(*info);
}

WM_API int wm_ruleset_info(const wm_ruleset_t *rs, wm_ruleset_info_t *info) {
    if (!rs || !size_ok(info))
        return WM_INVALID;
    const auto &c = *rs->compiled;
    wm_ruleset_info_init(info);
    info->rules = c.rules().size();
    for (const auto &r : c.rules()) {
        info->nocase_rules += r.nocase ? 1 : 0;
        info->approximate_rules += (r.max_edits || r.max_mismatches) ? 1 : 0;
    }
    info->min_pattern_len = c.min_pattern_len();
    info->max_pattern_len = c.max_pattern_len();
    auto hex = fmt::format("{:016x}", c.hash());
    std::memcpy(info->hash, hex.c_str(), 17);
    size_t sz = 0;
    if (c.hs_database())
        hs_database_size(c.hs_database(), &sz);
    info->database_bytes = sz;
    return WM_SUCCESS;
}

WM_API void wm_rule_info_init(wm_rule_info_t *info) {
    if (!info)
        return;
    std::memset(info, 0, sizeof(*info));
    info->struct_size = sizeof(*info);
}

WM_API int wm_ruleset_rule(const wm_ruleset_t *rs, uint32_t rule_id, wm_rule_info_t *info) {
    if (!rs || !size_ok(info))
        return WM_INVALID;
    long i = rs->compiled->index_of(rule_id);
    if (i < 0)
        return WM_INVALID;
    const auto &r = rs->compiled->rules()[i];
    info->id = r.id;
    info->msg = r.msg.c_str();
    info->severity = r.severity;
    info->file = r.where.file.c_str();
    info->line = r.where.line;
    return WM_SUCCESS;
}

WM_API int wm_ruleset_serialize(const wm_ruleset_t *rs, char **bytes, size_t *len) {
    if (!rs || !bytes || !len)
        return WM_INVALID;
    *bytes = nullptr;
    *len = 0;
    if (!rs->compiled->hs_database())
        return WM_BAD_STATE; // no literal rule: no database (documented in warpmatch.h)
    char *hs_bytes = nullptr;
    size_t n = 0;
    if (hs_serialize_database(rs->compiled->hs_database(), &hs_bytes, &n) != HS_SUCCESS)
        return WM_NOMEM;
    // Re-home into malloc'ed memory so wm_free() is always the right free.
    *bytes = static_cast<char *>(std::malloc(n));
    if (!*bytes) {
        std::free(hs_bytes);
        return WM_NOMEM;
    }
    std::memcpy(*bytes, hs_bytes, n);
    std::free(hs_bytes);
    *len = n;
    return WM_SUCCESS;
}

WM_API void wm_import_report_init(wm_import_report_t *r) {
    if (!r)
        return;
    std::memset(r, 0, sizeof(*r));
    r->struct_size = sizeof(*r);
}

WM_API int wm_rules_import(const char *const *files, size_t nfiles, const char *out_yaml,
                           wm_import_report_t *report, wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (!files || nfiles == 0 || !out_yaml || !*out_yaml || !size_ok(report))
        return set_error(err, WM_INVALID,
                         "wm_rules_import: files, nfiles > 0, out_yaml and an initialised "
                         "report are required");
    static thread_local std::string details;
    try {
        std::vector<std::string> paths;
        for (size_t i = 0; i < nfiles; ++i) {
            if (!files[i])
                return set_error(err, WM_INVALID, fmt::format("wm_rules_import: files[{}] is NULL", i));
            paths.emplace_back(files[i]);
            if (same_file(out_yaml, files[i]))
                return set_error(err, WM_INVALID,
                                 fmt::format("wm_rules_import: out_yaml {} is the input file {}; not overwriting it",
                                             out_yaml, files[i]));
        }
        rules::ImportResult res;
        try {
            res = rules::import_ids_rules(paths);
        } catch (const std::runtime_error &e) {
            return set_error(err, WM_IO_ERROR, e.what());
        }
        const auto &r = res.report;
        report->rules_read = r.rules_read;
        report->rules_disabled = r.rules_disabled;
        report->rules_imported = r.rules_imported;
        report->distinct_patterns = r.distinct_patterns;
        report->skipped_no_content = r.skipped_no_content;
        report->skipped_negated_only = r.skipped_negated_only;
        report->skipped_parse_error = r.skipped_parse_error;
        report->skipped_duplicate_sid = r.skipped_duplicate_sid;
        details.clear();
        for (size_t i = 0; i < r.details.size() && i < 1000; ++i)
            details += r.details[i] + "\n";
        report->details = details.c_str();
        std::string yaml = rules::to_yaml(res.rules);
        FILE *f = std::fopen(out_yaml, "wb");
        if (!f)
            return set_error(err, WM_IO_ERROR,
                             fmt::format("cannot write {}: {}", out_yaml, std::strerror(errno)));
        bool ok = std::fwrite(yaml.data(), 1, yaml.size(), f) == yaml.size();
        ok = (std::fclose(f) == 0) && ok;
        if (!ok)
            return set_error(err, WM_IO_ERROR, fmt::format("error writing {}", out_yaml));
        return WM_SUCCESS;
    } catch (...) {
        return status_from_current_exception(err);
    }
}

} // extern "C"
