// `warpmatch replay` with align rules, end to end: mutated copies of strings
// the demo capture carries (rules/examples/demo.yaml lists them), one inline
// and one from a reference_file, a canary that must stay silent, and a
// literal rule beside them. Every align alert must carry align.score >=
// min_score and the aligned region; the expectation is the plain CPU DP run
// on the payloads decoded from the capture.
#include "tests/rule_applies.h"
#include "capture/offline_capture.h"
#include "compiled_ruleset.h"
#include "run_command.h"
#include "tests/scratch.h"

#include "gpu/align/sw_reference.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>

using wm::test::run_command;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kDemoPcap = std::string(WM_BINARY_DIR) + "/demo/demo.pcap";

// The demo's EICAR string (0x5C written |5C|) with a deletion (STANDARD ->
// STNDARD), a substitution (ANTIVIRUS -> ANTIVIRAS) and an insertion (FILEE):
// 66 matches, one mismatch, two gaps of one = 330 - 3 - 2 * 9 = 309.
const char *kRules = R"YAML(version: 1
rules:
  - id: 3000001
    msg: "ALIGN EICAR-like body"
    severity: 1
    protocol: tcp
    align:
      reference: 'X5O!P%@AP[4|5C|PZX54(P^)7CC)7}$EICAR-STNDARD-ANTIVIRAS-TEST-FILEE!$H+H*'
      min_score: 250
  - id: 3000002
    msg: "ALIGN attacker sender"
    protocol: tcp
    ports: [25]
    align:
      reference_file: refs/mailfrom.txt
      min_score: 120
      mismatch: -4
  - id: 3000003
    msg: "ALIGN canary that must never fire"
    align: {reference: "zq-never-in-demo-traffic-canary-jx", min_score: 120}
  - id: 3000004
    msg: "literal EICAR"
    pattern: "EICAR"
)YAML";

// A mutated copy of the demo's "MAIL FROM:<Attacker@evil.example>".
const char *kMailFrom = "MAIL FROM:<Atacker@evil.exampel>";

struct Alert {
    int32_t score;
    uint32_t start, end;
    bool operator==(const Alert &o) const {
        return std::tie(score, start, end) == std::tie(o.score, o.start, o.end);
    }
};
using Key = std::pair<uint64_t, uint32_t>; // (pcap_cnt, signature_id)

std::ostream &operator<<(std::ostream &os, const std::map<Key, Alert> &m) {
    for (const auto &[k, a] : m)
        os << "\n  packet " << k.first << " sid " << k.second << " score " << a.score << " ["
           << a.start << ", " << a.end << ")";
    return os;
}

// Independent expectation: decode the capture and run the plain DP for each
// payload and align rule the payload's protocol/ports allow.
std::map<Key, Alert> expected_align_alerts(const std::string &rules_path) {
    wm::CompiledRuleSet rs(wm::rules::load_rules_file(rules_path));
    wm::capture::OfflineCapture cap(kDemoPcap);
    std::map<Key, Alert> out;
    wm_packet_t p{};
    p.struct_size = sizeof(p);
    while (cap.next(&p) == WM_SUCCESS) {
        const wm_payload_meta_t meta{p.proto, p.src_port, p.dst_port};
        for (const auto &r : rs.rules()) {
            if (!r.align || p.payload_len == 0 || !wm::test::rule_applies(r, meta)) continue;
            wm::align::ScoreParams sp;
            std::tie(sp.match, sp.mismatch, sp.gap_open, sp.gap_extend) =
                std::make_tuple(r.align->match, r.align->mismatch, r.align->gap_open, r.align->gap_extend);
            const auto *q = reinterpret_cast<const uint8_t *>(r.align->reference.data());
            const size_t m = r.align->reference.size();
            const auto cm = wm::align::reference_column_maxima(q, m, p.payload, p.payload_len, sp);
            const auto top = std::max_element(cm.begin(), cm.end());
            if (*top < r.align->min_score) continue;
            const auto h = wm::align::reference_traceback(q, m, p.payload, 0, top - cm.begin(), sp);
            out[{p.number, r.id}] = Alert{h.score, static_cast<uint32_t>(h.db_begin),
                                          static_cast<uint32_t>(h.db_end)};
        }
    }
    return out;
}

struct Result {
    int status;
    std::string err;
    std::map<Key, Alert> align;    // align alerts
    std::map<Key, json> literal;   // other alerts
};

