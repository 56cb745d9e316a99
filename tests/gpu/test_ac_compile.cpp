// tests/gpu/test_ac_compile.cpp - automaton compiler: byte classes, BFS order,
// deterministic blob, header.
#include "gpu/ac_compile.h"
#include "gpu/ac_cpu_walk.h"
#include "gpu/ac_tuning.h"
#include "gpu/ac_walk.cuh"
#include "reference.h"

#include <gtest/gtest.h>

#include <map>

using namespace wm::gpu;
using namespace wm::gpu::test;

TEST(AcByteClasses, UnusedBytesShareOneClass) {
    std::vector<Literal> p{{"ab"}, {"b"}};
    std::vector<const Literal *> lp{&p[0], &p[1]};
    ByteClasses bc = compute_byte_classes(lp);
    EXPECT_EQ(bc.count, 3u); // a, b, everything else
    EXPECT_NE(bc.map['a'], bc.map['b']);
    EXPECT_EQ(bc.map['z'], bc.map[0]);
    EXPECT_NE(bc.map['a'], bc.map['A']);
}

TEST(AcByteClasses, NocaseFoldsCase) {
    std::vector<Literal> p{{"aB", true}};
    ByteClasses bc = compute_byte_classes({&p[0]});
    EXPECT_EQ(bc.map['a'], bc.map['A']);
    EXPECT_EQ(bc.map['b'], bc.map['B']);
    EXPECT_NE(bc.map['a'], bc.map['b']);
    EXPECT_EQ(bc.count, 3u);
}

TEST(AcByteClasses, CaseSensitiveAndNocaseDistinguished) {
    // In one class set: 'a' case-sensitive and {a,A} nocase -> a, A, rest.
    std::vector<Literal> p{{"a"}, {"a", true}};
    ByteClasses bc = compute_byte_classes({&p[0], &p[1]});
    EXPECT_EQ(bc.count, 3u);
    EXPECT_NE(bc.map['a'], bc.map['A']);
    // The compiler puts them in separate groups; both must still match right.
    Case c;
    c.pats = p;
    c.data = {'a', 'A', 'x'};
    c.offs = {0, 3};
    auto ref = naive_matches(c.pats, c.view());
    ASSERT_EQ(ref.size(), 3u);
    sort_matches(ref);
    // Split: a group each. Folded: one group, "a" confirmed exactly.
    for (CaseGroups cg : {CaseGroups::Split, CaseGroups::Folded}) {
        AcCompileOptions o;
        o.case_groups = cg;
        AcBlob blob = compile_ac(p, o);
        EXPECT_EQ(blob.header().num_groups, cg == CaseGroups::Split ? 2u : 1u);
        std::vector<Match> got;
        cpu_walk_scan(blob, c.view(), got);
        sort_matches(got);
        EXPECT_TRUE(got == ref) << (cg == CaseGroups::Split ? "split" : "folded");
    }
}

