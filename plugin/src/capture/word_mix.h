// plugin/src/capture/word_mix.h - hashing a few 64-bit words: one
// multiply-xorshift round per word (a byte-serial FNV chain cost a fifth of
// the time of decoding a capture, and half of a flow table lookup), then
// splitmix64's finaliser, so that keys differing in one field spread over
// all 64 bits (hash tables mask low bits). Shared by the decoder's flow
// hash and the stream flow table's key hash.
#pragma once

#include <cstdint>

namespace wm::capture {

inline uint64_t mix_word(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

inline uint64_t mix_final(uint64_t h) {
    uint64_t z = h + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

} // namespace wm::capture
