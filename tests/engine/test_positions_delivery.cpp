// Positions mode on the GPU backend, host side. PositionsExpander against a
// plain expansion (every rule of a match's pattern, kept when
// CompiledRuleSet::applies, ordered by sort_matches), on chunks made here as
// the device makes them: sorted keys, or records in any order with holes.
// Runs without a GPU. Scanner::scan_delivering (wm_scan_batch) equals scan()
// on the CPU path, also with Hyperscan's runs delivered as its threads
// finish them, and stops when asked; on the GPU fast path (skips without a
// device) it equals the CPU path for any number of host threads. With
// Wanted::FirstPerRule, Hyperscan's runs bring exactly each (payload, rule)'s
// first match and the expander's slices no repeat within themselves.
#include "compiled_ruleset.h"
#include "gpu_engine.h"
#include "positions_expansion.h"
#include "random_rules.h"
#include "gpu/gpu_testing.h"
#include "scanner.h"
#include "status_error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <tuple>

using namespace wm;

namespace {

struct Fixture {
    CompiledRuleSet crs;
    GpuPatterns g;
    std::vector<uint32_t> len;
    test::OwnedBatch batch;
    explicit Fixture(uint32_t seed, size_t rules, size_t payloads)
        : crs(test::scoped_rules(seed, rules)), g(gpu_patterns(crs)), batch(test::random_batch(seed, payloads)) {
        for (const auto &l : g.literals) len.push_back(static_cast<uint32_t>(l.bytes.size()));
    }
    PatternRules pattern_rules() const {
        return {g.rule_begin.data(), g.rules.data(), len.data(), g.flat.view(), g.flat.any_constraint,
                static_cast<uint32_t>(crs.rules().size())};
    }
};

// Distinct device matches (pattern, payload, end >= the pattern's length)
// over the batch's payloads, sorted as the device sorts them. Ends are drawn
// from the first few that fit, so a (payload, end) often has many patterns.
std::vector<gpu::Match> device_matches(const Fixture &f, size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<gpu::Match> m;
    const auto &off = f.batch.offsets;
    for (size_t k = 0; k < n; ++k) {
        const uint32_t p = rng() % f.len.size(), payload = rng() % (off.size() - 1);
        const uint32_t plen = off[payload + 1] - off[payload];
        if (plen < f.len[p]) continue;
        m.push_back({p, payload, f.len[p] + static_cast<uint32_t>(rng() % std::min<uint32_t>(plen - f.len[p] + 1, 3))});
    }
    auto key = [](const gpu::Match &x) { return std::tie(x.payload, x.end, x.pattern); };
    std::sort(m.begin(), m.end(), [&](const gpu::Match &a, const gpu::Match &b) { return key(a) < key(b); });
    m.erase(std::unique(m.begin(), m.end(), [&](const gpu::Match &a, const gpu::Match &b) { return key(a) == key(b); }),
            m.end());
    return m;
}

std::vector<Match> plain_expansion(const Fixture &f, const std::vector<gpu::Match> &dm, const wm_payload_meta_t *meta) {
    std::vector<Match> out;
    for (const auto &m : dm)
        for (uint32_t i = f.g.rule_begin[m.pattern]; i < f.g.rule_begin[m.pattern + 1]; ++i) {
            const uint32_t rule = f.g.rules[i];
            if (!meta || CompiledRuleSet::applies(f.crs.rules()[rule], meta[m.payload]))
                out.push_back({rule, m.payload, m.end - f.len[m.pattern], m.end});
        }
    sort_matches(out);
    return out;
}

// The chunk as the device hands it over: keys sorted by (payload, end, pattern).
gpu::PositionsChunk keyed_chunk(const Fixture &f, const std::vector<gpu::Match> &dm,
                                std::vector<unsigned long long> &keys) {
    gpu::PositionsChunk c;
    uint32_t max_end = 0;
    for (const auto &m : dm) max_end = std::max(max_end, m.end);
    EXPECT_TRUE(gpu::positions_key_codec(static_cast<uint32_t>(f.len.size()), 0,
                                         static_cast<uint32_t>(f.batch.offsets.size() - 2), max_end, &c.codec));
    keys.clear();
    for (const auto &m : dm) keys.push_back(c.codec.encode(m));
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
    c.keys = keys.data();
    c.count = static_cast<uint32_t>(keys.size());
    return c;
}

std::vector<Match> expanded(PositionsExpander &x, const gpu::PositionsChunk &c, const Fixture &f,
                            const wm_payload_meta_t *meta, size_t *spans = nullptr,
                            Wanted wanted = Wanted::EveryMatch) {
    std::vector<Match> out;
    size_t n = 0;
    EXPECT_TRUE(x.expand(
        c, f.pattern_rules(), meta,
        [&](const Match *m, size_t k) {
            EXPECT_GT(k, 0u);
            out.insert(out.end(), m, m + k);
            ++n;
            return true;
        },
        wanted));
    if (spans) *spans = n;
    return out;
}

// The first match of each (payload, rule) of canonically ordered matches.
std::vector<Match> firsts_of(const std::vector<Match> &all) {
    std::set<std::pair<uint32_t, uint32_t>> seen;
    std::vector<Match> out;
    for (const auto &m : all)
        if (seen.insert({m.payload, m.rule}).second) out.push_back(m);
    return out;
}

// Whether a (payload, rule) comes twice in m[0, n).
bool repeats_within(const Match *m, size_t n) {
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (size_t i = 0; i < n; ++i)
        if (!seen.insert({m[i].payload, m[i].rule}).second) return true;
    return false;
}

} // namespace

