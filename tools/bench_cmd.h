// `warpmatch bench` arguments and entry point (public C API only).
#pragma once

#include "warpmatch.h"

#include <string>
#include <vector>

struct BenchArgs {
    std::string capture, rules, json;
    size_t corpus_mb = 1024; // corpus size after tiling the capture's payloads
    size_t batch_mb = 64;
    int threads = 0;         // CPU threads for Hyperscan; 0 = all cores
    int repeats = 3;
    bool positions = false;  // also time positions mode (match delivery)
    std::string replay_capture; // a bigger capture for the GPU replay rows (default: capture)
    std::vector<std::string> rows; // only rows whose name contains one of these (empty: all)
    int depth = WM_SET_PIPELINE_DEPTH; // batches the pipelined row keeps submitted
    unsigned read_threads = 0; // replay rows: threads decoding a window (0: the library's default)
    unsigned window_mb = 0;    // replay rows: MiB of capture per window (0: the library's default)
    int gpu_wait = WM_GPU_WAIT_SPIN; // GPU rows: how the scanning thread waits (wm_gpu_wait)
    int payload_layout = WM_PAYLOADS_AUTO; // --replay-capture rows: wm_payload_layout
};

int run_bench(const BenchArgs &a);
