// Suricata / Snort 3 import: contents of inspection buffers become literals
// the packet payload can hold (a DNS name's wire form, a lower-cased
// host as nocase, dotprefix without its dot) or none (hashes, transforms
// that compute, packet headers); frame buffers keep no offsets; comments,
// continuations, duplicate revisions and dcerpc as Suricata reads them.
#include "rules/ids_import.h"
#include "tests/scratch.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace wm::rules;

namespace {

ImportResult import_text(const std::string &name, const std::string &text) {
    const std::string path = wm::test::scratch_path(name);
    std::ofstream(path, std::ios::binary) << text;
    return import_ids_rules({path});
}

const Rule *find(const RuleSet &rs, uint32_t id) {
    for (const Rule &r : rs.rules)
        if (r.id == id) return &r;
    return nullptr;
}

} // namespace

// A dotted DNS name is on the wire as labels after their length bytes
// (|04|evil|07|example|03|com): the dotted literal never matched a query.
// A label's length is known when it ends inside the content (the last one
// only with endswith); the literal breaks where one is not.
TEST(ImportBuffers, DnsNamesBecomeTheirWireForm) {
    const auto res = import_text(
        "dns.rules",
        "alert dns any any -> any any (msg:\"q\"; dns.query; content:\"evil.example.com\"; nocase; endswith; sid:1;)\n"
        "alert dns any any -> any any (msg:\"old\"; dns_query; content:\"ab.cdef\"; sid:2;)\n"
        "alert dns any any -> any any (msg:\"label\"; dns.query; content:\"nodots\"; sid:3;)\n"
        "alert dns any any -> any any (msg:\"dots\"; dns.query; content:\"..\"; sid:4;)\n"
        "alert dns any any -> any any (msg:\"suffix\"; dns.query; dotprefix; content:\".example.com\"; endswith; sid:5;)\n"
        "alert dns any any -> any any (msg:\"open\"; dns.query; content:\"a.bb.example\"; sid:6;)\n");
    ASSERT_NE(find(res.rules, 1), nullptr);
    EXPECT_EQ(find(res.rules, 1)->pattern, "evil\x07" "example\x03" "com");
    EXPECT_TRUE(find(res.rules, 1)->nocase);
    EXPECT_EQ(find(res.rules, 1)->protocol, Protocol::Any);
    EXPECT_EQ(find(res.rules, 2)->pattern, "cdef"); // "ab" then a label of unknown length
    EXPECT_EQ(find(res.rules, 3)->pattern, "nodots");
    EXPECT_EQ(find(res.rules, 4), nullptr);
    EXPECT_EQ(find(res.rules, 5)->pattern, "\x07" "example\x03" "com"); // the dot is the first label's length
    EXPECT_EQ(find(res.rules, 6)->pattern, "example"); // longer than "a|02|bb"; its own length is unknown
    // Newer keyword names; a transform of a buffer selected a second time.
    const auto more = import_text(
        "dns2.rules",
        "alert dns any any -> any any (msg:\"n\"; dns.query.name; content:\"a.example\"; endswith; sid:1;)\n"
        "alert tls any any -> any any (msg:\"s\"; tls.sni; content:\"x\"; tls.sni; dotprefix; "
        "content:\".evil.com\"; endswith; sid:2;)\n");
    EXPECT_EQ(find(more.rules, 1)->pattern, "a\x07" "example");
    EXPECT_EQ(find(more.rules, 2)->pattern, "evil.com");
    EXPECT_EQ(res.report.skipped_no_content, 1u);
}

// Suricata lower-cases http.host (its contents must be lower case): the
// header on the wire may be in any case. dotprefix puts a dot before the
// name that the wire does not have.
TEST(ImportBuffers, CaseFoldedAndDotprefixedBuffersFitTheWire) {
    const auto res = import_text(
        "host.rules",
        "alert http any any -> any any (msg:\"h\"; http.host; content:\"evil.example.com\"; sid:1;)\n"
        "alert http any any -> any any (msg:\"raw\"; http.host.raw; content:\"Evil.Example.com\"; sid:2;)\n"
        "alert tls any any -> any any (msg:\"sni\"; tls.sni; dotprefix; content:\".example.com\"; endswith; sid:3;)\n"
        "alert http any any -> any any (msg:\"lc\"; http.uri; to_lowercase; content:\"/admin\"; sid:4;)\n");
    EXPECT_TRUE(find(res.rules, 1)->nocase);
    EXPECT_EQ(find(res.rules, 1)->pattern, "evil.example.com");
    EXPECT_FALSE(find(res.rules, 2)->nocase);
    EXPECT_EQ(find(res.rules, 3)->pattern, "example.com");
    EXPECT_TRUE(find(res.rules, 4)->nocase);
}

