// plugin/src/base64.h - base64 (RFC 4648, standard alphabet, padded), for
// the payload field of EVE alerts. Encoding only.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>

namespace wm {

// Appends the base64 text of data[0, n) to b.
inline void append_base64(fmt::memory_buffer &b, const uint8_t *data, size_t n) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        const uint32_t v = uint32_t{data[i]} << 16 | uint32_t{data[i + 1]} << 8 | data[i + 2];
        const char quad[4] = {kAlphabet[v >> 18], kAlphabet[v >> 12 & 63], kAlphabet[v >> 6 & 63], kAlphabet[v & 63]};
        b.append(quad, quad + 4);
    }
    if (i == n) return;
    const bool two = n - i == 2;
    const uint32_t v = uint32_t{data[i]} << 16 | (two ? uint32_t{data[i + 1]} << 8 : 0);
    const char quad[4] = {kAlphabet[v >> 18], kAlphabet[v >> 12 & 63], two ? kAlphabet[v >> 6 & 63] : '=', '='};
    b.append(quad, quad + 4);
}

} // namespace wm
