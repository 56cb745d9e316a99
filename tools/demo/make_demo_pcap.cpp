// tools/demo/make_demo_pcap.cpp - writes the demo capture.
//
// Usage: make_demo_pcap OUT.pcap
// Run at build time to produce demo/demo.pcap for the quick-start and the
// demo rules; the content is fixed, so the file is byte-identical per build.
#include "demo_traffic.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char **argv) {
    CLI::App app{"Writes the demo capture (fixed content: byte-identical per build)"};
    std::string out_path;
    app.add_option("OUT.pcap", out_path, "capture to write")->required();
    CLI11_PARSE(app, argc, argv);
    try {
        const size_t n = wm::demo::write_demo_pcap(out_path);
        std::printf("make_demo_pcap: wrote %zu packets to %s\n", n, out_path.c_str());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "make_demo_pcap: %s\n", e.what());
        return 1;
    }
    return 0;
}
