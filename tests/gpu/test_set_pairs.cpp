// tests/gpu/test_set_pairs.cpp - Set pairs delivered in place
// (GpuMatcher::scan_set_pairs): the scope check and pair mapping shared by the
// device passes (CPU, always run) and the whole path on the GPU against the
// naive matcher's set, filtered and mapped by a plain reference, one batch at
// a time and pipelined (submit/collect); GPU tests skip without a device.
#include "gpu/ac_scope.h"
#include "gpu/gpu_testing.h"
#include "reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
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

// Rules sharing literals: the entries of `scopes` (one per pattern) name
// their pattern explicitly, about a tenth of the patterns lose theirs, a
// third gain one to three more (new ids and scopes), and the list is shuffled
// so that entry order is not pattern order.
std::vector<PatternScope> shared_entries(std::mt19937 &rng, std::vector<PatternScope> scopes) {
    const uint32_t patterns = static_cast<uint32_t>(scopes.size());
    for (uint32_t p = 0; p < patterns; ++p) scopes[p].pattern = p;
    uint32_t next_id = 1000 + patterns;
    for (uint32_t p = 0; p < patterns; ++p)
        for (uint32_t k = rng() % 3 == 0 ? 1 + rng() % 3 : 0; k > 0; --k) {
            PatternScope extra = random_scopes(rng, 1)[0];
            extra.id = next_id++;
            extra.pattern = p;
            scopes.push_back(extra);
        }
    scopes.erase(std::remove_if(scopes.begin(), scopes.end(), [&](const PatternScope &) { return rng() % 10 == 0; }),
                 scopes.end());
    std::shuffle(scopes.begin(), scopes.end(), rng);
    return scopes;
}

uint32_t pattern_of(const std::vector<PatternScope> &scopes, uint32_t e) {
    return scopes[e].pattern == PatternScope::kEntryIndex ? e : scopes[e].pattern;
}

