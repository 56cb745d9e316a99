// tests/gpu/test_set_pairs.cpp - Set pairs delivered in place
// (GpuMatcher::scan_set_pairs): the scope check and pair mapping shared by the
// device passes (CPU, always run) and the whole path on the GPU against the
// naive matcher's set, filtered and mapped by a plain reference (skips
// without a device).
#include "gpu/ac_scope.h"
#include "gpu/gpu_testing.h"
#include "reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

using namespace wm::gpu;
using namespace wm::gpu::test;

namespace {

// The rules' semantics, written out independently of ac_scope.h.
bool plain_applies(const PatternScope &s, const PayloadMeta &m) {
    if (s.proto != 0 && s.proto != m.proto) return false;
    if (s.ports.empty()) return true;
    for (const PortRange &r : s.ports)
        for (uint16_t port : {m.src_port, m.dst_port})
            if (port >= r.lo && port <= r.hi) return true;
    return false;
}

// Scopes with distinct ids in shuffled order (so id order != pattern order),
// small port numbers so that ranges hit often.
std::vector<PatternScope> random_scopes(std::mt19937 &rng, size_t n) {
    std::vector<uint32_t> ids(n);
    std::iota(ids.begin(), ids.end(), 1000u);
    std::shuffle(ids.begin(), ids.end(), rng);
    std::vector<PatternScope> out(n);
    for (size_t p = 0; p < n; ++p) {
        out[p].id = ids[p];
        const uint8_t protos[] = {0, 0, 6, 17};
        out[p].proto = protos[rng() % 4];
        for (uint32_t r = rng() % 4; r > 0 && rng() % 2; --r) {
            const uint16_t lo = rng() % 24;
            out[p].ports.push_back({lo, static_cast<uint16_t>(lo + rng() % 4)});
        }
    }
    return out;
}

std::vector<PayloadMeta> random_meta(std::mt19937 &rng, size_t n) {
    std::vector<PayloadMeta> m(n);
    const uint8_t protos[] = {6, 17, 1};
    for (auto &x : m) x = {protos[rng() % 3], static_cast<uint16_t>(rng() % 30), static_cast<uint16_t>(rng() % 30)};
    return m;
}

// Expected pairs: the naive set (ordered by payload, pattern), kept when the
// scope fits (always without meta), ids mapped.
std::vector<SetPair> expected_pairs(const Case &c, const std::vector<PatternScope> *scopes,
                                    const PayloadMeta *meta) {
    std::vector<SetPair> want;
    for (const Match &m : dedup_set(naive_matches(c.pats, c.view()))) {
        if (scopes && meta && !plain_applies((*scopes)[m.pattern], meta[m.payload])) continue;
        want.push_back({scopes ? (*scopes)[m.pattern].id : m.pattern, m.payload});
    }
    return want;
}

bool same_pairs(const SetPair *got, size_t n, const std::vector<SetPair> &want) {
    if (n != want.size()) return false;
    for (size_t i = 0; i < n; ++i)
        if (got[i].id != want[i].id || got[i].payload != want[i].payload) return false;
    return true;
}

} // namespace

TEST(ScopeCpu, FlattenedScopesAgreeWithThePlainRule) {
    std::mt19937 rng(5);
    const auto scopes = random_scopes(rng, 300);
    const FlatScopes f = flatten_scopes(scopes, 300);
    const auto meta = random_meta(rng, 500);
    size_t kept = 0;
    for (uint32_t p = 0; p < scopes.size(); ++p)
        for (const PayloadMeta &m : meta) {
            const bool want = plain_applies(scopes[p], m);
            ASSERT_EQ(scope_applies(f.view(), p, m), want) << "pattern " << p;
            kept += want;
        }
    EXPECT_GT(kept, 0u); // both outcomes occur
    EXPECT_LT(kept, scopes.size() * meta.size());
    EXPECT_TRUE(f.any_constraint);
    EXPECT_FALSE(identity_scopes(10).any_constraint);
}

TEST(ScopeCpu, FlattenRejectsBadScopesNamingThem) {
    std::vector<PatternScope> s(3);
    s[0].id = 1, s[1].id = 2, s[2].id = 3;
    EXPECT_THROW(flatten_scopes(s, 4), std::invalid_argument);
    s[2].id = 2;
    try {
        flatten_scopes(s, 3);
        FAIL() << "repeated id accepted";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("id 2 repeats"), std::string::npos) << e.what();
    }
    s[2].id = 3;
    s[1].ports.push_back({80, 79});
    try {
        flatten_scopes(s, 3);
        FAIL() << "inverted port range accepted";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("pattern 1 has port range 80-79"), std::string::npos) << e.what();
    }
}

// The device passes' CPU twin on random keys: filter keeps order and exactly
// the fitting keys; pair words carry (id, payload) in SetPair's layout.
TEST(ScopeCpu, FilterAndPairWordsMatchAPlainLoop) {
    std::mt19937 rng(11);
    const auto scopes = random_scopes(rng, 64);
    const FlatScopes f = flatten_scopes(scopes, 64);
    const auto meta = random_meta(rng, 200);
    std::vector<unsigned long long> keys;
    for (int i = 0; i < 5000; ++i) keys.push_back(uint64_t{rng() % 200u} << 32 | rng() % 64u);
    std::vector<SetPair> want;
    for (auto k : keys)
        if (plain_applies(scopes[static_cast<uint32_t>(k)], meta[k >> 32]))
            want.push_back({scopes[static_cast<uint32_t>(k)].id, static_cast<uint32_t>(k >> 32)});
    ASSERT_FALSE(want.empty());
    scope_filter_cpu(f.view(), meta.data(), keys);
    keys_to_pairs_cpu(f.id.data(), keys);
    ASSERT_TRUE(same_pairs(reinterpret_cast<const SetPair *>(keys.data()), keys.size(), want));
    std::vector<unsigned long long> untouched{7};
    scope_filter_cpu(f.view(), nullptr, untouched); // no meta: nothing dropped
    EXPECT_EQ(untouched.size(), 1u);
}