// Big enough to be cut into slices; groups of one (payload, end) straddle
// the even cut points, so slices start at group boundaries.
TEST(PositionsExpander, SortedChunkEqualsThePlainExpansionForAnyThreadCount) {
    for (uint32_t seed = 1; seed <= 3; ++seed) {
        Fixture f(seed, 400, 200);
        const auto dm = device_matches(f, 300000, seed);
        ASSERT_GT(dm.size(), 100000u); // several slices of kMinSliceMatches
        std::vector<unsigned long long> keys;
        const gpu::PositionsChunk c = keyed_chunk(f, dm, keys);
        for (bool meta : {true, false}) {
            const wm_payload_meta_t *m = meta ? f.batch.meta.data() : nullptr;
            const auto want = plain_expansion(f, dm, m);
            ASSERT_FALSE(want.empty());
            for (unsigned threads : {1u, 2u, 7u}) {
                PositionsExpander x(threads);
                size_t spans = 0;
                EXPECT_EQ(expanded(x, c, f, m, &spans), want) << "seed " << seed << " threads " << threads;
                if (threads > 1) EXPECT_GT(spans, 1u) << "cut into slices";
                EXPECT_EQ(expanded(x, c, f, m), want) << "the reused buffer, again";
            }
        }
    }
}

// First per rule: every slice's matches are the first of their (payload,
// rule) within it, so the consumer's filter gives the plain expansion's
// firsts, and most repeats never reach it.
TEST(PositionsExpander, FirstPerRuleLeavesRepeatsOutOfEachSlice) {
    Fixture f(4, 300, 120);
    const auto dm = device_matches(f, 300000, 4);
    std::vector<unsigned long long> keys;
    const gpu::PositionsChunk c = keyed_chunk(f, dm, keys);
    for (bool meta : {true, false}) {
        const wm_payload_meta_t *m = meta ? f.batch.meta.data() : nullptr;
        const auto all = plain_expansion(f, dm, m);
        const auto want = firsts_of(all);
        ASSERT_LT(want.size() * 2, all.size()) << "the test needs repeats";
        for (unsigned threads : {1u, 3u, 7u}) {
            SCOPED_TRACE(testing::Message() << threads << " threads, meta " << meta);
            PositionsExpander x(threads);
            std::vector<Match> got;
            size_t spans = 0;
            EXPECT_TRUE(x.expand(
                c, f.pattern_rules(), m,
                [&](const Match *s, size_t n) {
                    EXPECT_FALSE(repeats_within(s, n));
                    got.insert(got.end(), s, s + n);
                    ++spans;
                    return true;
                },
                Wanted::FirstPerRule));
            if (threads > 1) EXPECT_GT(spans, 1u);
            EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), [](const Match &a, const Match &b) {
                return std::tie(a.payload, a.end, a.rule, a.start) < std::tie(b.payload, b.end, b.rule, b.start);
            }));
            EXPECT_LT(got.size() - want.size(), (all.size() - want.size()) / 4) << "most repeats left out";
            EXPECT_EQ(firsts_of(got), want);
            EXPECT_EQ(expanded(x, c, f, m), all) << "every match again after firsts";
        }
    }
}