// One case-folded automaton: 'A' and 'a' share a class; a case-sensitive
// pattern with letters carries kPatExact, and kOutCase with its letters' case
// in pat_case (checked against the walk's case history), or kOutCheck (every
// byte compared) when keys are longer than the history; nocase and letterless
// patterns neither. A set without nocase letters keeps exact classes.
TEST(AcCompile, FoldedGroupConfirmsCaseSensitiveLettersExactly) {
    // The 40-byte pattern makes keys longer than the history when uncapped.
    std::vector<Literal> p{{"AbC"}, {"xyz", true}, {"\x01\x02"}, {"q-1"}, {std::string(40, 'z'), true}};
    const bool exact[] = {true, false, false, true, false};
    const uint32_t mask[] = {0b111, 0, 0, 0b100, 0}, want[] = {0b010, 0, 0, 0b100, 0}; // bit k: byte len - 1 - k
    for (uint32_t key_bytes : {32u, UINT32_MAX}) {
        AcCompileOptions o;
        o.key_bytes = key_bytes;
        AcBlob blob = compile_ac(p, o);
        AcView v = blob.host_view();
        ASSERT_EQ(v.num_groups, 1u);
        const AcGroupView &g = v.groups[0];
        EXPECT_EQ(g.fold, 1u);
        EXPECT_EQ(g.class_map['a'], g.class_map['A']);
        EXPECT_EQ(g.class_map['Q'], g.class_map['q']);
        const bool history = key_bytes <= kCaseHistoryBytes;
        for (uint32_t i = 0; i < p.size(); ++i) {
            EXPECT_EQ((v.pat_boff[i] & kPatExact) != 0, exact[i]) << "pattern " << i;
            EXPECT_EQ(v.pat_case[2 * i], history ? mask[i] : 0u) << "pattern " << i;
            EXPECT_EQ(v.pat_case[2 * i + 1], history ? want[i] : 0u) << "pattern " << i;
            uint32_t flags = 0;
            bool seen = false;
            for (uint32_t k = 0; k < g.out_off[g.num_states]; ++k)
                if ((g.out_ids[k] & kOutIdMask) == i) seen = true, flags = g.out_ids[k] & ~kOutIdMask;
            EXPECT_TRUE(seen) << i;
            const uint32_t longer = p[i].bytes.size() > v.key_len ? kOutCheck : 0u; // leading bytes
            EXPECT_EQ(flags, (!exact[i] ? 0u : history ? kOutCase : kOutCheck) | longer) << "pattern " << i;
        }
    }
    AcBlob blob = compile_ac(p);
    Case c;
    c.pats = p;
    const std::string text = "abc ABC AbC XyZ Q-1 q-1 \x01\x02";
    c.data.assign(text.begin(), text.end());
    c.offs = {0, static_cast<uint32_t>(c.data.size())};
    auto ref = naive_matches(c.pats, c.view());
    sort_matches(ref);
    ASSERT_EQ(ref.size(), 4u); // AbC, XyZ, q-1 and the two control bytes
    std::vector<Match> got;
    cpu_walk_scan(blob, c.view(), got);
    sort_matches(got);
    EXPECT_TRUE(got == ref);

    std::vector<Literal> cs{{"AbC"}, {"123", true}};
    AcBlob exact_blob = compile_ac(cs);
    EXPECT_EQ(exact_blob.host_view().groups[0].fold, 0u);
    EXPECT_NE(exact_blob.host_view().groups[0].class_map['a'], exact_blob.host_view().groups[0].class_map['A']);
    EXPECT_EQ(exact_blob.host_view().pat_boff[0] & kPatExact, 0u);
}

TEST(AcCompile, BfsOrderShallowFirst) {
    // Depth of each state must be non-decreasing in id (BFS numbering): check
    // through the dense rows of a fully dense blob by BFS from the root.
    std::vector<Literal> p{{"abcd"}, {"bcd"}, {"xyz"}, {"ab"}, {"c"}};
    AcBlob blob = compile_ac(p);
    AcView v = blob.host_view();
    const AcGroupView &g = v.groups[0];
    ASSERT_EQ(g.num_dense, g.num_states);
    const auto *dense = static_cast<const uint16_t *>(g.dense);
    std::vector<int> depth(g.num_states, -1);
    depth[0] = 0;
    std::vector<uint32_t> q{0};
    for (size_t i = 0; i < q.size(); ++i)
        for (uint32_t c = 0; c < g.num_classes; ++c) {
            uint32_t t = dense[q[i] * g.num_classes + c] & ~(kOutFlag16 | kOutPlain16);
            if (depth[t] < 0) { depth[t] = depth[q[i]] + 1; q.push_back(t); }
        }
    for (uint32_t s = 1; s < g.num_states; ++s) EXPECT_LE(depth[s - 1], depth[s]) << "state " << s;
    EXPECT_EQ(g.num_states, 12u); // root + abcd(4) bcd(3) xyz(3) c(1)
    // depth_end[d] counts the states of depth <= d (the walk's run-out test).
    ASSERT_EQ(g.key_len, 4u);
    for (uint32_t d = 0; d <= g.key_len; ++d)
        EXPECT_EQ(g.depth_end[d], std::count_if(depth.begin(), depth.end(), [d](int x) { return x <= int(d); }))
            << "depth " << d;
}

