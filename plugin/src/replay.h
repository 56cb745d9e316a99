// Replay: offline capture -> batches (payloads back to back) -> scanner ->
// alerts in packet order. The C API's wm_replay_file is a thin wrapper.
#pragma once

#include "scanner.h"
#include "warpmatch.h"

#include <string>

namespace wm {

struct ReplayCallbacks {
    wm_alert_fn on_alert = nullptr;
    void *alert_ctx = nullptr;
    wm_progress_fn on_progress = nullptr;
    void *progress_ctx = nullptr;
};

// Returns WM_SUCCESS, WM_CAPTURE_ERROR (corrupt file: everything before it
// scanned and reported), WM_VERIFY_MISMATCH or WM_SCAN_TERMINATED, with a
// message in *error; stats are filled in every case. Throws on I/O errors
// opening the file (CaptureError) and on engine failures.
int replay_file(Scanner &sc, const std::string &path, const ReplayCallbacks &cb,
                wm_replay_stats_t &stats, std::string *error);

} // namespace wm
