// tests/fuzz/fuzz_scan.cpp - rules and a batch of payloads, both made from
// the input, scanned through the C API and by the reference matcher.
// Property: every match (rule, payload, start, end) of wm_scan_batch and
// every (rule, payload) of wm_scan_batch_set is the reference's, rules'
// nocase, offset, depth, protocol and ports included.
// Input: byte 0 gives the rule count (1-16); per rule a flags byte, a length
// byte (1-40: keys past the GPU trie's 16 bytes are checked by their
// leading bytes) and its bytes; then payloads, each a length byte (0-63, or
// 255: 300 bytes, past a GPU tile) and its bytes. Pattern and payload bytes
// are drawn from 8 symbols (letters in both cases, 0x00, 0x01), so matches
// are dense. WM_FUZZ_BACKEND=gpu scans on the GPU (fuzz_backend.h).
#include "tests/rule_applies.h"
#include "plugin/src/compiled_ruleset.h"
#include "plugin/src/reference_matcher.h"
#include "tests/fuzz/fuzz_backend.h"
#include "tests/fuzz/fuzz_input.h"
#include "warpmatch.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

namespace {

using wm::fuzz::fail;
using wm::fuzz::require;

constexpr char kSymbols[] = {'a', 'b', 'A', 'B', 'z', 'Z', 0x00, 0x01};

struct Reader {
    const uint8_t *p, *end;
    bool more() const { return p < end; }
    uint8_t next() { return p < end ? *p++ : 0; }
    std::string symbols(size_t n) {
        std::string s;
        for (size_t i = 0; i < n && p < end; ++i) s.push_back(kSymbols[*p++ & 7]);
        return s;
    }
};

std::string hex_pattern(const std::string &b) {
    std::string s = "|";
    for (unsigned char c : b) s += fmt::format("{:02x} ", c);
    s.back() = '|';
    return s;
}

// The rules YAML of the input's head; empty when it has no rule.
std::string rules_yaml(Reader &in) {
    std::string y = "version: 1\nrules:\n";
    const unsigned n = in.next() % 16 + 1;
    for (unsigned r = 0; r < n && in.more(); ++r) {
        const uint8_t flags = in.next();
        const std::string pattern = in.symbols(in.next() % 40 + 1);
        if (pattern.empty()) break;
        y += fmt::format("  - {{id: {}, msg: r{}, pattern: \"{}\"", 100 + r, r, hex_pattern(pattern));
        if (flags & 1) y += ", nocase: true";
        if (flags & 2) y += fmt::format(", offset: {}", (flags >> 4) & 7);
        if (flags & 4) y += fmt::format(", depth: {}", pattern.size() + ((flags >> 5) & 3));
        if (flags & 8) y += (flags & 0x80) ? ", protocol: udp, ports: [53]" : ", protocol: tcp";
        y += "}\n";
    }
    return y;
}

using Hit = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>; // rule id, payload, start, end

int collect(uint32_t rule, uint32_t payload, uint32_t start, uint32_t end, void *ctx) {
    static_cast<std::vector<Hit> *>(ctx)->emplace_back(rule, payload, start, end);
    return 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Reader in{data, data + size};
    const std::string yaml = rules_yaml(in);
    // Payloads and their protocol and ports, which every rule kind tests.
    std::vector<uint8_t> bytes;
    std::vector<uint32_t> offsets{0};
    std::vector<wm_payload_meta_t> meta;
    while (in.more()) {
        const uint8_t len = in.next();
        const std::string p = in.symbols(len == 255 ? 300 : len % 64);
        bytes.insert(bytes.end(), p.begin(), p.end());
        offsets.push_back(static_cast<uint32_t>(bytes.size()));
        const uint8_t k = static_cast<uint8_t>(meta.size() * 7 + len);
        meta.push_back({static_cast<uint8_t>(k % 3 == 0 ? WM_PROTO_UDP : WM_PROTO_TCP), static_cast<uint16_t>(1024 + k),
                        static_cast<uint16_t>(k % 5 == 0 ? 53 : 80)});
    }
    if (meta.empty()) return 0;

    wm::CompiledRuleSet compiled(wm::rules::load_rules_string(yaml, "fuzz-scan.yaml")); // our YAML always loads
    wm::ReferenceMatcher reference(compiled.rules());
    const wm::BatchView view{bytes.data(), offsets.data(), meta.size(), meta.data()};
    std::vector<wm::Match> ref;
    reference.scan(view, WM_OUTPUT_POSITIONS, ref);
    std::vector<Hit> want;
    for (const auto &m : ref)
        if (wm::test::rule_applies(compiled.rules()[m.rule], meta[m.payload]))
            want.emplace_back(compiled.rules()[m.rule].id, m.payload, m.start, m.end);
    std::sort(want.begin(), want.end());

    wm_ruleset_t *rs = nullptr;
    wm_error_t *err = nullptr;
    require(wm_ruleset_load_string(yaml.data(), yaml.size(), "fuzz-scan.yaml", &rs, &err) == WM_SUCCESS,
            "the C API refuses rules the loader took:\n" + yaml);
    wm_scanner_t *sc = wm::fuzz::make_scanner(rs);
    const wm_batch_t batch{bytes.data(), offsets.data(), meta.size(), meta.data()};
    std::vector<Hit> got;
    const int rc = wm_scan_batch(sc, &batch, collect, &got, &err);
    require(rc == WM_SUCCESS, std::string("wm_scan_batch failed: ") + (err ? err->message : "?"));
    std::sort(got.begin(), got.end());
    require(got == want, fmt::format("positions: {} matches, the reference {}\n{}", got.size(), want.size(), yaml));

    const wm_set_hit_t *hits = nullptr;
    size_t count = 0;
    require(wm_scan_batch_set(sc, &batch, &hits, &count, &err) == WM_SUCCESS, "wm_scan_batch_set failed");
    std::vector<std::pair<uint32_t, uint32_t>> set_got, set_want;
    for (size_t i = 0; i < count; ++i) set_got.emplace_back(hits[i].payload_index, hits[i].rule_id);
    for (const auto &[rule, payload, start, end] : want) set_want.emplace_back(payload, rule);
    std::sort(set_want.begin(), set_want.end());
    set_want.erase(std::unique(set_want.begin(), set_want.end()), set_want.end());
    require(set_got == set_want, fmt::format("set: {} pairs (ordered by payload, rule), the reference {}\n{}",
                                             set_got.size(), set_want.size(), yaml));
    wm_scanner_free(sc);
    wm_ruleset_free(rs);
    return 0;
}