Result replay(const std::string &args) {
    auto r = run_command("replay " + args);
    Result out{r.status, r.err, {}, {}};
    std::istringstream lines(r.out);
    std::string line;
    while (std::getline(lines, line)) {
        json j = json::parse(line);
        if (j["event_type"] != "alert") continue;
        Key k{j["pcap_cnt"].get<uint64_t>(), j["alert"]["signature_id"].get<uint32_t>()};
        if (!j.contains("align")) {
            out.literal[k] = j;
            continue;
        }
        EXPECT_TRUE(j.contains("payload_offset")) << line;
        EXPECT_LE(j["payload_end"].get<uint32_t>(), j["payload_len"].get<uint32_t>()) << line;
        out.align[k] = Alert{j["align"]["score"].get<int32_t>(), j["payload_offset"].get<uint32_t>(),
                             j["payload_end"].get<uint32_t>()};
    }
    return out;
}

class CliAlign : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(fs::exists(kDemoPcap)) << "demo capture not built: " << kDemoPcap;
        dir_ = wm::test::scratch_path("dir"); // per process: trees running at once keep apart
        fs::remove_all(dir_);
        fs::create_directories(dir_ / "refs");
        std::ofstream(dir_ / "refs/mailfrom.txt", std::ios::binary) << kMailFrom;
        std::ofstream(dir_ / "align.yaml") << kRules;
        rules_ = (dir_ / "align.yaml").string();
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
    std::string rules_;
};

TEST_F(CliAlign, AlertsCarryScoreAndRegionEqualToThePlainDp) {
    const auto want = expected_align_alerts(rules_);
    auto r = replay(kDemoPcap + " --rules " + rules_ + " --backend cpu");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.align, want) << "got:" << r.align << "\nwant:" << want;

    const std::map<uint32_t, int32_t> min_score{{3000001, 250}, {3000002, 120}};
    for (const auto &[k, a] : r.align) {
        ASSERT_TRUE(min_score.count(k.second)) << "unexpected align sid " << k.second; // canary silent
        EXPECT_GE(a.score, min_score.at(k.second));
        EXPECT_LT(a.start, a.end);
    }
    // The mutated EICAR is found where the literal finds the real one, with
    // the score worked out above and a region as long as the string.
    ASSERT_FALSE(r.literal.empty());
    for (const auto &[k, j] : r.literal) {
        EXPECT_EQ(k.second, 3000004u);
        auto it = r.align.find({k.first, 3000001});
        ASSERT_NE(it, r.align.end()) << "no align alert on EICAR packet " << k.first;
        EXPECT_EQ(it->second.score, 309);
        EXPECT_EQ(it->second.end - it->second.start, 68u);
    }
    // The reference_file rule fires on the SMTP MAIL FROM command.
    EXPECT_TRUE(std::any_of(r.align.begin(), r.align.end(),
                            [](const auto &kv) { return kv.first.second == 3000002; }));
}

TEST_F(CliAlign, SetModeKeepsTheAlignedRegion) {
    auto pos = replay(kDemoPcap + " --rules " + rules_ + " --backend cpu");
    auto set = replay(kDemoPcap + " --rules " + rules_ + " --backend cpu --matches set");
    ASSERT_EQ(set.status, 0) << set.err;
    EXPECT_EQ(set.align, pos.align);
    ASSERT_FALSE(set.literal.empty());
    for (const auto &[k, j] : set.literal) EXPECT_FALSE(j.contains("payload_offset")) << j.dump();
}

TEST_F(CliAlign, GpuVerifiedAgainstTheCpuPath) {
    auto r = replay(kDemoPcap + " --rules " + rules_ + " --backend gpu --verify");
    if (r.status != 0 && r.err.find("GPU backend unavailable") != std::string::npos)
        GTEST_SKIP() << "no usable GPU: " << r.err;
    ASSERT_EQ(r.status, 0) << r.err; // --verify: GPU scores and regions equal the CPU path's
    EXPECT_EQ(r.align, expected_align_alerts(rules_));
}

TEST_F(CliAlign, UnreadableReferenceFileFailsWithItsLocation) {
    fs::remove(dir_ / "refs/mailfrom.txt");
    auto r = run_command("rules check " + rules_);
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find(rules_ + ":15:23: rule 3000002: cannot read align reference_file "
                                  "\"refs/mailfrom.txt\""),
              std::string::npos)
        << r.err;
}

} // namespace
