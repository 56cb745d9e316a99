// Definitions of the opaque handles of warpmatch.h.
#pragma once

#include "capture/offline_capture.h"
#include "compiled_ruleset.h"
#include "scanner.h"

#include <memory>

struct wm_ruleset {
    explicit wm_ruleset(wm::rules::RuleSet rs) : compiled(std::move(rs)) {}
    wm::CompiledRuleSet compiled;
};

struct wm_scanner {
    wm_scanner(const wm::CompiledRuleSet &rs, const wm_scanner_options_t &o) : scanner(rs, o) {}
    wm::Scanner scanner;
};

struct wm_capture {
    explicit wm_capture(const std::string &path) : cap(path) {}
    wm::capture::OfflineCapture cap;
    bool failed = false; // a corrupt record was hit: no further reads
};

// struct_size must match the library's: a mismatch means a caller built
// against another layout.
template <typename T> bool size_ok(const T *p) { return p && p->struct_size == sizeof(T); }
