// tests/exact/test_long_literal.cpp - batch long literal matcher: CPU walk and
// GPU vs a naive scan and Hyperscan, with payload boundaries, offset/depth,
// nocase, periodic literals and empty payloads.
#include "gpu/exact/long_literal_matcher.h"
#include "exact_reference.h"

#include <gtest/gtest.h>

using namespace wm::gpu;
using namespace wm::gpu::exact::test;

namespace wm::gpu { // test-only ordering (ADL finds it from std algorithms)
inline bool operator<(const Match &a, const Match &b) {
    return std::tie(a.pattern, a.payload, a.end) < std::tie(b.pattern, b.payload, b.end);
}
inline bool operator==(const Match &a, const Match &b) {
    return a.pattern == b.pattern && a.payload == b.payload && a.end == b.end;
}
} // namespace wm::gpu

namespace {

struct BatchCase {
    std::vector<Literal> lits;
    std::string data;
    std::vector<uint32_t> offsets{0};
    BatchView view() const {
        return BatchView{reinterpret_cast<const uint8_t *>(data.data()), offsets.data(),
                         static_cast<uint32_t>(offsets.size() - 1)};
    }
};

std::vector<Match> naive(const BatchCase &c) {
    std::vector<Match> out;
    for (uint32_t i = 0; i + 1 < c.offsets.size(); ++i) {
        const std::string pay = c.data.substr(c.offsets[i], c.offsets[i + 1] - c.offsets[i]);
        for (uint32_t k = 0; k < c.lits.size(); ++k) {
            const Literal &l = c.lits[k];
            for (uint32_t s : wm::gpu::exact::brute_search(u8(pay), pay.size(), l.bytes, l.nocase)) {
                const uint64_t e = s + l.bytes.size();
                if (s >= l.offset && (l.depth == 0 || e <= uint64_t{l.offset} + l.depth))
                    out.push_back(Match{k, i, static_cast<uint32_t>(e)});
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<Match> hyperscan(const BatchCase &c) {
    std::vector<Match> out;
    for (uint32_t i = 0; i + 1 < c.offsets.size(); ++i) {
        const std::string pay = c.data.substr(c.offsets[i], c.offsets[i + 1] - c.offsets[i]);
        for (uint32_t k = 0; k < c.lits.size(); ++k) {
            const Literal &l = c.lits[k];
            for (uint32_t s : hyperscan_search(pay, l.bytes, l.nocase)) {
                const uint64_t e = s + l.bytes.size();
                if (s >= l.offset && (l.depth == 0 || e <= uint64_t{l.offset} + l.depth))
                    out.push_back(Match{k, i, static_cast<uint32_t>(e)});
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

BatchCase random_batch(uint64_t seed) {
    std::mt19937_64 rng(seed);
    BatchCase c;
    const size_t nlit = 1 + rng() % 12;
    for (size_t k = 0; k < nlit; ++k) {
        const size_t m = 33 + rng() % 700;
        Literal l;
        l.bytes = k % 3 == 0 ? periodic_pattern(rng, m, 1 + rng() % 20, 3) : random_bytes(rng, m, 3);
        l.nocase = k % 4 == 1;
        if (k % 5 == 2) l.offset = static_cast<uint32_t>(rng() % 100);
        if (k % 5 == 3) l.depth = static_cast<uint32_t>(m + rng() % 400);
        c.lits.push_back(l);
    }
    const size_t payloads = rng() % 60;
    for (size_t i = 0; i < payloads; ++i) {
        const size_t len = rng() % 5 == 0 ? 0 : rng() % 3000;
        std::string pay = random_bytes(rng, len, 3);
        for (int t = 0; t < 3 && !c.lits.empty(); ++t) {
            const Literal &l = c.lits[rng() % c.lits.size()];
            if (l.bytes.size() <= pay.size()) plant(pay, l.bytes, rng() % (pay.size() - l.bytes.size() + 1));
        }
        if (i % 2 && !pay.empty()) { // a literal cut by the payload end
            const Literal &l = c.lits[rng() % c.lits.size()];
            plant(pay, l.bytes, pay.size() - std::min(pay.size(), l.bytes.size() / 2));
        }
        if (rng() % 3 == 0)
            for (auto &ch : pay)
                if (rng() % 2) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        c.data += pay;
        c.offsets.push_back(static_cast<uint32_t>(c.data.size()));
    }
    return c;
}

TEST(LongLiteral, CpuEqualsNaiveAndHyperscan) {
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        const BatchCase c = random_batch(seed);
        const auto ref = naive(c);
        ASSERT_EQ(hyperscan(c), ref) << "seed " << seed << ": hyperscan";
        std::vector<Match> got;
        long_literal_scan_cpu(c.lits, c.view(), got);
        std::sort(got.begin(), got.end());
        ASSERT_EQ(got, ref) << "seed " << seed;
    }
}

// The batch's payloads left in place, as a replay window leaves them:
// payload i at sources[i] of a buffer with other bytes between them.
struct InPlace {
    std::string raw;
    std::vector<uint32_t> sources;
    explicit InPlace(const BatchCase &c) {
        for (size_t i = 0; i + 1 < c.offsets.size(); ++i) {
            raw += std::string(i % 7, 'a'); // bytes that would complete a literal if read
            sources.push_back(static_cast<uint32_t>(raw.size()));
            raw += c.data.substr(c.offsets[i], c.offsets[i + 1] - c.offsets[i]);
        }
    }
    BatchView view(const BatchCase &c) const {
        BatchView v = c.view();
        v.data = reinterpret_cast<const uint8_t *>(raw.data());
        v.sources = sources.data();
        return v;
    }
};

// The matcher used to read a batch with sources as if packed (wrong bytes).
TEST(LongLiteral, CpuReadsPayloadsLeftInPlace) {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        const BatchCase c = random_batch(seed);
        const InPlace in_place(c);
        std::vector<Match> got;
        long_literal_scan_cpu(c.lits, in_place.view(c), got);
        std::sort(got.begin(), got.end());
        ASSERT_EQ(got, naive(c)) << "seed " << seed;
    }
}

TEST(LongLiteral, GpuEqualsNaive) {
    std::string why;
    if (!gpu_usable(0, &why)) GTEST_SKIP() << "no CUDA device: " << why;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        const BatchCase c = random_batch(seed);
        GpuOptions o;
        o.max_batch_bytes = seed % 2 ? (16u << 10) : (64u << 20); // small chunks split the batch
        auto m = LongLiteralMatcher::create(c.lits, o);
        std::vector<Match> got;
        m->scan(c.view(), got);
        std::sort(got.begin(), got.end());
        const auto want = naive(c);
        ASSERT_EQ(got, want) << "seed " << seed << " " << m->describe();
        const InPlace in_place(c);
        m->scan(in_place.view(c), got);
        std::sort(got.begin(), got.end());
        ASSERT_EQ(got, want) << "seed " << seed << ": payloads left in place";
    }
}

// Many overlapping occurrences (all-'a' payloads, period-1 literal) overflow
// the initial record buffer: the matcher must grow and rerun, never drop.
TEST(LongLiteral, GpuOverflowGrowsAndReruns) {
    std::string why;
    if (!gpu_usable(0, &why)) GTEST_SKIP() << "no CUDA device: " << why;
    BatchCase c;
    c.lits.push_back(Literal{std::string(40, 'a'), false, 0, 0});
    c.data = std::string(size_t{1} << 20, 'a');
    c.offsets = {0, 1000, static_cast<uint32_t>(c.data.size())};
    auto m = LongLiteralMatcher::create(c.lits, GpuOptions{});
    std::vector<Match> got;
    m->scan(c.view(), got);
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, naive(c));
}

TEST(LongLiteral, WithoutGpuCreateThrows) {
    std::string why;
    if (gpu_usable(0, &why)) GTEST_SKIP() << "a GPU is usable here";
    EXPECT_THROW(LongLiteralMatcher::create({Literal{std::string(40, 'x')}}, GpuOptions{}), GpuError);
}

} // namespace
