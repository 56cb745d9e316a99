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

// The backend WM_FUZZ_BACKEND names (WM_BACKEND_CPU when unset).
inline int backend_from_env() {
    const char *env = std::getenv("WM_FUZZ_BACKEND");
    const std::string name = env && *env ? env : "cpu";
    require(name == "cpu" || name == "gpu" || name == "auto", "WM_FUZZ_BACKEND must be cpu, gpu or auto");
    return name == "cpu" ? WM_BACKEND_CPU : name == "gpu" ? WM_BACKEND_GPU : WM_BACKEND_AUTO;
}

// A scanner of rs in positions mode (which streams need) on that backend.
inline wm_scanner_t *make_scanner(const wm_ruleset_t *rs) {
    wm_scanner_options_t so;
    wm_scanner_options_init(&so);
    so.backend = backend_from_env();
    so.verify_every = so.backend == WM_BACKEND_CPU ? 0 : 1;
    so.output_mode = WM_OUTPUT_POSITIONS;
    wm_scanner_t *sc = nullptr;
    wm_error_t *err = nullptr;
    const int rc = wm_scanner_create(rs, &so, &sc, &err);
    const std::string why = err ? err->message : "?";
    wm_error_free(err);
    require(rc == WM_SUCCESS, "no scanner on the backend WM_FUZZ_BACKEND names: " + why);
    return sc;
}

} // namespace wm::fuzz
