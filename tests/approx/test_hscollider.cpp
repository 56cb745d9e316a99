// The approximate-matching cases of Hyperscan's own collider suite
// (tools/hscollider/test_cases/pcre/approximate_matching.txt + corpora/)
// whose pattern is a pure literal: Hyperscan (run here) vs the plain DP vs the
// bit-parallel walk, end offsets exactly.
#include "gpu/approx/kdiff.h"
#include "reference.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>

using namespace wm::approx;
using namespace wm::approx::test;

namespace {
const std::string kDir = std::string(WM_TEST_DATA_DIR) +
                         "/peer-tests/intel+hyperscan/tools/hscollider/test_cases";

// hscollider corpus escapes: \n \r \t \\ \xHH.
std::string unescape(const std::string &s) {
    std::string o;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) { o += s[i]; continue; }
        const char c = s[++i];
        if (c == 'n') o += '\n';
        else if (c == 'r') o += '\r';
        else if (c == 't') o += '\t';
        else if (c == 'x' && i + 2 < s.size()) { o += char(std::stoi(s.substr(i + 1, 2), nullptr, 16)); i += 2; }
        else o += c;
    }
    return o;
}
} // namespace

TEST(HsCollider, LiteralApproximateCases) {
    std::ifstream pf(kDir + "/pcre/approximate_matching.txt"), cf(kDir + "/corpora/approximate_matching.txt");
    if (!pf || !cf) GTEST_SKIP() << "hscollider cases not found under " << kDir << " (unpack ../shared/data)";
    // id:/pattern/flags{edit_distance=k | hamming_distance=k}
    const std::regex line(R"(^(\d+):/(.*)/([a-zA-Z]*)\{(edit|hamming)_distance=(\d+)\}$)");
    std::map<unsigned, ApproxPattern> cases;
    std::string l;
    while (std::getline(pf, l)) {
        std::smatch mt;
        if (!std::regex_match(l, mt, line)) continue;
        const std::string re = mt[2];
        if (re.find_first_of("\\^$.|?*+()[]{}") != std::string::npos) continue; // not a pure literal
        ApproxPattern p;
        p.bytes = re;
        p.metric = mt[4] == "edit" ? Metric::Levenshtein : Metric::Hamming;
        p.k = unsigned(std::stoul(mt[5]));
        p.nocase = std::string(mt[3]).find('i') != std::string::npos;
        cases[unsigned(std::stoul(mt[1]))] = p;
    }
    ASSERT_GE(cases.size(), 2u) << "expected the literal cases (e.g. /test/ with edit and hamming distance)";
    size_t inputs = 0, matches = 0;
    while (std::getline(cf, l)) {
        const auto colon = l.find(':');
        if (colon == std::string::npos) continue;
        const auto it = cases.find(unsigned(std::stoul(l.substr(0, colon))));
        if (it == cases.end()) continue;
        OwnedBatch b;
        b.add(unescape(l.substr(colon + 1)));
        SCOPED_TRACE("case " + std::to_string(it->first) + " input " + l);
        std::vector<ApproxMatch> hs, walked;
        std::string err;
        ASSERT_TRUE(hyperscan_scan({it->second}, b.view(), hs, &err)) << err;
        const auto ref = reference_scan({it->second}, b.view());
        EXPECT_EQ(without_distance(ref), hs);
        kdiff_cpu_scan(compile_kdiff({it->second}), b.view(), walked);
        sort_approx_matches(walked);
        EXPECT_EQ(walked, ref);
        ++inputs;
        matches += hs.size();
    }
    EXPECT_GT(inputs, 10u);
    EXPECT_GT(matches, 0u); // an engine that found nothing anywhere must not pass with the reference's help
    RecordProperty("inputs", int(inputs));
    RecordProperty("matches", int(matches));
}