// Hashes, decoded or computed buffers and packet headers never appear in
// the payload as written: such a content is no literal, the rule takes its
// next usable one, and a rule with none is counted under no content.
TEST(ImportBuffers, DerivedBuffersGiveNoLiteral) {
    const auto res = import_text(
        "derived.rules",
        "alert tls any any -> any any (msg:\"ja3\"; ja3_hash; content:\"16f17c896273d1d098314a02e87dd4cb\"; sid:1;)\n"
        "alert tls any any -> any any (msg:\"ja3+\"; ja3.hash; content:\"16f17c896273d1d098314a02e87dd4cb\"; "
        "fast_pattern; pkt_data; content:\"|16 03|\"; sid:2;)\n"
        "alert http any any -> any any (msg:\"md5\"; http.uri; to_md5; content:\"|01 02 03 04|\"; sid:3;)\n"
        "alert tcp any any -> any any (msg:\"hdr\"; tcp.hdr; content:\"|02 04 05 b4|\"; sid:4;)\n"
        "alert http any any -> any any (msg:\"b64\"; base64_decode; base64_data; content:\"secret\"; sid:5;)\n"
        "alert tls any any -> any any (msg:\"serial\"; tls.cert_serial; content:\"00:11:22\"; sid:6;)\n");
    EXPECT_EQ(find(res.rules, 1), nullptr);
    ASSERT_NE(find(res.rules, 2), nullptr);
    EXPECT_EQ(find(res.rules, 2)->pattern, "\x16\x03");
    for (uint32_t id : {3u, 4u, 5u, 6u}) EXPECT_EQ(find(res.rules, id), nullptr) << id;
    EXPECT_EQ(res.report.rules_imported, 1u);
    EXPECT_EQ(res.report.skipped_no_content, 5u);
}

// A certificate's subject and issuer are "C=US, O=x, CN=y" to the IDS; the
// DER on the wire holds each value, not the names and separators.
TEST(ImportBuffers, CertificateNamesBecomeTheirLongestValue) {
    const auto res = import_text(
        "cert.rules",
        "alert tls any any -> any any (msg:\"s\"; tls.cert_subject; content:\"CN=evil.example\"; sid:1;)\n"
        "alert tls any any -> any any (msg:\"i\"; tls_cert_issuer; content:\"Let's Encrypt Authority X\"; sid:2;)\n"
        "alert tls any any -> any any (msg:\"o\"; tls.cert_issuer; content:\"C=US, O=Let's Encrypt, CN=R3\"; sid:3;)\n");
    EXPECT_EQ(find(res.rules, 1)->pattern, "evil.example");
    EXPECT_EQ(find(res.rules, 2)->pattern, "Let's Encrypt Authority X");
    EXPECT_EQ(find(res.rules, 3)->pattern, "Let's Encrypt");
    // Attribute names are OIDs in DER: never the literal; no value, no literal.
    const auto keys = import_text(
        "keys.rules",
        "alert tls any any -> any any (msg:\"k\"; tls.cert_subject; content:\"C=, ST=, L=, O=, OU=, CN=\"; sid:1;)\n"
        "alert tls any any -> any any (msg:\"c\"; tls.cert_subject; content:\"CN=ab\"; sid:2;)\n"
        "alert tls any any -> any any (msg:\"m\"; tls.cert_subject; content:\"cme, OU=Dev\"; sid:3;)\n");
    EXPECT_EQ(find(keys.rules, 1), nullptr);
    EXPECT_EQ(find(keys.rules, 2)->pattern, "ab");
    EXPECT_EQ(find(keys.rules, 3)->pattern, "cme");
    // tls.certs is the certificates' DER itself: taken as written.
    const auto der = import_text("certs.rules", "alert tls any any -> any any (msg:\"d\"; tls.certs; "
                                                "content:\"|31 0b 30 09 06 03 55 04 06 13 02|US\"; sid:4;)\n");
    ASSERT_EQ(der.rules.rules.size(), 1u);
    EXPECT_EQ(der.rules.rules[0].pattern, std::string("\x31\x0b\x30\x09\x06\x03\x55\x04\x06\x13\x02US", 13));
}

