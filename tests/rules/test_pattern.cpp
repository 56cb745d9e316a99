// Pattern mini-language: decoding, error offsets, canonical encoding.
#include "rules/rule.h"

#include <gtest/gtest.h>

#include <random>

using namespace wm::rules;

namespace {

std::string decode_ok(const std::string &text) {
    std::string err;
    size_t col = 0;
    auto out = decode_pattern(text, &err, &col);
    EXPECT_TRUE(out.has_value()) << text << ": " << err << " at " << col;
    return out.value_or("<error>");
}

struct DecodeError {
    std::string message;
    size_t column;
};

DecodeError decode_err(const std::string &text) {
    std::string err;
    size_t col = 999;
    auto out = decode_pattern(text, &err, &col);
    EXPECT_FALSE(out.has_value()) << text << " decoded to " << out.value_or("");
    return {err, col};
}

} // namespace

TEST(DecodePattern, LiteralsAndHexRuns) {
    EXPECT_EQ(decode_ok("GET /admin"), "GET /admin");
    EXPECT_EQ(decode_ok("|41 42|"), "AB");
    EXPECT_EQ(decode_ok("|4142|"), "AB");
    EXPECT_EQ(decode_ok("a|00|b"), std::string("a\0b", 3));
    EXPECT_EQ(decode_ok("|de AD\tbE ef|"), "\xde\xad\xbe\xef");
    EXPECT_EQ(decode_ok("GET /admin|20|x"), "GET /admin x");
    EXPECT_EQ(decode_ok("|07|evil-c2|07|example|03|com"), "\x07" "evil-c2\x07" "example\x03" "com");
    EXPECT_EQ(decode_ok("|  41  |"), "A");
}

TEST(DecodePattern, BackslashEscapes) {
    EXPECT_EQ(decode_ok(R"(a\\b)"), "a\\b");
    EXPECT_EQ(decode_ok(R"(a\|b)"), "a|b");
    EXPECT_EQ(decode_ok(R"(say \"hi\")"), "say \"hi\"");
    EXPECT_EQ(decode_ok(R"(\n\r\t)"), "\n\r\t");
    EXPECT_EQ(decode_ok(R"(\x41\x7e\xFF)"), "A~\xff");
    EXPECT_EQ(decode_ok(R"(\x00)"), std::string(1, '\0'));
}

TEST(DecodePattern, ErrorsPointInsideTheText) {
    auto e = decode_err("GET |41 42");
    EXPECT_EQ(e.message, "unterminated hex run (no closing '|')");
    EXPECT_EQ(e.column, 4u); // the opening '|'

    e = decode_err("ab|414|");
    EXPECT_EQ(e.message, "odd number of hex digits in hex run");
    EXPECT_EQ(e.column, 5u); // the lone digit

    e = decode_err("|4 1|");
    EXPECT_EQ(e.message, "odd number of hex digits in hex run");
    EXPECT_EQ(e.column, 1u);

    e = decode_err("x|4G|");
    EXPECT_EQ(e.message, "non-hex digit 'G' in hex run");
    EXPECT_EQ(e.column, 3u);

    e = decode_err("|zz|");
    EXPECT_EQ(e.message, "non-hex digit 'z' in hex run");
    EXPECT_EQ(e.column, 1u);

    e = decode_err("ab||");
    EXPECT_EQ(e.message, "empty hex run '||'");
    EXPECT_EQ(e.column, 2u);

    e = decode_err(R"(ab\q)");
    EXPECT_EQ(e.message, "unknown escape '\\q'");
    EXPECT_EQ(e.column, 2u);

    e = decode_err("abc\\");
    EXPECT_EQ(e.message, "trailing backslash");
    EXPECT_EQ(e.column, 3u);

    e = decode_err(R"(\x4)");
    EXPECT_EQ(e.message, "\\x needs two hex digits");
    EXPECT_EQ(e.column, 0u);

    e = decode_err(R"(\xg0)");
    EXPECT_EQ(e.message, "\\x needs two hex digits");

    e = decode_err("|41");
    EXPECT_EQ(e.message, "unterminated hex run (no closing '|')");
    EXPECT_EQ(e.column, 0u);
}

TEST(DecodePattern, ErrorOutputsAreOptional) {
    EXPECT_FALSE(decode_pattern("|4", nullptr, nullptr).has_value());
}

TEST(EncodePattern, CanonicalForm) {
    EXPECT_EQ(encode_pattern("GET /admin"), "GET /admin");
    EXPECT_EQ(encode_pattern("a|b\\c\"d"), "a|7C|b|5C|c|22|d");
    EXPECT_EQ(encode_pattern("\x90\x90\x90"), "|90 90 90|");
    EXPECT_EQ(encode_pattern(std::string("\x07" "evil\x00", 6)), "|07|evil|00|");
    EXPECT_EQ(encode_pattern("\r\n"), "|0D 0A|");
    EXPECT_EQ(encode_pattern(""), "");
}

TEST(EncodePattern, RandomRoundTrip) {
    std::mt19937 rng(20240521); // fixed seed: reproducible
    std::uniform_int_distribution<int> len(1, 64), byte(0, 255), printable(0x20, 0x7e), coin(0, 2);
    for (int iter = 0; iter < 5000; ++iter) {
        std::string bytes;
        int n = len(rng);
        for (int i = 0; i < n; ++i)
            bytes.push_back(static_cast<char>(coin(rng) ? printable(rng) : byte(rng)));
        std::string text = encode_pattern(bytes);
        std::string err;
        size_t col = 0;
        auto back = decode_pattern(text, &err, &col);
        ASSERT_TRUE(back.has_value()) << text << ": " << err;
        ASSERT_EQ(*back, bytes) << text;
        // Canonical: encoding is a fixed point and never needs YAML escaping.
        ASSERT_EQ(encode_pattern(*back), text);
        ASSERT_EQ(text.find_first_of("\"\\"), std::string::npos) << text;
    }
}
