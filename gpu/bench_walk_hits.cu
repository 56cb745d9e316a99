// gpu/bench_walk_hits.cu - a study of where the Set kernel's time goes on the
// full ET set (walk_hits_model.h says what is modelled and what is left out;
// PERFORMANCE.md runs 255-259 hold the figures). Kernel 1 walks 64-byte tiles
// (raw payload bytes in registers, the class map in shared memory, a run-out
// past the tile) and stores each Set hit as one word, or only counts them;
// kernel 2 expands stored hits into (payload, pattern) keys, deduplicated per
// unit of 256 tiles in a shared table; kernel 3 fuses the two through a warp
// queue in shared memory, optionally claiming plain hits in a (payload, state)
// table during the walk. Rows: the matcher's 32-bit rows, or 16-bit rows with
// the flags in the entry (ids < 16383) or in a per-state table in shared
// memory (ids < 65535); larger ids read the 32-bit row.
//
//   bench_walk_hits --literals L.txt --corpus C [--gb 2] [--rows 32,16f,16b] [--blocks-per-sm 8,6,4]
//   bench_walk_hits --literals L.txt --corpus C --host-only   (the CPU model's counts, no device)
//
// Every run first checks each kernel on one corpus copy against the CPU
// model: kernel 1's hit records per tile, the other kernels' set of keys.
#include "gpu/ac_bench_corpus.h"
#include "gpu/ac_compile.h"
#include "gpu/ac_tuning.h"
#include "gpu/approx/bench_common.h"
#include "gpu/cuda_check.h"
#include "gpu/walk_hits_host.h"
#include "gpu/walk_hits_fused.cuh"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

using namespace wm::gpu;
using namespace wm::gpu::study;
using namespace wm::gpu::bench;

namespace {

const char *rows_name(HitRows r) {
    return r == HitRows::Wide32 ? "32-bit" : r == HitRows::Narrow16F ? "16-bit, flags in entry" : "16-bit, flags table";
}

struct DeviceText {
    uint8_t *raw = nullptr, *runout = nullptr;
    uint64_t *starts = nullptr;
    uint32_t *first_payload = nullptr, *hits = nullptr, *counts = nullptr;
    unsigned long long *keys = nullptr, *nkeys = nullptr;
    size_t key_cap = 0;
};

// The distinct keys the last kernel-2 or kernel-3 launch wrote.
std::vector<unsigned long long> device_keys(const DeviceText &d) {
    unsigned long long n = 0;
    WM_CUDA_CHECK(cudaMemcpy(&n, d.nkeys, sizeof n, cudaMemcpyDeviceToHost));
    if (n > d.key_cap) throw std::runtime_error("key output overflow in the check");
    std::vector<unsigned long long> keys(n);
    WM_CUDA_CHECK(cudaMemcpy(keys.data(), d.keys, n * 8, cudaMemcpyDeviceToHost));
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
}

bool same_keys(const std::vector<unsigned long long> &got, const std::set<unsigned long long> &want) {
    return got.size() == want.size() && std::equal(got.begin(), got.end(), want.begin());
}

// Kernel 3 (walk and drain fused): checked against the model's keys, then timed.
template <HitRows R, bool STATES>
void run_fused(const HitRowsView &dr, const AcGroupView &hg, const AcGroupView &dg, const HitText &text,
               const DeviceText &d, size_t check_tiles, const std::set<unsigned long long> &want,
               const std::vector<unsigned> &blocks_per_sm, const cudaDeviceProp &prop) {
    auto k3 = fused_set_kernel<R, STATES>;
    const char *what = STATES ? "fused, plain hits in a state table" : "fused walk and drain";
    int fit = 0;
    WM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, k3, kThreads, 0));
    auto launch = [&](unsigned grid, size_t tiles) {
        WM_CUDA_CHECK(cudaMemsetAsync(d.nkeys, 0, sizeof(unsigned long long)));
        k3<<<grid, kThreads>>>(dr, dg.class_map, d.raw, d.starts, d.runout, d.first_payload, dg.depth_end, hg.key_len,
                               tiles, dg.out_off, dg.out_ids, FusedOut{d.keys, d.nkeys, d.key_cap});
        WM_CUDA_CHECK(cudaGetLastError());
    };
    launch(static_cast<unsigned>(fit * prop.multiProcessorCount), check_tiles);
    const std::vector<unsigned long long> keys = device_keys(d);
    const bool equal = same_keys(keys, want);
    std::printf("%-24s %s, check: keys %zu vs model %zu -> %s\n", rows_name(R), what, keys.size(), want.size(),
                equal ? "EQUAL" : "DIFFERENT");
    if (!equal) throw std::runtime_error(std::string(rows_name(R)) + ": the fused kernel differs from the CPU model");
    wm::approx::bench::DeviceTimer timer;
    const double gb = text.tiles * double(kHitTile) / 1e9;
    for (unsigned want_blocks : blocks_per_sm) {
        const int per_sm = std::min<int>(fit, static_cast<int>(want_blocks));
        const double ms = timer.median_ms(7, [&] { launch(static_cast<unsigned>(per_sm * prop.multiProcessorCount), text.tiles); });
        unsigned long long n = 0;
        WM_CUDA_CHECK(cudaMemcpy(&n, d.nkeys, sizeof n, cudaMemcpyDeviceToHost));
        std::printf("%-24s blocks/SM %d: %s %7.3f ms %7.1f GB/s (%llu keys%s)\n", rows_name(R), per_sm, what, ms,
                    gb / ms * 1e3, n, n > d.key_cap ? ", OVERFLOW" : "");
    }
}