// frame:smb2.hdr's offsets count from the frame (behind SMB's 4-byte NetBIOS
// header; a TLS record may be the second of a segment), not the payload.
TEST(ImportBuffers, FrameBuffersKeepNoOffsets) {
    const auto res = import_text(
        "frame.rules", "alert smb any any -> any any (msg:\"f\"; frame:smb2.hdr; content:\"|FE|SMB\"; startswith; sid:1;)\n"
                       "alert tls any any -> any any (msg:\"t\"; frame:tls.pdu; content:\"|16 03 01|\"; depth:3; sid:2;)\n");
    EXPECT_EQ(find(res.rules, 1)->pattern, "\xFESMB");
    EXPECT_EQ(find(res.rules, 1)->depth, 0u);
    EXPECT_EQ(find(res.rules, 2)->depth, 0u);
}

// As Suricata reads a rules file: a comment ends at its line even after a
// backslash; a continuation line keeps its leading spaces; dcerpc also runs
// over UDP.
TEST(ImportBuffers, CommentsContinuationsAndDcerpcAsSuricataReadsThem) {
    const auto res = import_text("lines.rules", "# a comment \\\n"
                                                "alert tcp any any -> any any (msg:\"v\"; content:\"visible\"; sid:1;)\n"
                                                "alert tcp any any -> any any (msg:\"m\"; content:\"multi \\\n"
                                                "  line\"; sid:2;)\n"
                                                "alert dcerpc any any -> any any (msg:\"d\"; content:\"|05 00 0b|\"; sid:3;)\n");
    ASSERT_NE(find(res.rules, 1), nullptr);
    EXPECT_EQ(find(res.rules, 1)->pattern, "visible");
    EXPECT_EQ(find(res.rules, 2)->pattern, "multi   line");
    EXPECT_EQ(find(res.rules, 3)->protocol, Protocol::Any);
    EXPECT_EQ(res.report.rules_read, 3u);
}

// A duplicate sid keeps its highest rev (Suricata replaces an older
// revision), the first of equal ones; the dropped one is listed either way.
TEST(ImportBuffers, DuplicateSidKeepsTheHighestRev) {
    const auto res = import_text("revs.rules",
                                 "alert tcp any any -> any any (msg:\"1\"; content:\"first-rev\"; sid:15; rev:1;)\n"
                                 "alert tcp any any -> any any (msg:\"2\"; content:\"second-rev\"; sid:15; rev:2;)\n"
                                 "alert tcp any any -> any any (msg:\"0\"; content:\"older-rev\"; sid:15; rev:1;)\n"
                                 "alert tcp any any -> any any (msg:\"n\"; pcre:\"/x/\"; sid:16; rev:1;)\n"
                                 "alert tcp any any -> any any (msg:\"n2\"; content:\"now-has-one\"; sid:16; rev:3;)\n");
    ASSERT_EQ(res.rules.rules.size(), 2u);
    EXPECT_EQ(find(res.rules, 15)->pattern, "second-rev");
    EXPECT_EQ(find(res.rules, 16)->pattern, "now-has-one");
    EXPECT_EQ(res.report.skipped_duplicate_sid, 3u);
    EXPECT_EQ(res.report.skipped_no_content, 0u);
    EXPECT_EQ(res.report.rules_imported, 2u);
    ASSERT_EQ(res.report.details.size(), 3u);
    EXPECT_NE(res.report.details[0].find(":1: duplicate sid 15: rev 1 replaced by rev 2 at "), std::string::npos)
        << res.report.details[0];
    EXPECT_NE(res.report.details[1].find(":3: duplicate sid 15 (first at "), std::string::npos)
        << res.report.details[1];
}
