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

} // namespace wm::test
