// plugin/src/capture/pcap_writer.cpp - see pcap_writer.h.
#include "capture/pcap_writer.h"

#include <stdexcept>

namespace wm::capture {
namespace {

// Little-endian regardless of the host, so files are byte-identical
// everywhere (readers detect the order from the magic number).
void put32(std::ofstream &out, uint32_t v) {
    const char b[4] = {char(v), char(v >> 8), char(v >> 16), char(v >> 24)};
    out.write(b, 4);
}
void put16(std::ofstream &out, uint16_t v) {
    const char b[2] = {char(v), char(v >> 8)};
    out.write(b, 2);
}

} // namespace

PcapWriter::PcapWriter(const std::string &path, uint32_t linktype, uint32_t snaplen)
    : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    if (!out_) throw std::runtime_error("cannot write " + path);
    put32(out_, 0xa1b2c3d4); // microsecond-resolution magic
    put16(out_, 2);          // version 2.4
    put16(out_, 4);
    put32(out_, 0);          // thiszone
    put32(out_, 0);          // sigfigs
    put32(out_, snaplen);
    put32(out_, linktype);
}

void PcapWriter::write(const std::vector<uint8_t> &frame, uint32_t ts_sec, uint32_t ts_usec,
                       uint32_t wirelen) {
    const uint32_t caplen = static_cast<uint32_t>(frame.size());
    put32(out_, ts_sec);
    put32(out_, ts_usec);
    put32(out_, caplen);
    put32(out_, wirelen == 0 ? caplen : wirelen);
    out_.write(reinterpret_cast<const char *>(frame.data()), std::streamsize(frame.size()));
    if (!out_) throw std::runtime_error("write error on " + path_);
}

void PcapWriter::close() {
    if (!out_.is_open()) return;
    out_.close();
    if (out_.fail()) throw std::runtime_error("write error on " + path_);
}

} // namespace wm::capture