// A chunk too wide to key comes back in kernel order, with holes.
TEST(PositionsExpander, UnsortedChunkWithHolesIsExpandedAndSorted) {
    Fixture f(9, 120, 80);
    auto dm = device_matches(f, 5000, 9);
    const auto want = plain_expansion(f, dm, f.batch.meta.data());
    std::vector<gpu::Match> records = dm;
    for (size_t k = 0; k < 300; ++k) records.insert(records.begin() + (k * 37) % records.size(), {gpu::kHolePattern, 0, 0});
    std::shuffle(records.begin(), records.end(), std::mt19937(9));
    gpu::PositionsChunk c;
    c.records = records.data();
    c.count = static_cast<uint32_t>(records.size());
    PositionsExpander x(4);
    EXPECT_EQ(expanded(x, c, f, f.batch.meta.data()), want);
}

TEST(PositionsExpander, SinkStopsTheChunk) {
    Fixture f(5, 300, 200);
    const auto dm = device_matches(f, 300000, 5);
    std::vector<unsigned long long> keys;
    const gpu::PositionsChunk c = keyed_chunk(f, dm, keys);
    PositionsExpander x(3);
    size_t calls = 0;
    EXPECT_FALSE(x.expand(c, f.pattern_rules(), nullptr, [&](const Match *, size_t) { return ++calls < 2; }));
    EXPECT_EQ(calls, 2u);
    gpu::PositionsChunk empty;
    EXPECT_TRUE(x.expand(empty, f.pattern_rules(), nullptr, [&](const Match *, size_t) { return false; }));
}

namespace {

// scan_delivering's spans, concatenated; stop_after: the deliver call that returns false (0: never).
std::vector<Match> delivered(Scanner &sc, const BatchView &v, int want_rc, size_t stop_after = 0,
                             Wanted wanted = Wanted::EveryMatch) {
    std::vector<Match> out;
    size_t calls = 0;
    EXPECT_EQ(sc.scan_delivering(
                  v,
                  [&](const Match *m, size_t n) {
                      out.insert(out.end(), m, m + n);
                      return ++calls != stop_after;
                  },
                  wanted),
              want_rc);
    if (stop_after) EXPECT_EQ(calls, stop_after);
    return out;
}

std::vector<Match> cpu_scan(const CompiledRuleSet &crs, const BatchView &v) {
    Scanner sc(crs, test::scanner_options(WM_BACKEND_CPU));
    std::vector<Match> out;
    EXPECT_EQ(sc.scan(v, out), WM_SUCCESS);
    return out;
}

} // namespace

TEST(ScanDelivering, CpuPathEqualsScanAndStops) {
    CompiledRuleSet crs(test::scoped_rules(21, 150));
    const auto b = test::random_batch(21, 300);
    Scanner sc(crs, test::scanner_options(WM_BACKEND_CPU));
    for (bool meta : {true, false}) {
        const auto want = cpu_scan(crs, b.view(meta));
        ASSERT_FALSE(want.empty());
        EXPECT_EQ(delivered(sc, b.view(meta), WM_SUCCESS), want);
    }
    EXPECT_EQ(delivered(sc, b.view(), WM_SCAN_TERMINATED, 1), cpu_scan(crs, b.view()));
    EXPECT_EQ(sc.stats().batches, 3u);
}