// Expected pairs: the naive set, each (payload, pattern) replaced by the
// pattern's entries whose scope fits (all without meta), ordered by
// (payload, entry), ids mapped; without scopes, entry = pattern.
std::vector<SetPair> expected_pairs(const Case &c, const std::vector<PatternScope> *scopes,
                                    const PayloadMeta *meta) {
    std::vector<std::pair<uint32_t, uint32_t>> keys; // (payload, entry)
    for (const Match &m : dedup_set(naive_matches(c.pats, c.view()))) {
        if (!scopes) {
            keys.push_back({m.payload, m.pattern});
            continue;
        }
        for (uint32_t e = 0; e < scopes->size(); ++e)
            if (pattern_of(*scopes, e) == m.pattern && (!meta || plain_applies((*scopes)[e], meta[m.payload])))
                keys.push_back({m.payload, e});
    }
    std::sort(keys.begin(), keys.end());
    std::vector<SetPair> want;
    for (const auto &[payload, e] : keys) want.push_back({scopes ? (*scopes)[e].id : e, payload});
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

namespace {
// flatten_scopes' std::invalid_argument message, or "accepted".
std::string flatten_error(const std::vector<PatternScope> &s, uint32_t num_patterns) {
    try {
        flatten_scopes(s, num_patterns);
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return "accepted";
}
} // namespace

TEST(ScopeCpu, FlattenRejectsBadScopesNamingThem) {
    std::vector<PatternScope> s(3);
    s[0].id = 1, s[1].id = 2, s[2].id = 3;
    EXPECT_NE(flatten_error(s, 4).find("3 scopes for 4 patterns"), std::string::npos) << flatten_error(s, 4);
    s[2].id = 2;
    EXPECT_NE(flatten_error(s, 3).find("id 2 repeats"), std::string::npos) << flatten_error(s, 3);
    s[2].id = 3;
    s[1].ports.push_back({80, 79});
    EXPECT_NE(flatten_error(s, 3).find("entry 1 has port range 80-79"), std::string::npos) << flatten_error(s, 3);
    s[1].ports.clear();
    s[2].pattern = 3;
    EXPECT_NE(flatten_error(s, 3).find("entry 2 (id 3) names pattern 3 of 3"), std::string::npos)
        << flatten_error(s, 3);
    s[2].pattern = 0; // two entries on pattern 0, none on 2: allowed
    const FlatScopes f = flatten_scopes(s, 3);
    EXPECT_EQ(f.entry_begin, (std::vector<uint32_t>{0, 2, 3, 3}));
    EXPECT_EQ(f.entry, (std::vector<uint32_t>{0, 2, 1}));
    EXPECT_FALSE(f.one_per_pattern);
    EXPECT_TRUE(identity_scopes(3).one_per_pattern);
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
    expand_keys_cpu(f.view(), meta.data(), keys);
    keys_to_pairs_cpu(f.id.data(), keys);
    ASSERT_TRUE(same_pairs(reinterpret_cast<const SetPair *>(keys.data()), keys.size(), want));
    std::vector<unsigned long long> untouched{7};
    expand_keys_cpu(f.view(), nullptr, untouched); // no meta: nothing dropped
    EXPECT_EQ(untouched, std::vector<unsigned long long>{7});
}

// Shared patterns: a key becomes each entry of its pattern that fits, in
// entry order, none for a pattern without entries; without meta, all of them.
TEST(ScopeCpu, ExpansionGivesEachFittingEntryOfThePattern) {
    std::mt19937 rng(13);
    const auto entries = shared_entries(rng, random_scopes(rng, 64));
    const FlatScopes f = flatten_scopes(entries, 64);
    ASSERT_FALSE(f.one_per_pattern);
    const auto meta = random_meta(rng, 200);
    std::vector<unsigned long long> keys;
    for (int i = 0; i < 5000; ++i) keys.push_back(uint64_t{rng() % 200u} << 32 | rng() % 64u);
    for (const PayloadMeta *m : {meta.data(), static_cast<const PayloadMeta *>(nullptr)}) {
        std::vector<SetPair> want;
        for (auto k : keys)
            for (uint32_t e = 0; e < entries.size(); ++e)
                if (pattern_of(entries, e) == static_cast<uint32_t>(k) &&
                    (!m || plain_applies(entries[e], m[k >> 32])))
                    want.push_back({entries[e].id, static_cast<uint32_t>(k >> 32)});
        ASSERT_GT(want.size(), m ? 0u : keys.size()) << "some keys expand to several entries";
        std::vector<unsigned long long> got = keys;
        expand_keys_cpu(f.view(), m, got);
        keys_to_pairs_cpu(f.id.data(), got);
        ASSERT_TRUE(same_pairs(reinterpret_cast<const SetPair *>(got.data()), got.size(), want))
            << (m ? "with" : "without") << " meta";
    }
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
        const auto shared = shared_entries(rng, scopes); // rules sharing patterns: keys expand
        m->set_scopes(flatten_scopes(shared, static_cast<uint32_t>(c.pats.size()))); // flattened by the caller
        for (const PayloadMeta *mp : {meta.data(), static_cast<const PayloadMeta *>(nullptr)}) {
            n = m->scan_set_pairs(c.view(), mp, &got);
            const auto want = expected_pairs(c, &shared, mp);
            ASSERT_TRUE(same_pairs(got, n, want)) << label << " shared, meta " << (mp != nullptr) << ": " << n
                                                  << " pairs, want " << want.size();
        }
    }
}

namespace {
// Payloads [first, last) of c as a case of their own (same patterns).
Case slice(const Case &c, size_t first, size_t last) {
    Case s;
    s.pats = c.pats;
    s.data.assign(c.data.begin() + c.offs[first], c.data.begin() + c.offs[last]);
    for (size_t i = first + 1; i <= last; ++i) s.offs.push_back(c.offs[i] - c.offs[first]);
    return s;
}
} // namespace

// A matcher's host buffers are sized on first use and grow on demand: a small
// batch first, then one with 60x the payloads (the meta buffers grow) and
// ~1 pair per 5 bytes, far over the pair buffer sized for 1 per 32 (it grows
// between chunks while earlier chunks' copies into it are in flight).
TEST(GpuSetPairs, HostBuffersGrowWithoutLosingPairs) {
    REQUIRE_GPU();
    CaseSpec s = sized_spec(300, 3, 6000, 60);
    s.offset_depth = false;
    Case c = random_case(77, s);
    std::mt19937 rng(77);
    const auto scopes = random_scopes(rng, c.pats.size());
    const auto meta = random_meta(rng, c.offs.size() - 1);
    GpuOptions o;
    o.max_batch_bytes = 16384;
    auto m = GpuMatcher::create(c.pats, o);
    m->set_scopes(scopes);
    const Case small = slice(c, 0, 100);
    const SetPair *got = nullptr;
    size_t n = m->scan_set_pairs(small.view(), meta.data(), &got);
    ASSERT_TRUE(same_pairs(got, n, expected_pairs(small, &scopes, meta.data()))) << "small batch";
    const auto want = expected_pairs(c, &scopes, meta.data());
    ASSERT_GT(want.size(), c.data.size() / 5) << "the case must be dense enough to outgrow the buffers";
    for (int rep = 0; rep < 2; ++rep) {
        n = m->scan_set_pairs(c.view(), meta.data(), &got);
        ASSERT_TRUE(same_pairs(got, n, want)) << "rep " << rep << ": " << n << " pairs, want " << want.size();
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
    EXPECT_THROW(m->set_scopes(identity_scopes(3)), std::invalid_argument);          // for 3 patterns, not 2
}

// A submit that fails after earlier ones (here the page-locked buffer of its
// batch) drops every pending batch, as a failure in a later step does: the
// scanner drops its own then, and a later collect must return the batch
// submitted after the failure, not one from before it.
TEST(GpuSetPairs, AFailedSubmitDropsTheBatchesBeforeIt) {
    REQUIRE_GPU();
    CaseSpec s;
    s.patterns = 40;
    s.payloads = 200;
    const Case a = random_case(901, s), c = random_case(902, s);
    auto m = GpuMatcher::create(a.pats, GpuOptions{});
    m->submit_set_pairs(a.view(), nullptr);
    wm::gpu::testing::fail_pair_buffer_allocation(1); // the second batch's buffer, allocated on first use
    EXPECT_THROW(m->submit_set_pairs(a.view(), nullptr), GpuError);
    wm::gpu::testing::fail_pair_buffer_allocation(0);
    EXPECT_EQ(m->pending_set_batches(), 0u);
    Case c_same = c;
    c_same.pats = a.pats;
    m->submit_set_pairs(c_same.view(), nullptr);
    const SetPair *got = nullptr;
    const size_t n = m->collect_set_pairs(&got);
    EXPECT_TRUE(same_pairs(got, n, expected_pairs(c_same, nullptr, nullptr))) << n << " pairs";
    EXPECT_EQ(m->pending_set_batches(), 0u);
}

// Fewer scope entries than patterns (a pattern may have none): the sort
// must still take every distinct (pattern, payload) key, before expansion
// drops those of patterns without an entry. It took payloads x entries of
// them, in hash order, and lost most of the pairs.
TEST(GpuSetPairs, FewerEntriesThanPatternsLoseNoPair) {
    REQUIRE_GPU();
    Case c;
    c.pats = {Literal{"aa"}, Literal{"bb"}, Literal{"cc"}, Literal{"dd"}};
    const std::string one = "aabbccdd";
    for (int i = 0; i < 100; ++i) {
        c.data.insert(c.data.end(), one.begin(), one.end());
        c.offs.push_back(static_cast<uint32_t>(c.data.size()));
    }
    PatternScope dd;
    dd.id = 7;
    dd.pattern = 3;
    const std::vector<PatternScope> scopes{dd};
    for (const size_t batch : {size_t{0}, size_t{4096}}) {
        GpuOptions o;
        if (batch) o.max_batch_bytes = batch;
        auto m = GpuMatcher::create(c.pats, o);
        m->set_scopes(scopes);
        const SetPair *got = nullptr;
        const size_t n = m->scan_set_pairs(c.view(), nullptr, &got);
        ASSERT_EQ(n, 100u) << "batch bytes " << batch;
        for (size_t i = 0; i < n; ++i) {
            EXPECT_EQ(got[i].id, 7u);
            EXPECT_EQ(got[i].payload, i);
        }
        ASSERT_TRUE(same_pairs(got, n, expected_pairs(c, &scopes, nullptr)));
    }
}


// submit_set_pairs / collect_set_pairs with two batches in flight (seeds 0, 1,
// 4, 5) or kPendingBatches (seeds 2, 3) return, batch by batch, what the
// reference gives each batch alone; scan() and count() may run between (they
// finish the pending chunks first). Small chunks interleave the batches'
// chunks in the slots; a tiny output capacity makes pending chunks rescan; odd
// seeds scan from the matcher's pinned buffers (batch i in buffer i % depth,
// filled just before its submit, as a capture loop would).
TEST(GpuSetPairs, PipelinedBatchesEqualTheReference) {
    REQUIRE_GPU();
    for (int seed = 0; seed < 6; ++seed) {
        CaseSpec s;
        s.patterns = 60;
        s.max_len = seed % 2 ? 6 : 30;
        s.payloads = 400;
        s.max_payload = seed % 3 == 0 ? 9000 : 1500;
        const Case all = random_case(7100 + seed, s);
        std::mt19937 rng(seed);
        auto scopes = random_scopes(rng, all.pats.size());
        if (seed >= 3) scopes = shared_entries(rng, scopes); // keys expand to several entries
        const auto meta = random_meta(rng, all.offs.size() - 1);
        std::vector<Case> parts; // batches of 40, 60, 80, ... payloads
        std::vector<const PayloadMeta *> metas;
        for (size_t a = 0, k = 0; a < 400; ++k) {
            const size_t b = std::min<size_t>(400, a + 40 + 20 * k);
            parts.push_back(slice(all, a, b));
            metas.push_back(meta.data() + a);
            a = b;
        }
        GpuOptions o;
        if (seed % 3 != 2) o.max_batch_bytes = seed % 3 == 0 ? 4096 : 16384;
        // Seeds with overflowing outputs wait on blocking events (HostWait).
        if (seed % 3 == 1) o.wait = HostWait::Block;
        wm::gpu::testing::set_initial_output_capacity(seed % 3 == 1 ? 16 : 0);
        auto m = GpuMatcher::create(all.pats, o);
        wm::gpu::testing::set_initial_output_capacity(0);
        m->set_scopes(scopes);
        const bool pinned = seed % 2;
        const unsigned depth = seed % 4 < 2 ? 2 : GpuMatcher::kPendingBatches;
        static_assert(GpuMatcher::kPinnedSlots >= GpuMatcher::kPendingBatches, "a buffer per pending batch");
        std::vector<uint8_t *> pin;
        for (unsigned d = 0; d < depth; ++d) pin.push_back(m->pinned_buffer(all.data.size(), d));
        const std::string label = "seed " + std::to_string(seed) + " depth " + std::to_string(depth) +
                                  (o.wait == HostWait::Block ? " blocking waits" : "");
        std::deque<size_t> queued;
        size_t next = 0;
        auto submit = [&] {
            BatchView v = parts[next].view();
            if (pinned) {
                std::copy(parts[next].data.begin(), parts[next].data.end(), pin[next % depth]);
                v.data = pin[next % depth];
            }
            m->submit_set_pairs(v, metas[next]);
            queued.push_back(next++);
            EXPECT_EQ(m->pending_set_batches(), queued.size());
        };
        auto collect = [&] {
            const size_t i = queued.front();
            queued.pop_front();
            const SetPair *got = nullptr;
            const size_t n = m->collect_set_pairs(&got);
            const auto want = expected_pairs(parts[i], &scopes, metas[i]);
            EXPECT_TRUE(same_pairs(got, n, want)) << label << " batch " << i << ": " << n << " pairs, want "
                                                  << want.size();
        };
        while (next < parts.size()) {
            submit();
            if (next == 3) { // positions and counts while batches are pending
                std::vector<Match> pos;
                m->scan(parts[0].view(), OutputMode::Positions, pos);
                sort_matches(pos);
                auto want = naive_matches(all.pats, parts[0].view());
                sort_matches(want);
                EXPECT_TRUE(pos == want) << label << ": " << pos.size() << " positions, want " << want.size();
                std::vector<uint64_t> per;
                m->count(parts[0].view(), per);
                EXPECT_EQ(std::accumulate(per.begin(), per.end(), uint64_t{0}), want.size()) << label;
            }
            if (queued.size() == depth) collect();
        }
        while (!queued.empty()) collect();
        EXPECT_EQ(m->pending_set_batches(), 0u);
    }
}

// Misuse is refused with a reason and leaves the pipeline usable.
TEST(GpuSetPairs, PipelineMisuseIsRefused) {
    REQUIRE_GPU();
    CaseSpec s;
    const Case c = random_case(7200, s);
    auto m = GpuMatcher::create(c.pats, GpuOptions{});
    const SetPair *got = nullptr;
    EXPECT_THROW(m->collect_set_pairs(&got), std::logic_error);
    uint8_t *pin = m->pinned_buffer(c.data.size(), 0);
    for (unsigned i = 0; i < GpuMatcher::kPendingBatches; ++i) m->submit_set_pairs(c.view(), nullptr);
    EXPECT_THROW(m->submit_set_pairs(c.view(), nullptr), std::logic_error);
    EXPECT_THROW(m->scan_set_pairs(c.view(), nullptr, &got), std::logic_error);
    EXPECT_THROW(m->pinned_buffer(c.data.size() + (1 << 20), 0), std::logic_error);
    EXPECT_EQ(m->pinned_buffer(c.data.size(), 0), pin); // no growth: allowed
    const auto want = expected_pairs(c, nullptr, nullptr);
    for (unsigned i = 0; i < GpuMatcher::kPendingBatches; ++i) {
        const size_t n = m->collect_set_pairs(&got);
        EXPECT_TRUE(same_pairs(got, n, want)) << "batch " << i;
    }
    EXPECT_TRUE(same_pairs(got, m->scan_set_pairs(c.view(), nullptr, &got), want));
}