// max_key[s]: the longest key (pattern capped at the blob's key length)
// among state s's outputs, saturated at kMaxKeySaturated: the run-out's
// drain skips a state whose outputs all started past the tile by it.
TEST(AcCompile, MaxKeyIsTheLongestKeyAmongTheOutputs) {
    for (uint32_t key_bytes : {3u, 32u, UINT32_MAX}) {
        CaseSpec spec;
        spec.patterns = 120;
        spec.max_len = 9;
        Case c = random_case(31, spec);
        c.pats.push_back(Literal{std::string(300, 'a')}); // past the saturation without a key cap
        AcCompileOptions o;
        o.key_bytes = key_bytes;
        AcBlob blob = compile_ac(c.pats, o);
        AcView v = blob.host_view();
        const auto *len = v.pat_len;
        size_t saturated = 0;
        for (uint32_t gi = 0; gi < v.num_groups; ++gi) {
            const AcGroupView &g = v.groups[gi];
            for (uint32_t s = 0; s < g.num_states; ++s) {
                uint32_t want = 0;
                for (uint32_t k = g.out_off[s]; k < g.out_off[s + 1]; ++k)
                    want = std::max(want, std::min({len[g.out_ids[k] & kOutIdMask], v.key_len, kMaxKeySaturated}));
                ASSERT_EQ(g.max_key[s], want) << "key_bytes " << key_bytes << " group " << gi << " state " << s;
                saturated += g.max_key[s] == kMaxKeySaturated;
            }
        }
        EXPECT_EQ(saturated > 0, key_bytes == UINT32_MAX) << key_bytes;
    }
}

TEST(AcCompile, DeterministicBlob) {
    CaseSpec s;
    s.patterns = 200;
    s.max_len = 12;
    Case c = random_case(7, s);
    AcBlob a = compile_ac(c.pats), b = compile_ac(c.pats);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_EQ(a.header().magic, kBlobMagic);
    EXPECT_EQ(a.header().version, kBlobVersion);
    EXPECT_EQ(a.header().total_bytes, a.bytes.size());
}

TEST(AcCompile, ShuffledInputSameAutomaton) {
    // Same pattern list in another order: same classes, transitions and output
    // sets once pattern ids are mapped back.
    CaseSpec s;
    s.patterns = 100;
    s.max_len = 10;
    s.duplicates = false;
    s.offset_depth = false;
    Case c = random_case(11, s);
    std::vector<uint32_t> perm(c.pats.size());
    for (uint32_t i = 0; i < perm.size(); ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), std::mt19937(3));
    std::vector<Literal> shuffled;
    for (uint32_t i : perm) shuffled.push_back(c.pats[i]);
    AcBlob a = compile_ac(c.pats), b = compile_ac(shuffled);
    AcView va = a.host_view(), vb = b.host_view();
    ASSERT_EQ(va.num_groups, vb.num_groups);
    for (uint32_t g = 0; g < va.num_groups; ++g) {
        const AcGroupView &x = va.groups[g], &y = vb.groups[g];
        ASSERT_EQ(x.num_states, y.num_states);
        ASSERT_EQ(x.num_classes, y.num_classes);
        EXPECT_EQ(0, memcmp(x.class_map, y.class_map, 256));
        EXPECT_EQ(0, memcmp(x.dense, y.dense, size_t{x.num_dense} * x.num_classes * va.state_bytes));
        for (uint32_t st = 0; st < x.num_states; ++st) {
            std::vector<uint32_t> ox, oy;
            for (uint32_t k = x.out_off[st]; k < x.out_off[st + 1]; ++k) ox.push_back(x.out_ids[k] & kOutIdMask);
            for (uint32_t k = y.out_off[st]; k < y.out_off[st + 1]; ++k) oy.push_back(perm[y.out_ids[k] & kOutIdMask]);
            std::sort(oy.begin(), oy.end());
            EXPECT_EQ(ox, oy) << "state " << st;
        }
    }
}

