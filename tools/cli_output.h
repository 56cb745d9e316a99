// Output helpers shared by the CLI's subcommands: failure reports and the
// EVE alert printer (public C API only).
#pragma once

#include "warpmatch.h"

#include <cstdio>
#include <string>

// Prints "warpmatch: WHAT failed (WM_...):\n<diagnostics>", frees err,
// returns 1 (or 0 when rc is WM_SUCCESS).
int report_failure(int rc, wm_error_t *err, const std::string &what);

// Alert callback context: one EVE JSON line per alert on `out`. (-q passes
// no callback at all: the library then only counts the alerts.)
struct AlertPrinter {
    const wm_ruleset_t *rs;
    FILE *out;
    unsigned eve_flags = 0; // wm_eve_flags: the optional payload fields
};

// wm_alert_fn that prints through an AlertPrinter; returns 1 (stop) when a write fails.
int print_alert(const wm_alert_t *a, void *printer);