template <HitRows R>
void run_rows(const HitRowsView &hr, const HitRowsView &dr, const AcGroupView &hg, const AcGroupView &dg,
              uint32_t flag_words, const HitText &text, const DeviceText &d, size_t check_tiles,
              const std::vector<unsigned> &blocks_per_sm, const cudaDeviceProp &prop) {
    auto k1 = hits_kernel<R>;
    const size_t smem = R == HitRows::Narrow16B ? size_t{flag_words} * 4 : 0;
    if (smem > 48 * 1024) WM_CUDA_CHECK(cudaFuncSetAttribute(k1, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    int fit1 = 0, fit2 = 0;
    WM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit1, k1, kThreads, smem));
    WM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit2, set_drain_kernel, kThreads, 0));
    const unsigned grid2 = static_cast<unsigned>(fit2 * prop.multiProcessorCount);
    auto k1_count = hits_kernel<R, false>;
    if (smem > 48 * 1024)
        WM_CUDA_CHECK(cudaFuncSetAttribute(k1_count, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    auto launch1 = [&](unsigned grid, size_t tiles, bool store = true) {
        (store ? k1 : k1_count)<<<grid, kThreads, smem>>>(dr, dg.class_map, d.raw, d.starts, d.runout, dg.depth_end,
                                                         hg.key_len, flag_words, tiles, d.hits, d.counts);
        WM_CUDA_CHECK(cudaGetLastError());
    };
    auto launch2 = [&](size_t tiles) {
        WM_CUDA_CHECK(cudaMemsetAsync(d.nkeys, 0, sizeof(unsigned long long)));
        set_drain_kernel<<<grid2, kThreads>>>(dg, d.hits, d.counts, d.starts, d.first_payload, tiles, d.keys, d.nkeys,
                                              d.key_cap);
        WM_CUDA_CHECK(cudaGetLastError());
    };
    // Check on one corpus copy: records per tile, then the key set.
    const ModelOut m = run_model<R>(hr, hg, text, check_tiles);
    launch1(static_cast<unsigned>(fit1 * prop.multiProcessorCount), check_tiles);
    launch2(check_tiles);
    std::vector<uint32_t> counts(check_tiles), recs(check_tiles * kHitSlots);
    WM_CUDA_CHECK(cudaMemcpy(counts.data(), d.counts, check_tiles * 4, cudaMemcpyDeviceToHost));
    WM_CUDA_CHECK(cudaMemcpy(recs.data(), d.hits, recs.size() * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t x = 0; x < check_tiles; ++x)
        bad += counts[x] != m.records[x].size() ||
               !std::equal(m.records[x].begin(), m.records[x].end(), recs.begin() + x * kHitSlots);
    const std::vector<unsigned long long> keys = device_keys(d);
    const bool keys_equal = same_keys(keys, m.keys);
    std::printf("%-24s check: %zu tiles, %zu differ from the CPU model; keys %zu vs model %zu -> %s\n",
                rows_name(R), check_tiles, bad, keys.size(), m.keys.size(), keys_equal ? "EQUAL" : "DIFFERENT");
    if (bad || !keys_equal) throw std::runtime_error(std::string(rows_name(R)) + ": the kernels differ from the CPU model");
    // Timing over the whole text.
    wm::approx::bench::DeviceTimer timer;
    const double gb = text.tiles * double(kHitTile) / 1e9;
    for (unsigned want : blocks_per_sm) {
        const int per_sm = std::min<int>(fit1, static_cast<int>(want));
        const unsigned grid1 = static_cast<unsigned>(per_sm * prop.multiProcessorCount);
        const double ms0 = timer.median_ms(7, [&] { launch1(grid1, text.tiles, false); });
        const double ms1 = timer.median_ms(7, [&] { launch1(grid1, text.tiles); });
        const double ms2 = timer.median_ms(7, [&] { launch2(text.tiles); });
        unsigned long long nkeys = 0;
        WM_CUDA_CHECK(cudaMemcpy(&nkeys, d.nkeys, sizeof nkeys, cudaMemcpyDeviceToHost));
        std::printf("%-24s blocks/SM %d: walk, hits counted %7.1f GB/s | walk %7.3f ms %7.1f GB/s | drain %7.3f ms "
                    "%7.1f GB/s | both %7.1f GB/s (%llu keys%s)\n",
                    rows_name(R), per_sm, gb / ms0 * 1e3, ms1, gb / ms1 * 1e3, ms2, gb / ms2 * 1e3,
                    gb / (ms1 + ms2) * 1e3, nkeys, nkeys > d.key_cap ? ", OVERFLOW" : "");
    }
    if constexpr (R != HitRows::Narrow16B) { // kernel 3 has no flags table in shared memory
        run_fused<R, false>(dr, hg, dg, text, d, check_tiles, m.keys, blocks_per_sm, prop);
        run_fused<R, true>(dr, hg, dg, text, d, check_tiles, m.keys, blocks_per_sm, prop);
    }
}

// Hits and items per byte left when a hit on a (payload, plain state)
// already seen within the same `scope` tiles is dropped (an exact filter).
std::pair<double, double> left_by_exact_filter(const AcGroupView &hg, const HostRows &h, const HitText &text,
                                               const ModelOut &m, size_t tiles, size_t scope) {
    uint64_t hits = 0, items = 0;
    for (size_t u0 = 0; u0 < tiles; u0 += scope) {
        std::set<unsigned long long> seen;
        for (size_t x = u0; x < std::min(tiles, u0 + scope); ++x)
            for (uint32_t rec : m.records[x]) {
                const uint32_t s = rec >> kHitPosBits, j = rec & ((1u << kHitPosBits) - 1);
                if (!plain_state(h, s) || seen.insert(hit_key(hit_payload(text.first_payload[x], text.starts[x], j), s)).second)
                    ++hits, items += hg.out_off[s + 1] - hg.out_off[s];
            }
    }
    const double bytes = double(tiles) * kHitTile;
    return {hits / bytes, items / bytes};
}

// --host-only: the CPU model's hits and items per byte over one corpus copy,
// and what filters of the hits would leave of them.
void print_model_counts(const AcGroupView &hg, const HostRows &h, const Corpus &corpus, size_t check_tiles) {
    const HitRowsView hr32{static_cast<const uint32_t *>(hg.dense), nullptr, nullptr, hg.num_classes};
    const HitText text = hit_text(corpus.bytes.data(), corpus.offsets, corpus.bytes.size());
    const ModelOut m = run_model<HitRows::Wide32>(hr32, hg, text, check_tiles);
    const double bytes = double(check_tiles) * kHitTile;
    std::printf("model over %zu tiles: %.4f hits/byte, %.4f items/byte, %zu distinct (payload, pattern) keys\n",
                check_tiles, m.hits / bytes, m.items / bytes, m.keys.size());
    for (size_t scope : {size_t{kUnitTiles}, size_t{1}}) {
        const auto [hits, items] = left_by_exact_filter(hg, h, text, m, check_tiles, scope);
        std::printf("exact (payload, plain state) filter per %zu tile(s): %.4f hits/byte, %.4f items/byte left\n",
                    scope, hits, items);
    }
    // A lossy direct-mapped cache of (payload, plain state) per unit, lanes stepping together.
    for (uint32_t slots : {128u, 256u, 512u}) {
        uint64_t left = 0, left_items = 0;
        for (size_t u0 = 0; u0 < check_tiles; u0 += kUnitTiles) {
            std::vector<unsigned long long> cache(slots, ~0ull);
            const size_t u1 = std::min(check_tiles, u0 + kUnitTiles);
            std::vector<size_t> next(u1 - u0, 0);
            for (uint32_t j = 0; j < kHitSlots; ++j)
                for (size_t x = u0; x < u1; ++x) {
                    auto &r = m.records[x];
                    size_t &at = next[x - u0];
                    if (at >= r.size() || (r[at] & ((1u << kHitPosBits) - 1)) != j) continue;
                    const uint32_t st = r[at++] >> kHitPosBits;
                    const bool plain = plain_state(h, st);
                    const unsigned long long key = hit_key(hit_payload(text.first_payload[x], text.starts[x], j), st);
                    const uint32_t slot = static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ull) >> 40) % slots;
                    if (plain && cache[slot] == key) continue;
                    if (plain && j < kHitTile) cache[slot] = key;
                    ++left, left_items += hg.out_off[st + 1] - hg.out_off[st];
                }
        }
        std::printf("direct-mapped cache of %u slots per unit: %.4f hits/byte, %.4f items/byte left\n", slots,
                    left / bytes, left_items / bytes);
    }
    // Hits whose state's outputs all lie among the K patterns with the most
    // items (plain states only): a lane could OR such a state's K bits into a
    // register instead of queueing it.
    std::vector<uint64_t> items_of(size_t{1} << kPatternBits, 0);
    std::vector<uint64_t> hits_of_state(hg.num_states, 0);
    for (size_t x = 0; x < check_tiles; ++x)
        for (uint32_t rec : m.records[x]) {
            const uint32_t st = rec >> kHitPosBits;
            ++hits_of_state[st];
            for (uint32_t q = hg.out_off[st]; q < hg.out_off[st + 1]; ++q) ++items_of[hg.out_ids[q] & kOutIdMask];
        }
    std::vector<uint32_t> order(items_of.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return items_of[a] > items_of[b]; });
    for (uint32_t k : {8u, 12u, 16u, 24u, 32u}) {
        std::vector<bool> top(items_of.size(), false);
        for (uint32_t i = 0; i < k && i < order.size(); ++i) top[order[i]] = true;
        uint64_t left = 0, left_items = 0;
        for (uint32_t st = 0; st < hg.num_states; ++st) {
            if (!hits_of_state[st]) continue;
            bool covered = plain_state(h, st);
            for (uint32_t q = hg.out_off[st]; q < hg.out_off[st + 1] && covered; ++q) covered = top[hg.out_ids[q] & kOutIdMask];
            if (!covered) left += hits_of_state[st], left_items += hits_of_state[st] * (hg.out_off[st + 1] - hg.out_off[st]);
        }
        std::printf("top %u patterns by items kept out of the queue: %.4f hits/byte, %.4f items/byte left\n", k,
                    left / bytes, left_items / bytes);
    }
}

} // namespace