TEST(AcCompile, StateWidth) {
    std::vector<Literal> small{{"abc"}};
    EXPECT_EQ(compile_ac(small).header().state_bytes, 2u);
    std::vector<Literal> big;
    std::mt19937 rng(5);
    for (int i = 0; i < 3000; ++i) {
        std::string s;
        for (int j = 0; j < 30; ++j) s.push_back(static_cast<char>(rng()));
        big.push_back({s});
    }
    AcBlob b = compile_ac(big);
    EXPECT_GT(b.groups[0].states, 65535u);
    EXPECT_EQ(b.header().state_bytes, 4u);
}

TEST(AcCompile, RejectsBadPatterns) {
    EXPECT_THROW(compile_ac({Literal{""}}), std::invalid_argument);
    EXPECT_THROW(compile_ac({Literal{std::string(65536, 'a')}}), std::invalid_argument);
    EXPECT_NO_THROW(compile_ac({Literal{std::string(65535, 'a')}}));
}

TEST(AcCompile, OutputFlagsMarkExactlyStatesWithOutputs) {
    // The walk reads out_off only for flagged targets: a missing flag would
    // drop matches, a spurious one only costs time. The plain flag lets the Set
    // kernel skip a repeated state, so it must be set only when no output of
    // the state is checked (offset/depth bounds, leading bytes before the key).
    // Check both ways, on the dense rows and on the sparse children (dense
    // budget 0 -> mostly sparse), with keys shorter than some patterns.
    CaseSpec s;
    s.patterns = 300;
    s.max_len = 12;
    Case c = random_case(21, s);
    uint64_t plain = 0, checked = 0;
    for (size_t budget : {size_t{24} << 20, size_t{0}})
    for (CaseGroups cg : {CaseGroups::Folded, CaseGroups::Split}) {
        AcCompileOptions co;
        co.dense_budget_bytes = budget;
        co.key_bytes = 8;
        co.case_groups = cg;
        AcBlob blob = compile_ac(c.pats, co);
        AcView v = blob.host_view();
        ASSERT_EQ(v.state_bytes, 2u);
        for (uint32_t gi = 0; gi < v.num_groups; ++gi) {
            const AcGroupView &g = v.groups[gi];
            auto check = [&](uint32_t t, const char *where) {
                const uint32_t id = t & ~(kOutFlag16 | kOutPlain16);
                ASSERT_LT(id, g.num_states) << where;
                const uint32_t ob = g.out_off[id], oe = g.out_off[id + 1];
                EXPECT_EQ((t & kOutFlag16) != 0, oe > ob) << where << " state " << id;
                bool any_checked = false;
                for (uint32_t k = ob; k < oe; ++k) any_checked |= (g.out_ids[k] & kOutCheck) != 0;
                EXPECT_EQ((t & kOutPlain16) != 0, oe > ob && !any_checked) << where << " state " << id;
                plain += (t & kOutPlain16) != 0;
                checked += oe > ob && any_checked;
            };
            const auto *dense = static_cast<const uint16_t *>(g.dense);
            for (size_t k = 0; k < size_t{g.num_dense} * g.num_classes; ++k) check(dense[k], "dense");
            for (uint32_t st = g.num_dense; st < g.num_states; ++st)
                for (uint32_t cl = 0; cl < g.num_classes; ++cl) check(ac_step<uint16_t>(g, st, cl), "sparse");
        }
    }
    EXPECT_GT(plain, 0u); // both kinds occur
    EXPECT_GT(checked, 0u);
}

TEST(AcCompile, StateWidthLeavesRoomForTheFlag) {
    // 16-bit ids only while every id < 16384 (the top bits are the output and plain flags).
    std::vector<Literal> p;
    std::mt19937 rng(8);
    while (true) {
        std::string s;
        for (int j = 0; j < 12; ++j) s.push_back(static_cast<char>('a' + rng() % 26));
        p.push_back({s});
        if (p.size() % 100 == 0 && compile_ac(p).groups[0].states >= 16384) break;
    }
    EXPECT_LT(compile_ac(p).groups[0].states, 32768u);
    EXPECT_EQ(compile_ac(p).header().state_bytes, 4u);
}

