#include "cli_output.h"

#include <fmt/format.h>

int report_failure(int rc, wm_error_t *err, const std::string &what) {
    if (rc == WM_SUCCESS)
        return 0;
    fmt::print(stderr, "warpmatch: {} failed ({}):\n{}\n", what, wm_status_name(rc),
               err && err->message ? err->message : "");
    wm_error_free(err);
    return 1;
}

int print_alert(const wm_alert_t *a, void *printer) {
    auto *p = static_cast<AlertPrinter *>(printer);
    char *json = nullptr;
    bool written = true;
    if (wm_alert_to_json_ex(p->rs, a, p->eve_flags, &json) == WM_SUCCESS)
        written = std::fputs(json, p->out) != EOF && std::fputc('\n', p->out) != EOF;
    wm_free(json);
    return written ? 0 : 1; // a failed write (disk full, closed pipe) stops the scan: alerts would be lost
}
