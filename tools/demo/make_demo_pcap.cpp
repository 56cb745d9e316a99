// tools/demo/make_demo_pcap.cpp - writes the demo capture.
//
// Usage: make_demo_pcap OUT.pcap
// Run at build time to produce demo/demo.pcap for the quick-start and the
// demo rules; the content is fixed, so the file is byte-identical per build.
#include "demo_traffic.h"

#include <cstdio>
#include <exception>

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT.pcap\n", argc > 0 ? argv[0] : "make_demo_pcap");
        return 2;
    }
    try {
        const size_t n = wm::demo::write_demo_pcap(argv[1]);
        std::printf("make_demo_pcap: wrote %zu packets to %s\n", n, argv[1]);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "make_demo_pcap: %s\n", e.what());
        return 1;
    }
    return 0;
}
