// tests/fuzz/fuzz_streams.cpp - up to four TCP flows, each a known stream
// with signatures placed in it, cut into segments that arrive interleaved,
// reordered and duplicated, through the stream pipeline (flows, reassembly,
// scanning across segments); WM_FUZZ_BACKEND=gpu scans them on the GPU
// (fuzz_backend.h).
// Properties: a flow alerts a rule exactly when the rule's pattern occurs in
// its stream, wherever the segment boundaries fell; Hyperscan's stream mode
// over the same streams agrees (oracle_mismatches 0); nothing is a gap.
// Input: byte 0 gives the flow count; per flow 2 bytes of stream length (at
// most 1,199) and a byte whose low 2 bits give the signatures placed (each a
// rule byte and 2 position bytes); then segment lengths (1-200) per flow
// until its stream is covered; then byte pairs that swap two segments (the
// pair's high bit also sends the first one again).
#include "tests/fuzz/fuzz_backend.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/stream/stream_test_util.h"

#include <fmt/format.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using wm::fuzz::fail;
using wm::fuzz::require;
namespace build = wm::capture::build;

const char *const kPatterns[] = {"EVIL-ONE", "bad/two", "\xff\xfe\xfd\xfc", "zq!"};
constexpr uint16_t kServerPort = 80;

std::string rules() {
    std::string body;
    for (uint32_t r = 0; r < 4; ++r) {
        std::string hex = "|";
        for (unsigned char c : std::string(kPatterns[r])) hex += fmt::format("{:02x} ", c);
        hex.back() = '|';
        body += wm::stream::test::rule_yaml(r + 1, hex);
    }
    return wm::stream::test::rules_yaml(body);
}

std::set<std::pair<uint16_t, uint32_t>> g_alerts; // (client port, rule id)

int on_alert(const wm_alert_t *a, void *) {
    const uint16_t port = a->packet->dst_port == kServerPort ? a->packet->src_port : a->packet->dst_port;
    g_alerts.emplace(port, a->rule_id);
    return 0;
}

struct Reader {
    const uint8_t *p, *end;
    bool more() const { return p < end; }
    uint8_t next() { return p < end ? *p++ : 0; }
};

struct Segment {
    size_t flow;
    uint32_t off, len;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Reader in{data, data + size};
    const size_t flows = in.next() % 4 + 1;
    std::vector<std::string> streams(flows);
    for (auto &s : streams) {
        const size_t len = (size_t{in.next()} << 8 | in.next()) % 1200;
        for (size_t i = 0; i < len; ++i) s.push_back(static_cast<char>('0' + i % 10)); // no pattern in the filler
        for (unsigned k = in.next() & 3; k > 0; --k) {
            const std::string pat = kPatterns[in.next() & 3];
            const size_t at = (size_t{in.next()} << 8 | in.next()) % (len + 1);
            if (at + pat.size() <= len) s.replace(at, pat.size(), pat);
        }
    }
    std::vector<Segment> segs;
    for (size_t f = 0; f < flows; ++f)
        for (uint32_t off = 0; off < streams[f].size();) {
            const uint32_t len = std::min<uint32_t>(in.next() % 200 + 1, uint32_t(streams[f].size()) - off);
            segs.push_back({f, off, len});
            off += len;
        }
    std::vector<Segment> order = segs;
    while (!order.empty() && in.more()) {
        const uint8_t a = in.next(), b = in.next();
        std::swap(order[a % order.size()], order[b % order.size()]);
        if (a & 0x80) order.push_back(order[a % order.size()]); // sent again
    }

    g_alerts.clear();
    wm::stream::test::Harness h(wm::rules::load_rules_string(rules(), "fuzz-streams.yaml"), true,
                                wm::stream::test::default_config(), true, wm::fuzz::backend_from_env(), 1, {}, on_alert);
    std::vector<wm::stream::test::Conversation> conv(flows);
    for (size_t f = 0; f < flows; ++f) {
        conv[f].cport = static_cast<uint16_t>(40000 + f);
        conv[f].sport = kServerPort;
    }
    auto isn = [](size_t f) { return uint32_t(0xfffff000u + 977 * f); }; // data crosses 2^32 in some flows
    for (size_t f = 0; f < flows; ++f) h.feed(conv[f].frame(true, isn(f), build::kSyn, ""));
    for (const Segment &s : order)
        h.feed(conv[s.flow].frame(true, isn(s.flow) + 1 + s.off, build::kAck | build::kPsh,
                                  streams[s.flow].substr(s.off, s.len)));
    for (size_t f = 0; f < flows; ++f)
        h.feed(conv[f].frame(true, isn(f) + 1 + uint32_t(streams[f].size()), build::kAck | build::kFin, ""));
    h.finish();

    std::set<std::pair<uint16_t, uint32_t>> want;
    for (size_t f = 0; f < flows; ++f)
        for (uint32_t r = 0; r < 4; ++r)
            if (streams[f].find(kPatterns[r]) != std::string::npos) want.emplace(conv[f].cport, r + 1);
    require(h.stats().oracle_mismatches == 0, "Hyperscan's stream mode disagrees");
    require(h.stats().gaps == 0, "a gap in streams whose every byte arrived");
    if (g_alerts != want)
        fail(fmt::format("{} (flow, rule) alerts, {} in the streams; {} segments sent", g_alerts.size(), want.size(),
                         order.size()));
    return 0;
}