TEST(AcCompile, SparseRecordsStepLikeFullRows) {
    // Same patterns with every row dense and with only the root dense (the
    // BFS numbering does not depend on the budget): every (state, class) step
    // through a sparse record must equal the full row. A 3-letter alphabet
    // with 40 patterns gives sparse states whose failure chain passes other
    // sparse states with many children: records over kSpInline entries.
    for (uint32_t seed = 1; seed <= 6; ++seed) {
        CaseSpec s;
        s.alphabet = seed % 2 ? "abcdefghijklmnopqrstuvwxyz" : "abAB";
        s.patterns = 60;
        s.max_len = 8;
        Case c = random_case(100 + seed, s);
        AcCompileOptions all_dense, root_only;
        all_dense.dense_budget_bytes = size_t{1} << 30;
        root_only.dense_budget_bytes = 0;
        AcBlob full = compile_ac(c.pats, all_dense), sparse = compile_ac(c.pats, root_only);
        AcView vf = full.host_view(), vs = sparse.host_view();
        ASSERT_EQ(vf.num_groups, vs.num_groups);
        for (uint32_t gi = 0; gi < vf.num_groups; ++gi) {
            const AcGroupView &gf = vf.groups[gi], &gs = vs.groups[gi];
            ASSERT_EQ(gf.num_dense, gf.num_states);
            ASSERT_EQ(gs.num_dense, 1u);
            for (uint32_t st = 0; st < gf.num_states; ++st)
                for (uint32_t cl = 0; cl < gf.num_classes; ++cl)
                    ASSERT_EQ(ac_step<uint16_t>(gs, st, cl), ac_step<uint16_t>(gf, st, cl))
                        << "seed " << seed << " group " << gi << " state " << st << " class " << cl;
        }
    }
    // Many children under a sparse state force an overflow record.
    std::vector<Literal> p{{"yx"}};
    for (char ch = 'a'; ch <= 'l'; ++ch) p.push_back({std::string("x") + ch});
    AcCompileOptions root_only;
    root_only.dense_budget_bytes = 0;
    AcBlob b = compile_ac(p, root_only);
    EXPECT_GE(b.header().version, 3u);
    const auto *gh = reinterpret_cast<const GroupHeader *>(b.bytes.data() + sizeof(BlobHeader));
    EXPECT_EQ(gh[0].num_sparse_overflow, 24u); // "x" and "yx" each differ from the root on a..l
    Case c;
    c.pats = p;
    const std::string text = "yxa_xl_yyxlx_xa";
    c.data.assign(text.begin(), text.end());
    c.offs = {0, static_cast<uint32_t>(text.size())};
    std::vector<Match> got, want = naive_matches(p, c.view());
    cpu_walk_scan(b, c.view(), got);
    sort_matches(got);
    sort_matches(want);
    EXPECT_EQ(got.size(), 6u); // yx xa xl yx xl xa
    EXPECT_EQ(got, want);
}

TEST(AcCompile, OutCheckOnlyWhereAMatchCanFail) {
    // kOutCheck: offset/depth bounds or a pattern longer than the key.
    std::vector<Literal> p(4);
    p[0].bytes = "abc";                       // none
    p[1].bytes = "abd", p[1].offset = 2;      // offset
    p[2].bytes = "abe", p[2].depth = 9;       // depth
    p[3].bytes = "xxxxabc";                   // longer than the 4-byte key
    AcCompileOptions o;
    o.key_bytes = 4;
    AcBlob b = compile_ac(p, o);
    AcView v = b.host_view();
    std::vector<bool> check(p.size()), seen(p.size());
    const AcGroupView &g = v.groups[0];
    for (uint32_t k = 0; k < g.out_off[g.num_states]; ++k) {
        const uint32_t id = g.out_ids[k] & kOutIdMask;
        ASSERT_LT(id, p.size());
        seen[id] = true;
        check[id] = (g.out_ids[k] & kOutCheck) != 0;
    }
    EXPECT_EQ(seen, std::vector<bool>(4, true));
    EXPECT_EQ(check, (std::vector<bool>{false, true, true, true}));
}

