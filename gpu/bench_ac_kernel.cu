// gpu/bench_ac_kernel.cu - kernel throughput of the Aho-Corasick scan.
//
//   bench_ac_kernel [literals.txt] [MiB=256] [payload_bytes=1460]
// literals.txt: one literal per line, "<nocase 0|1>\t<hex bytes>" (else 2000
// random literals). Text: random printable bytes with ~1 planted literal per
// 4 KiB, cut into payloads. Times Count and Positions kernels with CUDA events
// (median of 20 after 3 warm-ups) and the end-to-end GpuMatcher::scan.
#include "gpu/ac_compile.h"
#include "gpu/ac_kernels.h"
#include "gpu/ac_tuning.h"
#include "gpu/cuda_check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>

using namespace wm::gpu;

static std::vector<Literal> load(const char *path, std::mt19937 &rng) {
    std::vector<Literal> v;
    if (path) {
        std::ifstream f(path);
        std::string line;
        while (std::getline(f, line)) {
            auto tab = line.find('\t');
            if (tab == std::string::npos) continue;
            Literal l;
            l.nocase = line[0] == '1';
            for (size_t i = tab + 1; i + 1 < line.size(); i += 2)
                l.bytes.push_back(static_cast<char>(std::stoi(line.substr(i, 2), nullptr, 16)));
            if (!l.bytes.empty()) v.push_back(l);
        }
    }
    if (v.empty())
        for (int i = 0; i < 2000; ++i) {
            Literal l;
            int n = 4 + rng() % 20;
            for (int j = 0; j < n; ++j) l.bytes.push_back(static_cast<char>(32 + rng() % 95));
            l.nocase = rng() & 1;
            v.push_back(l);
        }
    return v;
}

template <typename F> static double median_ms(F f, cudaStream_t s) {
    cudaEvent_t a, b;
    WM_CUDA_CHECK(cudaEventCreate(&a));
    WM_CUDA_CHECK(cudaEventCreate(&b));
    for (int i = 0; i < 3; ++i) f();
    std::vector<float> t;
    for (int i = 0; i < 20; ++i) {
        WM_CUDA_CHECK(cudaEventRecord(a, s));
        f();
        WM_CUDA_CHECK(cudaEventRecord(b, s));
        WM_CUDA_CHECK(cudaEventSynchronize(b));
        float ms;
        WM_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char **argv) {
    std::mt19937 rng(42);
    auto pats = load(argc > 1 ? argv[1] : nullptr, rng);
    const size_t bytes = (argc > 2 ? std::stoul(argv[2]) : 256) << 20;
    const uint32_t plen = argc > 3 ? std::stoul(argv[3]) : 1460;
    AcCompileOptions co;
    co.key_bytes = tuning::kKeyBytes;
    co.dense_budget_bytes = tuning::kDenseBudgetBytes;
    auto t0 = std::chrono::steady_clock::now();
    AcBlob blob = compile_ac(pats, co);
    double compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("patterns %zu, compile %.2f s\n%s\n", pats.size(), compile_s, blob.describe().c_str());

    std::vector<uint8_t> text(bytes);
    for (auto &c : text) c = static_cast<uint8_t>(32 + rng() % 95);
    for (size_t at = 0; at + 700 < bytes; at += 4096) {
        const auto &p = pats[rng() % pats.size()].bytes;
        std::copy(p.begin(), p.end(), text.begin() + at + rng() % 64);
    }
    std::vector<uint32_t> offs;
    for (size_t o = 0; o < bytes; o += plen) offs.push_back(static_cast<uint32_t>(o));
    offs.push_back(static_cast<uint32_t>(bytes));
    BatchView batch{text.data(), offs.data(), static_cast<uint32_t>(offs.size() - 1)};

    cudaDeviceProp prop{};
    WM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    DeviceInfo dev{prop.multiProcessorCount, prop.sharedMemPerBlockOptin};
    std::printf("device %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);

    // One chunk holding the whole buffer.
    ChunkPlanner plan(batch, bytes, batch.count, tuning::kTileBytes, blob.header().max_len);
    Chunk c;
    plan.next(c);
    uint8_t *d_blob, *d_text;
    Segment *d_segs;
    Match *d_out;
    uint32_t *d_count;
    unsigned long long *d_counters;
    const uint32_t cap = 1u << 24;
    WM_CUDA_CHECK(cudaMalloc(&d_blob, blob.bytes.size()));
    WM_CUDA_CHECK(cudaMalloc(&d_text, bytes + 64));
    WM_CUDA_CHECK(cudaMalloc(&d_segs, c.segs.size() * sizeof(Segment)));
    WM_CUDA_CHECK(cudaMalloc(&d_out, size_t{cap} * sizeof(Match)));
    WM_CUDA_CHECK(cudaMalloc(&d_count, 4));
    WM_CUDA_CHECK(cudaMalloc(&d_counters, pats.size() * 8));
    WM_CUDA_CHECK(cudaMemcpy(d_blob, blob.bytes.data(), blob.bytes.size(), cudaMemcpyHostToDevice));
    WM_CUDA_CHECK(cudaMemcpy(d_text, text.data(), c.bytes, cudaMemcpyHostToDevice));
    WM_CUDA_CHECK(cudaMemcpy(d_segs, c.segs.data(), c.segs.size() * sizeof(Segment), cudaMemcpyHostToDevice));
    ScanParams p{};
    p.view = make_ac_view(blob.bytes.data(), d_blob);
    p.d_text = d_text;
    p.d_segs = d_segs;
    p.num_segs = static_cast<uint32_t>(c.segs.size());
    p.num_tiles = c.tiles;
    p.d_matches = d_out;
    p.capacity = cap;
    p.d_count = d_count;
    p.d_counters = d_counters;
    p.shared_counters = ac_prepare_kernels(dev, p.view.num_patterns, p.view.state_bytes);
    cudaStream_t s;
    WM_CUDA_CHECK(cudaStreamCreate(&s));
    const double gb = c.bytes / 1e9;
    double ms_count = median_ms([&] { ac_dispatch_scan(EmitKind::Count, p, dev, s); }, s);
    double ms_pos = median_ms([&] {
        WM_CUDA_CHECK(cudaMemsetAsync(d_count, 0, 4, s));
        ac_dispatch_scan(EmitKind::Positions, p, dev, s);
    }, s);
    uint32_t n = 0;
    WM_CUDA_CHECK(cudaMemcpy(&n, d_count, 4, cudaMemcpyDeviceToHost));
    std::printf("kernel Count     : %8.3f ms  %7.2f GB/s (counters in %s memory)\n", ms_count, gb / (ms_count / 1e3),
                p.shared_counters ? "shared" : "global");
    std::printf("kernel Positions : %8.3f ms  %7.2f GB/s (%u matches)\n", ms_pos, gb / (ms_pos / 1e3), n);

    auto m = GpuMatcher::create(pats, GpuOptions{});
    std::vector<Match> out;
    m->scan(batch, OutputMode::Positions, out); // warm-up
    std::vector<double> ts;
    for (int i = 0; i < 5; ++i) {
        auto a = std::chrono::steady_clock::now();
        m->scan(batch, OutputMode::Positions, out);
        ts.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(ts.begin(), ts.end());
    std::printf("end-to-end scan  : %8.3f ms  %7.2f GB/s (%zu matches, pageable input + pinned staging)\n",
                ts[2] * 1e3, gb / ts[2], out.size());
    return 0;
}
