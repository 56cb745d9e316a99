// Definitions of the opaque handles of warpmatch.h.
#pragma once

#include "capture/offline_capture.h"
#include "capture/tunnel_ports.h"
#include "compiled_ruleset.h"
#include "scanner.h"

#include <cstring>
#include <initializer_list>
#include <memory>

// The compiled rules are shared with every scanner made from them, so
// wm_ruleset_free may come before wm_scanner_free (a scanner reads its rule
// set's databases on every scan).
struct wm_ruleset {
    explicit wm_ruleset(wm::rules::RuleSet rs) : compiled(std::make_shared<const wm::CompiledRuleSet>(std::move(rs))) {}
    std::shared_ptr<const wm::CompiledRuleSet> compiled;
};

struct wm_scanner {
    wm_scanner(std::shared_ptr<const wm::CompiledRuleSet> rs, const wm_scanner_options_t &o)
        : rules(std::move(rs)), scanner(*rules, o) {}
    std::shared_ptr<const wm::CompiledRuleSet> rules; // declared before scanner: destroyed after it
    wm::Scanner scanner;
};

struct wm_capture {
    explicit wm_capture(const std::string &path) : cap(path) {}
    wm::capture::OfflineCapture cap;
    bool failed = false; // a corrupt record was hit: no further reads
    std::unique_ptr<const wm::capture::TunnelPorts> tunnel_ports; // set by wm_capture_set_tunnel_ports
};

// struct_size must match the library's: a mismatch means a caller built
// against another layout.
template <typename T> bool size_ok(const T *p) { return p && p->struct_size == sizeof(T); }

// Options of a caller built against an earlier header, whose struct ends at
// one of the `older` sizes: its fields over the defaults, in `storage`, with
// the library's struct_size. Any other struct is returned as it is.
template <typename T>
const T *upgraded_options(const T *opts, const T &defaults, std::initializer_list<size_t> older, T &storage) {
    for (const size_t n : older)
        if (opts->struct_size == n) {
            storage = defaults;
            std::memcpy(&storage, opts, n);
            storage.struct_size = sizeof(T);
            return &storage;
        }
    return opts;
}