// The matcher sizes its dense rows from the device's memory: a sixteenth,
// capped; unknown size, 24 MB. An H100 or H200 gives every state of the full
// ET set a dense row (141,169 states of 230 classes, 4-byte ids: 130 MB),
// which ran fastest (run 218).
TEST(AcTuning, DenseBudgetIsAShareOfDeviceMemoryAndIsCapped) {
    size_t last = 0;
    for (size_t gb : {1, 2, 4, 8, 16, 24, 80, 141, 1024}) {
        const size_t mem = gb << 30, b = tuning::dense_budget_bytes(mem);
        EXPECT_LE(b, mem / 16) << gb << " GB";
        EXPECT_LE(b, tuning::kDenseBudgetMaxBytes);
        EXPECT_GE(b, last) << "more memory gets no smaller budget";
        last = b;
    }
    const size_t full_et_rows = size_t{141169} * 230 * sizeof(uint32_t);
    EXPECT_GE(tuning::dense_budget_bytes(size_t{80} << 30), full_et_rows);
    EXPECT_EQ(tuning::dense_budget_bytes(0), tuning::kDenseBudgetBytes);
}

// ac_all_dense picks the kernels without a sparse step: true only when every
// group's states all have dense rows.
TEST(AcTuning, AllDenseOnlyWithoutSparseStates) {
    std::vector<Literal> pats;
    for (const char *s : {"alpha", "beta", "gamma", "delta"}) pats.push_back(Literal{s});
    pats.push_back(Literal{"CaseFree", true});
    AcCompileOptions all_dense, root_only;
    all_dense.dense_budget_bytes = size_t{1} << 30;
    root_only.dense_budget_bytes = 0;
    const AcBlob a = compile_ac(pats, all_dense), r = compile_ac(pats, root_only);
    EXPECT_TRUE(ac_all_dense(a.host_view()));
    EXPECT_FALSE(ac_all_dense(r.host_view()));
    EXPECT_EQ(r.host_view().groups[0].num_dense, 1u);
    // The dense-only step the kernels then take is the general step, and the
    // root-only automaton's sparse steps reach the same targets.
    const AcGroupView &g = a.host_view().groups[0], &gr = r.host_view().groups[0];
    ASSERT_EQ(a.host_view().state_bytes, 2u);
    ASSERT_EQ(g.num_states, gr.num_states);
    for (uint32_t st = 0; st < g.num_states; ++st)
        for (uint32_t c = 0; c < g.num_classes; ++c) {
            const uint32_t t = ac_step<uint16_t, false>(g, st, c);
            EXPECT_EQ(t, (ac_step<uint16_t, true>(g, st, c))) << "state " << st << " class " << c;
            EXPECT_EQ(t, (ac_step<uint16_t, true>(gr, st, c))) << "state " << st << " class " << c;
        }
}

// The kernels count a chunk's records in 32 bits, so a chunk is bounded by
// the most records one byte can end: the bound must hold for any text, for
// case-split and case-folded groups and one-byte literals alike.
TEST(AcCompile, MaxRecordsPerByteBoundsEveryPosition) {
    for (uint32_t seed = 1; seed <= 6; ++seed) {
        CaseSpec s;
        s.alphabet = "aAb";
        s.patterns = 40;
        s.max_len = 8;
        const Case c = random_case(seed, s);
        for (const bool folded : {true, false}) {
            AcCompileOptions o;
            o.case_groups = folded ? CaseGroups::Folded : CaseGroups::Split;
            const uint64_t bound = max_records_per_byte(compile_ac(c.pats, o).bytes.data());
            std::map<std::pair<uint32_t, uint32_t>, uint64_t> at; // (payload, end) -> records
            uint64_t most = 0;
            for (const Match &m : naive_matches(c.pats, c.view())) most = std::max(most, ++at[{m.payload, m.end}]);
            EXPECT_GE(bound, most) << "seed " << seed << (folded ? " folded" : " split");
            EXPECT_GT(most, 1u) << "seed " << seed << ": no byte ended two records";
        }
    }
}
