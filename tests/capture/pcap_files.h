// tests/capture/pcap_files.h - classic pcap files written and edited for
// tests of the readers (capture/ and stream/): a mix of records, and the
// raw bytes of a file with its record offsets, to corrupt or cut.
#pragma once

#include "capture_test_util.h"

#include "plugin/src/capture/pcap_writer.h"

#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace wm::capture::test {

// n records: payload frames with a payload of i % 300 bytes (some empty),
// an ARP frame every 7th, a snaplen-cut frame every 11th.
inline void write_mixed(const std::string &path, int n) {
    PcapWriter w(path, kLinktypeEthernet);
    for (int i = 1; i <= n; ++i) {
        Bytes f;
        if (i % 7 == 0) {
            f = build::arp_request(build::kMacA, kClient4, kServer4);
        } else {
            const std::string payload(size_t(i % 300), char('a' + i % 26));
            f = build::ethernet_ip(build::ipv4(v4(), build::kProtoTcp,
                                       build::tcp(tcp_ports(uint16_t(1000 + i), 80), build::bytes(payload))));
        }
        if (i % 11 == 0 && f.size() > 60) {
            const uint32_t wire = uint32_t(f.size());
            f.resize(60);
            w.write(f, uint32_t(i), uint32_t(i), wire);
        } else {
            w.write(f, uint32_t(i), uint32_t(i));
        }
    }
    w.close();
}

inline std::vector<uint8_t> slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}
inline void spit(const std::string &path, const std::vector<uint8_t> &d) {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char *>(d.data()), long(d.size()));
}
inline uint32_t le32(const std::vector<uint8_t> &d, size_t at) {
    return uint32_t(d[at]) | uint32_t(d[at + 1]) << 8 | uint32_t(d[at + 2]) << 16 | uint32_t(d[at + 3]) << 24;
}
inline void put_le32(std::vector<uint8_t> &d, size_t at, uint32_t v) {
    for (int k = 0; k < 4; ++k) d[at + k] = uint8_t(v >> (8 * k));
}
// File offsets of the record headers of a little-endian classic pcap.
inline std::vector<size_t> record_offsets(const std::vector<uint8_t> &d) {
    std::vector<size_t> at;
    for (size_t p = 24; p + 16 <= d.size(); p += 16 + le32(d, p + 8)) at.push_back(p);
    return at;
}

// write_mixed(n) at temp_path(name), its bytes then changed by edit(bytes);
// returns the path.
template <typename Edit> std::string edited_mixed(const std::string &name, int n, Edit edit) {
    const std::string path = temp_path(name);
    write_mixed(path, n);
    std::vector<uint8_t> d = slurp(path);
    edit(d);
    spit(path, d);
    return path;
}

// ... cut `keep` bytes into its last record.
inline std::string mixed_cut_short(const std::string &name, int n, size_t keep) {
    return edited_mixed(name, n, [&](std::vector<uint8_t> &d) { d.resize(record_offsets(d).back() + keep); });
}

// ... with record `bad` (0-based) given a caplen beyond any snapshot length.
inline std::string mixed_with_corrupt_record(const std::string &name, int n, size_t bad) {
    return edited_mixed(name, n, [&](std::vector<uint8_t> &d) { put_le32(d, record_offsets(d)[bad] + 8, 0x7fffffff); });
}

// ... with the file's snapshot length cut to 100, so frames with payloads of
// 60+ bytes exceed it (libpcap cuts such a record, and the in-place readers
// leave it and the rest to libpcap).
inline std::string mixed_with_snaplen_100(const std::string &name, int n) {
    return edited_mixed(name, n, [](std::vector<uint8_t> &d) { put_le32(d, 16, 100); });
}

// ... as version 2.3 (caplen and len may be interchanged, which libpcap
// undoes: read by libpcap alone).
inline std::string mixed_version_2_3(const std::string &name, int n) {
    return edited_mixed(name, n, [](std::vector<uint8_t> &d) { d[6] = 3; });
}

// The bytes of a classic pcap with 1-4 random kinds of damage, by seed: a
// record's caplen or len set to a value near a limit or anywhere, bytes
// overwritten anywhere (the file header too), the file cut short.
inline std::vector<uint8_t> randomly_damaged(std::vector<uint8_t> d, uint32_t seed) {
    std::mt19937 rng(seed);
    auto pick = [&](size_t n) { return size_t(rng() % n); };
    const int damages = 1 + int(pick(4));
    for (int k = 0; k < damages && d.size() > 24; ++k) {
        const std::vector<size_t> at = record_offsets(d);
        const uint32_t near[] = {0, 1, 13, 14, 59, 60, 65535, 65536, 262144, 262145, 0x7fffffffu, 0xffffffffu};
        switch (pick(4)) {
        case 0: // caplen
        case 1: // len
            if (!at.empty()) {
                const uint32_t v = pick(2) ? near[pick(std::size(near))] : uint32_t(rng());
                put_le32(d, at[pick(at.size())] + (k % 2 ? 8 : 12), v);
            }
            break;
        case 2:
            for (size_t n = 1 + pick(8); n > 0; --n) d[pick(d.size())] = uint8_t(rng());
            break;
        default:
            d.resize(24 + pick(d.size() - 24));
        }
    }
    return d;
}

// Calls check(path) for `copies` damaged copies of write_mixed(80) (seeds
// 1..copies, randomly_damaged), one at a time at temp_path(name), each under
// a trace of its seed.
template <typename Check> void for_each_damaged_mixed(const std::string &name, uint32_t copies, Check check) {
    const std::string clean = temp_path(name + ".clean"), path = temp_path(name);
    write_mixed(clean, 80);
    const std::vector<uint8_t> bytes = slurp(clean);
    for (uint32_t seed = 1; seed <= copies; ++seed) {
        SCOPED_TRACE("damage seed " + std::to_string(seed));
        spit(path, randomly_damaged(bytes, seed));
        check(path);
    }
}

} // namespace wm::capture::test
