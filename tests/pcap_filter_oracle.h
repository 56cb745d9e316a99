// tests/pcap_filter_oracle.h - which records of a capture a filter accepts,
// by libpcap alone (its own compile of the expression on the file's
// handle): the oracle of the replay filter's tests.
#pragma once

#include <pcap/pcap.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

namespace wm::test {

// Reads every record of pcap with libpcap and calls
// visit(dlt, number, header, data, accepted) for each, number counting from
// 1 in the file. Returns libpcap's message for the record that stopped the
// read ("" at a clean end; a test failure when the file or expression is bad).
template <typename Visit>
std::string visit_filtered_records(const std::string &pcap, const std::string &expression, Visit visit) {
    char errbuf[PCAP_ERRBUF_SIZE] = "";
    pcap_t *p = pcap_open_offline(pcap.c_str(), errbuf);
    if (!p) {
        ADD_FAILURE() << "libpcap cannot open " << pcap << ": " << errbuf;
        return errbuf;
    }
    bpf_program program{};
    if (pcap_compile(p, &program, expression.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
        const std::string why = pcap_geterr(p);
        ADD_FAILURE() << expression << ": " << why;
        pcap_close(p);
        return why;
    }
    std::string error;
    pcap_pkthdr *h = nullptr;
    const u_char *d = nullptr;
    for (uint64_t number = 1;; ++number) {
        const int rc = pcap_next_ex(p, &h, &d);
        if (rc == PCAP_ERROR_BREAK) break;
        if (rc != 1) {
            error = pcap_geterr(p);
            break;
        }
        visit(pcap_datalink(p), number, *h, d, pcap_offline_filter(&program, h, d) != 0);
    }
    pcap_freecode(&program);
    pcap_close(p);
    return error;
}

// The numbers in the file (from 1) of the records `expression` accepts.
inline std::set<uint64_t> records_accepted(const std::string &pcap, const std::string &expression) {
    std::set<uint64_t> out;
    visit_filtered_records(pcap, expression, [&](int, uint64_t number, const pcap_pkthdr &, const uint8_t *, bool ok) {
        if (ok) out.insert(number);
    });
    return out;
}

} // namespace wm::test