// The device's sort path on the CPU: keys of one chunk (payloads
// [base, last]) re-encoded for a short sort, padded, sorted and mapped give
// the pairs ordered by (payload, pattern), as sorting the set keys themselves
// would; the encoded keys fit the sort's end bit, and the pads sort last.
TEST(ScopeCpu, SortKeyCodecOrdersLikeSetKeys) {
    std::mt19937 rng(12);
    for (uint32_t num_patterns : {1u, 2u, 64u, 17918u, 70000u}) {
        const uint32_t base = 1000 + rng() % 5000, span = 1 + rng() % 3000;
        std::vector<uint32_t> id(num_patterns);
        std::iota(id.begin(), id.end(), 7u);
        std::shuffle(id.begin(), id.end(), rng);
        std::vector<unsigned long long> keys;
        for (int i = 0; i < 4000; ++i) keys.push_back(uint64_t{base + rng() % span} << 32 | rng() % num_patterns);
        keys.push_back(uint64_t{base + span - 1} << 32 | (num_patterns - 1)); // the largest key
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        std::vector<unsigned long long> want = keys; // set keys sorted, then mapped
        keys_to_pairs_cpu(id.data(), want);
        const SortKeyCodec codec = sort_key_codec(num_patterns, base);
        const int end_bit = sort_end_bit(codec, base + span - 1);
        for (auto k : keys) ASSERT_LT(codec.encode(k), end_bit >= 64 ? ~0ull : 1ull << end_bit) << std::hex << k;
        EXPECT_LE(end_bit, 32 + 12) << "patterns " << num_patterns; // span < 4096 payloads
        std::shuffle(keys.begin(), keys.end(), rng);
        sorted_pairs_cpu(codec, id.data(), keys.size() + 100, keys);
        EXPECT_EQ(keys, want) << "patterns " << num_patterns;
    }
}

// The whole device path against the reference: one chunk and many (payloads
// split across chunks), few payloads per chunk, the grow + rescan path, with
// and without scopes and meta; each matcher scans twice (buffers reused).
TEST(GpuSetPairs, EqualTheNaiveSetFilteredAndMapped) {
    REQUIRE_GPU();
    for (int seed = 0; seed < 10; ++seed) {
        CaseSpec s;
        s.patterns = 40 + 30 * (seed % 4);
        s.max_len = seed % 2 ? 6 : 30;
        s.payloads = 300;
        s.max_payload = seed % 3 == 0 ? 9000 : 2000;
        Case c = random_case(6000 + seed, s);
        std::mt19937 rng(seed);
        const auto scopes = random_scopes(rng, c.pats.size());
        const auto meta = random_meta(rng, c.offs.size() - 1);
        GpuOptions o;
        if (seed % 3 != 2) o.max_batch_bytes = seed % 3 == 0 ? 4096 : 16384;
        if (seed % 4 == 3) o.max_batch_payloads = 5;
        wm::gpu::testing::set_initial_output_capacity(seed % 5 == 4 ? 16 : 0);
        auto m = GpuMatcher::create(c.pats, o);
        wm::gpu::testing::set_initial_output_capacity(0);
        const std::string label = "seed " + std::to_string(seed);
        const SetPair *got = nullptr;
        // Before set_scopes: ids are pattern indices, meta changes nothing.
        size_t n = m->scan_set_pairs(c.view(), meta.data(), &got);
        ASSERT_TRUE(same_pairs(got, n, expected_pairs(c, nullptr, nullptr))) << label << " identity";
        m->set_scopes(scopes);
        for (int rep = 0; rep < 2; ++rep) {
            n = m->scan_set_pairs(c.view(), meta.data(), &got);
            const auto want = expected_pairs(c, &scopes, meta.data());
            ASSERT_TRUE(same_pairs(got, n, want)) << label << " rep " << rep << ": " << n << " pairs, want "
                                                  << want.size();
        }
        n = m->scan_set_pairs(c.view(), nullptr, &got);
        ASSERT_TRUE(same_pairs(got, n, expected_pairs(c, &scopes, nullptr))) << label << " without meta";
    }
}

TEST(GpuSetPairs, NoMatchesAndBadScopes) {
    REQUIRE_GPU();
    Case c;
    c.pats = {Literal{"zz"}, Literal{"qq"}};
    c.data = {'a', 'b', 'c'};
    c.offs = {0, 3};
    auto m = GpuMatcher::create(c.pats, GpuOptions{});
    const SetPair *got = nullptr;
    EXPECT_EQ(m->scan_set_pairs(c.view(), nullptr, &got), 0u);
    EXPECT_THROW(m->set_scopes(std::vector<PatternScope>(1)), std::invalid_argument);
    EXPECT_THROW(m->set_scopes(std::vector<PatternScope>(2)), std::invalid_argument); // ids 0, 0
}
