// tests/fuzz/fuzz_backend.h - the scanner backend a fuzz target tests:
// WM_FUZZ_BACKEND=cpu (the default), gpu or auto. Off the CPU every GPU batch
// is also cross-checked against Hyperscan, so a saved corpus replayed on a
// machine with a GPU holds the GPU engine to the target's properties
// (libFuzzer builds have no CUDA).
#pragma once

#include "tests/fuzz/fuzz_input.h"
#include "warpmatch.h"

#include <cstdlib>
#include <string>

namespace wm::fuzz {

// A scanner of rs in positions mode (which streams need) on that backend.
inline wm_scanner_t *make_scanner(const wm_ruleset_t *rs) {
    const char *env = std::getenv("WM_FUZZ_BACKEND");
    const std::string name = env && *env ? env : "cpu";
    require(name == "cpu" || name == "gpu" || name == "auto", "WM_FUZZ_BACKEND must be cpu, gpu or auto");
    wm_scanner_options_t so;
    wm_scanner_options_init(&so);
    so.backend = name == "cpu" ? WM_BACKEND_CPU : name == "gpu" ? WM_BACKEND_GPU : WM_BACKEND_AUTO;
    so.verify_every = name == "cpu" ? 0 : 1;
    so.output_mode = WM_OUTPUT_POSITIONS;
    wm_scanner_t *sc = nullptr;
    wm_error_t *err = nullptr;
    const int rc = wm_scanner_create(rs, &so, &sc, &err);
    const std::string why = err ? err->message : "?";
    wm_error_free(err);
    require(rc == WM_SUCCESS, "no " + name + " scanner: " + why);
    return sc;
}

} // namespace wm::fuzz