// The CPU backend's pipelined path: Hyperscan's runs scanned, ordered and
// scope-filtered on pool threads and delivered in order as they finish,
// one span per run; a stop delivers a prefix of whole runs.
TEST(ScanDelivering, CpuRunsDeliveredInOrderForAnyThreadCount) {
    CompiledRuleSet crs(test::scoped_rules(22, 150));
    const auto b = test::random_batch(22, 4000); // ~0.8 MB: up to 50 runs of 16 KB
    for (bool meta : {true, false}) {
        const auto want = cpu_scan(crs, b.view(meta));
        ASSERT_GT(want.size(), 10000u);
        for (unsigned threads : {1u, 2u, 5u, 9u}) {
            SCOPED_TRACE(testing::Message() << threads << " threads, meta " << meta);
            wm_scanner_options_t o = test::scanner_options(WM_BACKEND_CPU);
            o.cpu_threads = threads;
            Scanner sc(crs, o);
            size_t spans = 0;
            std::vector<Match> got;
            EXPECT_EQ(sc.scan_delivering(b.view(meta),
                                         [&](const Match *m, size_t n) {
                                             EXPECT_GT(n, 0u);
                                             got.insert(got.end(), m, m + n);
                                             return ++spans > 0;
                                         }),
                      WM_SUCCESS);
            EXPECT_EQ(got, want);
            if (threads >= 5) EXPECT_GE(spans, 4u) << "the runs were not delivered apart";
            EXPECT_EQ(sc.stats().matches, want.size());
            if (threads < 5) continue;
            const auto prefix = delivered(sc, b.view(meta), WM_SCAN_TERMINATED, 2);
            ASSERT_LT(prefix.size(), want.size());
            EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), want.begin())) << "not a prefix";
        }
    }
}

// First per rule on the CPU backend: a run holds whole payloads, so its
// thread leaves out every repeat and the consumer gets exactly the firsts
// (the earliest (end, start) whatever order Hyperscan reports in), counted
// as the batch's matches.
TEST(ScanDelivering, CpuFirstPerRuleDeliversExactlyTheFirsts) {
    CompiledRuleSet crs(test::scoped_rules(23, 150));
    const auto b = test::random_batch(23, 4000);
    for (bool meta : {true, false}) {
        const auto all = cpu_scan(crs, b.view(meta));
        const auto want = firsts_of(all);
        ASSERT_LT(want.size() * 2, all.size()) << "the test needs repeats";
        for (unsigned threads : {1u, 2u, 5u}) {
            SCOPED_TRACE(testing::Message() << threads << " threads, meta " << meta);
            wm_scanner_options_t o = test::scanner_options(WM_BACKEND_CPU);
            o.cpu_threads = threads;
            Scanner sc(crs, o);
            EXPECT_EQ(delivered(sc, b.view(meta), WM_SUCCESS, 0, Wanted::FirstPerRule), want);
            EXPECT_EQ(sc.stats().matches, want.size());
            EXPECT_EQ(delivered(sc, b.view(meta), WM_SUCCESS), all) << "every match again after firsts";
        }
    }
}

// The fast path: chunks expanded and delivered while later ones are on the
// device (small chunks here, so a batch has many), by 1 or 5 host threads;
// with verification the general path, the same matches.
TEST(ScanDeliveringGpu, FastPathEqualsTheCpuPathForAnyHostThreads) {
    std::string why;
    if (!gpu::gpu_usable(0, &why)) GTEST_SKIP() << "no CUDA device: " << why;
    for (uint32_t seed = 1; seed <= 3; ++seed) {
        CompiledRuleSet crs(test::scoped_rules(seed, 200));
        const auto b = test::random_batch(seed, 3000);
        for (unsigned threads : {1u, 5u})
            for (unsigned verify : {0u, 1u}) {
                auto o = test::scanner_options(WM_BACKEND_GPU, WM_OUTPUT_POSITIONS, verify);
                o.cpu_threads = threads;
                o.max_batch_bytes = 64 << 10;
                Scanner gpu(crs, o);
                ASSERT_EQ(gpu.backend(), WM_BACKEND_GPU);
                for (bool meta : {true, false}) {
                    const auto want = cpu_scan(crs, b.view(meta));
                    ASSERT_FALSE(want.empty());
                    EXPECT_EQ(delivered(gpu, b.view(meta), WM_SUCCESS), want)
                        << "seed " << seed << " threads " << threads << " verify " << verify << " meta " << meta;
                }
                EXPECT_EQ(gpu.stats().batches, 2u);
                EXPECT_EQ(gpu.stats().verify_mismatches, 0u);
                { // first per rule: what comes holds every first, in order
                    const auto want = cpu_scan(crs, b.view(true));
                    const auto got = delivered(gpu, b.view(true), WM_SUCCESS, 0, Wanted::FirstPerRule);
                    EXPECT_EQ(firsts_of(got), firsts_of(want)) << "seed " << seed << " threads " << threads;
                    EXPECT_LE(got.size(), want.size());
                    EXPECT_EQ(gpu.stats().batches, 3u);
                }
                // Stopped at a span (the general path has one): what came is a prefix of the whole.
                const auto want = cpu_scan(crs, b.view());
                const auto got = delivered(gpu, b.view(), WM_SCAN_TERMINATED, verify ? 1 : 2);
                ASSERT_LE(got.size(), want.size());
                EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin()));
            }
    }
}

