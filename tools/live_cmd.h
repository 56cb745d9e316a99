// `warpmatch live`: scan a network interface (libpcap) with a latency bound.
// Public C API only, like the rest of the CLI.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

struct LiveArgs {
    std::string interface, bpf, rules, output, backend = "auto", matches = "auto";
    std::string tunnel_ports; // the UDP tunnels' ports ("" for the standard ones)
    int snaplen = 262144;
    int buffer_mb = 64;
    bool immediate = false;
    unsigned max_latency_ms = 100;
    double batch_mb = 0;   // 0: by backend
    bool streams = false;
    bool verify = false, quiet = false;
    bool payload = false; // alerts carry payload (base64) and payload_printable
    double duration_s = 0; // 0: until SIGINT/SIGTERM
    int device = 0;
    unsigned cpu_threads = 0; // 0: every core
    int gpu_wait = 0;         // wm_gpu_wait: spin
};

// Registers the subcommand and its flags on app.
CLI::App *add_live_command(CLI::App &app, LiveArgs &a);
int run_live(const LiveArgs &a);
