// tests/base64_decode.h - a plain base64 decoder (RFC 4648, padded), the
// tests' own reading of the payload field of EVE alerts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wm::test {

// The bytes of `text`, or nothing when it is not padded base64.
inline std::optional<std::vector<uint8_t>> base64_decode(const std::string &text) {
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (text.size() % 4 != 0) return std::nullopt;
    std::vector<uint8_t> out;
    for (size_t i = 0; i < text.size(); i += 4) {
        uint32_t bits = 0;
        int pad = 0;
        for (size_t k = 0; k < 4; ++k) {
            const char c = text[i + k];
            const size_t v = alphabet.find(c);
            if (c == '=' && i + 4 == text.size() && k >= 2) {
                ++pad;
            } else if (v == std::string::npos || pad > 0) {
                return std::nullopt;
            }
            bits = bits << 6 | uint32_t(c == '=' ? 0 : v);
        }
        out.push_back(uint8_t(bits >> 16));
        if (pad < 2) out.push_back(uint8_t(bits >> 8));
        if (pad < 1) out.push_back(uint8_t(bits));
    }
    return out;
}

} // namespace wm::test