int main(int argc, char **argv) try {
    CLI::App app{"Where the Set kernel's time goes: a lean walk, its hits stored, drained apart or fused (a study)"};
    std::string literals, corpus_path;
    double gb = 2;
    size_t patterns = 0;
    bool host_only = false;
    std::vector<std::string> rows{"32", "16f", "16b"};
    std::vector<unsigned> blocks_per_sm{8, 6, 4};
    app.add_option("--literals", literals, "literal list (bench_ac_kernel --import-rules)")->required();
    app.add_option("--corpus", corpus_path, "payload corpus (bench_ac_kernel --extract)")->required();
    app.add_option("--gb", gb, "GB of text (the corpus tiled)")->check(CLI::Range(0.001, 8.0));
    app.add_option("--patterns", patterns, "pattern count (0: every literal)");
    app.add_option("--rows", rows, "row layouts: 32, 16f, 16b")->delimiter(',')->check(CLI::IsMember({"32", "16f", "16b"}));
    app.add_option("--blocks-per-sm", blocks_per_sm, "walk: resident blocks of 256 threads per SM")
        ->delimiter(',')
        ->check(CLI::Range(1, 8));
    app.add_flag("--host-only", host_only, "the CPU model's counts over one corpus copy; no device");
    bool drop_runs = false;
    app.add_flag("--drop-runs", drop_runs, "leave out the literals that are one byte repeated");
    CLI11_PARSE(app, argc, argv);
    const auto all = drop_runs ? drop_byte_runs(load_literals(literals)) : load_literals(literals);
    const Corpus corpus = load_corpus(corpus_path);
    const auto pats = literal_subset(all, patterns == 0 || patterns > all.size() ? all.size() : patterns, 7);
    const AcCompileOptions co = study_compile_options();
    const AcBlob blob = compile_ac(pats, co);
    const AcView hv = make_ac_view(blob.bytes.data(), blob.bytes.data());
    if (hv.num_groups != 1 || !ac_all_dense(hv) || hv.state_bytes != 4 || hv.num_patterns > (1u << kPatternBits) ||
        hv.groups[0].num_states >= (1u << kStateBits) - 1) {
        std::fprintf(stderr, "the study needs one group of 32-bit states (< 2^18), every state dense, < 32768 patterns (%s)\n",
                     blob.describe().c_str());
        return 1;
    }
    const AcGroupView &hg = hv.groups[0];
    const HostRows h = host_rows(hg);
    const HitRowsView hr16f{static_cast<const uint32_t *>(hg.dense), h.narrow16f.data(), nullptr, hg.num_classes};
    const HitRowsView hr16b{static_cast<const uint32_t *>(hg.dense), h.narrow16b.data(), h.flags2.data(), hg.num_classes};
    const HitRowsView hr32{static_cast<const uint32_t *>(hg.dense), nullptr, nullptr, hg.num_classes};
    const size_t check_tiles = corpus.bytes.size() / kHitTile;
    std::printf("%zu patterns, %u states, %u classes, %.1f MB of 32-bit rows; corpus %u payloads, %zu bytes\n",
                pats.size(), hg.num_states, hg.num_classes, double(hg.num_states) * hg.num_classes * 4 / 1e6,
                corpus.count(), corpus.bytes.size());
    if (host_only) {
        print_model_counts(hg, h, corpus, check_tiles);
        return 0;
    }
    cudaDeviceProp prop{};
    WM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    const HitText text = hit_text(corpus.bytes.data(), corpus.offsets, static_cast<size_t>(gb * 1e9));
    uint8_t *d_blob;
    WM_CUDA_CHECK(cudaMalloc(&d_blob, blob.bytes.size()));
    WM_CUDA_CHECK(cudaMemcpy(d_blob, blob.bytes.data(), blob.bytes.size(), cudaMemcpyHostToDevice));
    const AcView dv = make_ac_view(blob.bytes.data(), d_blob);
    const AcGroupView &dg = dv.groups[0];
    using wm::approx::bench::upload;
    DeviceText d;
    d.raw = upload(text.raw);
    d.runout = upload(text.runout);
    d.starts = upload(text.starts);
    d.first_payload = upload(text.first_payload);
    WM_CUDA_CHECK(cudaMalloc(&d.hits, text.tiles * kHitSlots * 4));
    WM_CUDA_CHECK(cudaMalloc(&d.counts, text.tiles * 4));
    d.key_cap = text.tiles * kHitTile / 8;
    WM_CUDA_CHECK(cudaMalloc(&d.keys, d.key_cap * 8));
    WM_CUDA_CHECK(cudaMalloc(&d.nkeys, 8));
    const uint16_t *n16f = upload(h.narrow16f), *n16b = upload(h.narrow16b);
    const uint32_t *fl = upload(h.flags2);
    const auto flag_words = static_cast<uint32_t>(h.flags2.size());
    std::printf("text %.2f GB in %zu tiles of %u bytes\n", text.tiles * double(kHitTile) / 1e9, text.tiles, kHitTile);
    for (const std::string &r : rows) {
        const auto *wide = static_cast<const uint32_t *>(dg.dense);
        if (r == "32")
            run_rows<HitRows::Wide32>(hr32, {wide, nullptr, nullptr, hg.num_classes}, hg, dg, 0, text, d, check_tiles,
                                      blocks_per_sm, prop);
        else if (r == "16f")
            run_rows<HitRows::Narrow16F>(hr16f, {wide, n16f, nullptr, hg.num_classes}, hg, dg, 0, text, d, check_tiles,
                                         blocks_per_sm, prop);
        else
            run_rows<HitRows::Narrow16B>(hr16b, {wide, n16b, fl, hg.num_classes}, hg, dg, flag_words, text, d,
                                         check_tiles, blocks_per_sm, prop);
    }
    return 0;
} catch (const std::exception &e) {
    std::fprintf(stderr, "bench_walk_hits: %s\n", e.what());
    return 1;
}
