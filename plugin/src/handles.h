// Definitions of the opaque handles of warpmatch.h.
#pragma once

#include "capture/offline_capture.h"
#include "capture/tunnel_ports.h"
#include "compiled_ruleset.h"
#include "scanner.h"

#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>

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

// The error of a struct argument whose struct_size is not the library's
// (empty when it is): names the argument, both sizes and its *_init.
template <typename T> std::string struct_size_error(const char *fn, const char *name, const T *p, const char *init) {
    if (!p) return std::string(fn) + ": " + name + " is NULL";
    if (p->struct_size == sizeof(T)) return {};
    return std::string(fn) + ": " + name + "->struct_size is " + std::to_string(p->struct_size) + ", not " +
           std::to_string(sizeof(T)) + ": initialise it with " + init;
}

// What of a replay's arguments is missing or not initialised, for its
// error (empty when nothing is). Also wm_replay_file_ex's first check.
inline std::string replay_args_error(const char *fn, const wm_scanner_t *sc, const char *path,
                                     const wm_replay_stats_t *stats) {
    if (!sc) return std::string(fn) + ": sc (the scanner) is NULL";
    if (!path || !*path) return std::string(fn) + ": path is NULL or empty";
    return struct_size_error(fn, "stats", stats, "wm_replay_stats_init");
}
