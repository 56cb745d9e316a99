// tests/align/test_sw_water.cpp - agreement with EMBOSS water (skips when absent).
// water charges gapopen + (k-1) * gapextend for a gap of k: ours Gs + k*Ge maps
// to gapopen = Gs + Ge, gapextend = Ge.
#include "gpu/align/sw_reference.h"

#include "align_test_util.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace wm::align;

namespace {

bool have_water() { return std::system("command -v water >/dev/null 2>&1") == 0; }

struct WaterOut {
    double score = -1;
    int q_begin = 0, q_end = 0, d_begin = 0, d_end = 0; // 1-based inclusive
};

WaterOut run_water(const std::string &q, const std::string &d, const ScoreParams &p) {
    char dir[] = "/tmp/wm_water_XXXXXX";
    if (!mkdtemp(dir)) return {};
    const std::string base(dir);
    std::ofstream(base + "/q.fa") << ">q\n" << q << "\n";
    std::ofstream(base + "/d.fa") << ">d\n" << d << "\n";
    std::ofstream mx(base + "/m.txt");
    const char *al = "ACGT*";
    mx << "   A  C  G  T  *\n";
    for (int i = 0; i < 5; ++i) {
        mx << al[i];
        for (int j = 0; j < 5; ++j) mx << ' ' << (i == 4 || j == 4 ? p.mismatch : i == j ? p.match : p.mismatch);
        mx << "\n";
    }
    mx.close();
    const std::string cmd = "cd " + base + " && water -asequence q.fa -bsequence d.fa -gapopen " +
                            std::to_string(p.gap_open + p.gap_extend) + " -gapextend " + std::to_string(p.gap_extend) +
                            " -datafile ./m.txt -outfile out.txt -auto >/dev/null 2>&1";
    WaterOut w;
    if (std::system(cmd.c_str()) != 0) return w;
    std::ifstream in(base + "/out.txt");
    std::string line;
    bool first_q = true, first_d = true;
    while (std::getline(in, line)) {
        if (line.rfind("# Score:", 0) == 0) w.score = std::atof(line.c_str() + 8);
        if (line.size() > 21 && (line[0] == 'q' || line[0] == 'd') && line[1] == ' ') {
            std::istringstream ls(line);
            std::string name, seq;
            int b = 0, e = 0;
            ls >> name >> b >> seq >> e;
            if (name == "q") {
                if (first_q) w.q_begin = b;
                w.q_end = e;
                first_q = false;
            } else {
                if (first_d) w.d_begin = b;
                w.d_end = e;
                first_d = false;
            }
        }
    }
    std::system(("rm -rf " + base).c_str());
    return w;
}

TEST(SwWater, ScoresAndRegionsAgreeOnRandomSmallCases) {
    if (!have_water()) GTEST_SKIP() << "EMBOSS water not installed (apt-get install emboss)";
    std::mt19937 rng(2024);
    for (int trial = 0; trial < 25; ++trial) {
        const auto q = test::random_seq(rng, 5 + rng() % 60);
        auto d = test::random_seq(rng, 5 + rng() % 120);
        test::plant(rng, d, q, 1);
        ScoreParams p;
        p.match = 1 + rng() % 5;
        p.mismatch = -1 - (int)(rng() % 4);
        p.gap_open = rng() % 8;
        p.gap_extend = 1 + rng() % 2;
        const auto hits = reference_search(q.data(), q.size(), d.data(), d.size(), p, 1);
        const WaterOut w = run_water(std::string(q.begin(), q.end()), std::string(d.begin(), d.end()), p);
        ASSERT_GE(w.score, 0) << "water failed on trial " << trial;
        const int ours = hits.empty() ? 0 : hits[0].score;
        EXPECT_EQ(ours, (int)w.score) << "trial " << trial;
        if (!hits.empty() && w.score > 0) test::expect_valid_alignment(hits[0], q, d.data(), d.size(), p);
    }
}

TEST(SwWater, SeedExampleRegion) {
    if (!have_water()) GTEST_SKIP() << "EMBOSS water not installed (apt-get install emboss)";
    const ScoreParams p;
    const std::string q = "AATGCCATTGCCGG", d = "CAGCCTCGCTTAG"; // U written as T
    const WaterOut w = run_water(q, d, p);
    EXPECT_EQ((int)w.score, 18);
    const std::vector<uint8_t> qb(q.begin(), q.end()), db(d.begin(), d.end());
    const auto h = reference_search(qb.data(), qb.size(), db.data(), db.size(), p, 1);
    ASSERT_EQ(h.size(), 1u);
    EXPECT_EQ((int)h[0].query_begin + 1, w.q_begin);
    EXPECT_EQ((int)h[0].query_end, w.q_end);
    EXPECT_EQ((int)h[0].db_begin + 1, w.d_begin);
    EXPECT_EQ((int)h[0].db_end, w.d_end);
}

} // namespace
