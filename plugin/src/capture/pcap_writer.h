// plugin/src/capture/pcap_writer.h - minimal classic pcap file writer.
//
// Written directly (not through pcap_dump) so tests can store any link type
// and records whose caplen is below their wire length (snaplen-truncated),
// and so output bytes are fully deterministic.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace wm::capture {

// LINKTYPE_* values as stored in files (pcap_datalink maps 101 -> DLT_RAW).
enum : uint32_t {
    kLinktypeNull = 0,
    kLinktypeEthernet = 1,
    kLinktypeRaw = 101,
    kLinktypeLoop = 108,
    kLinktypeLinuxSll = 113,
    kLinktypeIpv4 = 228,
    kLinktypeIpv6 = 229,
    kLinktypeLinuxSll2 = 276,
};

// Classic pcap, microsecond timestamps, little-endian. Throws
// std::runtime_error naming the path when it cannot be written.
class PcapWriter {
  public:
    PcapWriter(const std::string &path, uint32_t linktype, uint32_t snaplen = 262144);
    // Appends one record. wirelen 0 means frame.size(); a larger wirelen
    // records a frame cut by the snap length.
    void write(const std::vector<uint8_t> &frame, uint32_t ts_sec, uint32_t ts_usec,
               uint32_t wirelen = 0);
    // Flushes and closes; throws on a write error. The destructor closes too
    // but cannot report errors.
    void close();

  private:
    std::string path_;
    std::ofstream out_;
};

} // namespace wm::capture
