// Random rule sets and payloads for differential tests (fixed seeds).
#pragma once

#include "engine.h"
#include "rules/rule.h"

#include <random>
#include <string>
#include <vector>

namespace wm::test {

// Small alphabets force overlapping and repeated matches.
inline std::string random_bytes(std::mt19937 &rng, size_t n, const std::string &alphabet) {
    std::string s(n, '\0');
    std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
    for (auto &c : s)
        c = alphabet[pick(rng)];
    return s;
}

inline rules::RuleSet random_ruleset(std::mt19937 &rng, size_t n, const std::string &alphabet,
                                     size_t max_len) {
    rules::RuleSet rs;
    std::uniform_int_distribution<size_t> len(1, max_len);
    std::uniform_int_distribution<int> coin(0, 3);
    for (size_t i = 0; i < n; ++i) {
        rules::Rule r;
        r.id = static_cast<uint32_t>(1000 + i);
        r.msg = "rule " + std::to_string(r.id);
        // Every fourth rule repeats an earlier pattern under a new id.
        if (i > 0 && coin(rng) == 0)
            r.pattern = rs.rules[rng() % rs.rules.size()].pattern;
        else
            r.pattern = random_bytes(rng, len(rng), alphabet);
        r.nocase = coin(rng) == 1;
        if (coin(rng) == 2) {
            r.offset = static_cast<uint32_t>(rng() % 8);
            r.depth = static_cast<uint32_t>(r.pattern.size() + rng() % 16);
        } else if (coin(rng) == 3) {
            r.offset = static_cast<uint32_t>(rng() % 20);
        }
        rs.rules.push_back(r);
    }
    return rs;
}

// Random payloads over a small alphabet almost never hold a long pattern:
// copies of two random rules' patterns are planted, each also as a near
// miss (its first byte changed), so long patterns, and confirmation of the
// bytes before a matcher's key, are exercised too.
inline void plant_patterns(std::mt19937 &rng, const std::vector<rules::Rule> &rules, std::string &payload) {
    for (int t = 0; t < 2 && !rules.empty(); ++t) {
        const std::string &p = rules[rng() % rules.size()].pattern;
        if (p.size() > payload.size()) continue;
        payload.replace(rng() % (payload.size() - p.size() + 1), p.size(), p);
        std::string near = p;
        near[0] = static_cast<char>(near[0] ^ 0x01);
        payload.replace(rng() % (payload.size() - p.size() + 1), p.size(), near);
    }
}

inline wm_scanner_options_t scanner_options(int backend, int mode = WM_OUTPUT_POSITIONS,
                                             unsigned verify_every = 0) {
    wm_scanner_options_t o{};
    o.struct_size = sizeof(o);
    o.backend = backend;
    o.output_mode = mode;
    o.verify_every = verify_every;
    return o;
}

struct OwnedBatch {
    std::string data;
    std::vector<uint32_t> offsets{0};
    std::vector<wm_payload_meta_t> meta;
    void add(const std::string &p, wm_payload_meta_t m = {WM_PROTO_TCP, 1234, 80}) {
        data += p;
        offsets.push_back(static_cast<uint32_t>(data.size()));
        meta.push_back(m);
    }
    BatchView view(bool with_meta = true) const {
        return BatchView{reinterpret_cast<const uint8_t *>(data.data()), offsets.data(),
                         offsets.size() - 1, with_meta ? meta.data() : nullptr};
    }
};

// A batch's payloads left in place (BatchView::sources), as a replay window
// leaves them: gaps of 0-30 bytes of the batch's own text between them.
struct InPlaceBatch {
    std::string raw;
    std::vector<uint32_t> sources;
    BatchView view(const OwnedBatch &b) const {
        BatchView v = b.view();
        v.data = reinterpret_cast<const uint8_t *>(raw.data());
        v.sources = sources.data();
        return v;
    }
};

inline InPlaceBatch left_in_place(const OwnedBatch &b, uint32_t seed) {
    std::mt19937 rng(seed);
    InPlaceBatch p;
    auto gap = [&] {
        for (uint32_t n = rng() % 31; n > 0 && !b.data.empty(); --n) p.raw += b.data[rng() % b.data.size()];
    };
    for (size_t i = 0; i + 1 < b.offsets.size(); ++i) {
        gap();
        p.sources.push_back(static_cast<uint32_t>(p.raw.size()));
        p.raw.append(b.data, b.offsets[i], b.offsets[i + 1] - b.offsets[i]);
    }
    gap();
    return p;
}

// Random rules, a third of them scoped by protocol and/or ports; every fifth
// copies an earlier rule's literal exactly (one device pattern, several rules).
inline rules::RuleSet scoped_rules(uint32_t seed, size_t n) {
    std::mt19937 rng(seed);
    rules::RuleSet rs = random_ruleset(rng, n, "abcAB", 5);
    for (size_t i = 3; i < rs.rules.size(); i += 5) {
        const uint32_t id = rs.rules[i].id;
        rs.rules[i] = rs.rules[rng() % i];
        rs.rules[i].id = id;
        rs.rules[i].msg = "copy " + std::to_string(id);
    }
    for (auto &r : rs.rules) {
        if (rng() % 3 != 0) continue;
        r.protocol = rng() % 2 ? rules::Protocol::Tcp : rules::Protocol::Udp;
        if (rng() % 2) r.ports = {{80, 80}, {8000, 8100}};
    }
    return rs;
}

inline OwnedBatch random_batch(uint32_t seed, size_t payloads) {
    std::mt19937 rng(seed);
    OwnedBatch b;
    const uint16_t ports[] = {80, 53, 8080, 40000};
    for (size_t i = 0; i < payloads; ++i)
        b.add(random_bytes(rng, rng() % 6 == 0 ? 0 : rng() % 400, "abcABx"),
              {static_cast<uint8_t>(rng() % 2 ? WM_PROTO_TCP : WM_PROTO_UDP), ports[rng() % 4],
               ports[rng() % 4]});
    return b;
}

} // namespace wm::test