// A GPU failure in the middle of a batch (the third chunk here): under
// `auto` the scanner finishes the batch on Hyperscan and delivers exactly
// what the GPU had not, so the whole is the CPU path's, nothing twice; with
// `gpu` it is an error after a prefix. 64 KB chunks, 3 host threads.
TEST(ScanDeliveringGpu, FailureMidBatchDeliversEverythingOnceUnderAuto) {
    std::string why;
    if (!gpu::gpu_usable(0, &why)) GTEST_SKIP() << "no CUDA device: " << why;
    CompiledRuleSet crs(test::scoped_rules(31, 200));
    const auto b = test::random_batch(31, 3000);
    const auto want = cpu_scan(crs, b.view());
    for (int backend : {WM_BACKEND_AUTO, WM_BACKEND_GPU}) {
        auto o = test::scanner_options(backend);
        o.cpu_threads = 3;
        o.max_batch_bytes = 64 << 10;
        Scanner sc(crs, o);
        ASSERT_EQ(sc.backend(), WM_BACKEND_GPU);
        gpu::testing::fail_positions_chunk(3);
        std::vector<Match> got;
        size_t spans = 0;
        auto deliver = [&](const Match *m, size_t n) {
            got.insert(got.end(), m, m + n);
            ++spans;
            return true;
        };
        if (backend == WM_BACKEND_AUTO) {
            EXPECT_EQ(sc.scan_delivering(b.view(), deliver), WM_SUCCESS);
            EXPECT_EQ(got, want);
            EXPECT_GT(spans, 2u); // two chunks from the GPU, the rest from Hyperscan
            EXPECT_EQ(sc.backend(), WM_BACKEND_CPU);
            EXPECT_EQ(sc.stats().batches, 1u);
        } else {
            EXPECT_THROW(sc.scan_delivering(b.view(), deliver), StatusError);
            ASSERT_LT(got.size(), want.size());
            EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin()));
            EXPECT_EQ(sc.backend(), WM_BACKEND_GPU);
        }
        gpu::testing::fail_positions_chunk(0);
    }
}

// The caller stops at its first span; a later chunk then fails on the GPU
// (the device goes on with the batch meanwhile). Under `auto` the scanner
// falls back, but calls the caller no more and says the scan was stopped.
TEST(ScanDeliveringGpu, AStopBeforeAGpuFailureIsKeptUnderAuto) {
    std::string why;
    if (!gpu::gpu_usable(0, &why)) GTEST_SKIP() << "no CUDA device: " << why;
    CompiledRuleSet crs(test::scoped_rules(31, 200));
    const auto b = test::random_batch(31, 3000);
    auto o = test::scanner_options(WM_BACKEND_AUTO);
    o.cpu_threads = 3;
    o.max_batch_bytes = 64 << 10;
    Scanner sc(crs, o);
    ASSERT_EQ(sc.backend(), WM_BACKEND_GPU);
    gpu::testing::fail_positions_chunk(3);
    size_t calls = 0;
    auto stop_at_first = [&](const Match *, size_t) { return ++calls == 0; };
    EXPECT_EQ(sc.scan_delivering(b.view(), stop_at_first), WM_SCAN_TERMINATED);
    gpu::testing::fail_positions_chunk(0);
    EXPECT_EQ(calls, 1u);
    EXPECT_EQ(sc.backend(), WM_BACKEND_CPU);
    EXPECT_EQ(sc.stats().batches, 1u);
}
