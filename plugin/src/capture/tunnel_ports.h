// plugin/src/capture/tunnel_ports.h - the UDP ports on which the decoder
// looks for a tunnel's header (VXLAN, Geneve, GTP-U, Teredo, AYIYA,
// VXLAN-GPE, MPLS over UDP), when
// they are not the standard ones: VXLAN on Linux's 8472 (flannel), or a
// tunnel turned off, as Suricata's decoder.<tunnel>.ports and .enabled do.
//
// The decoder's default (a null TunnelPorts pointer) tests the standard
// ports inline; a configured set tests two 8 KB bitmaps instead.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace wm::capture {

enum class UdpTunnel : uint8_t { None, Vxlan, Geneve, Gtpu, Teredo, Ayiya, VxlanGpe, MplsUdp };
constexpr int kUdpTunnelKinds = 7;

// The standard ports: VXLAN, Geneve, VXLAN-GPE and MPLS over UDP by
// destination, the others by either end (the decoder tests these inline
// when no TunnelPorts is given).
constexpr uint16_t kVxlanPort = 4789, kGenevePort = 6081, kGtpuPort = 2152, kTeredoPort = 3544,
                   kAyiyaPort = 5072, kVxlanGpePort = 4790, kMplsUdpPort = 6635;

class TunnelPorts {
  public:
    // At most this many ports per tunnel.
    static constexpr size_t kMaxPortsPerTunnel = 16;

    // The standard ports: VXLAN 4789, Geneve 6081, VXLAN-GPE 4790 and MPLS
    // over UDP 6635 (by destination), GTP-U 2152, Teredo 3544 and AYIYA
    // 5072 (by either end).
    TunnelPorts();

    // The standard ports changed by `spec`: tunnels separated by ';' or
    // spaces, each NAME=PORT[,PORT...] or NAME=off, e.g.
    // "vxlan=4789,8472;teredo=off". NAME is vxlan, geneve, gtpu, teredo,
    // ayiya, vxlan-gpe or mpls-udp; a tunnel not named keeps its standard
    // ports. Throws
    // std::invalid_argument naming the part of the spec that is wrong: an
    // unknown name, a port outside 1-65535, a tunnel named twice, a port
    // given to two tunnels, more than kMaxPortsPerTunnel ports.
    static TunnelPorts parse(const std::string &spec);

    const std::vector<uint16_t> &ports(UdpTunnel t) const { return ports_[index(t)]; }
    static const char *name(UdpTunnel t);
    // Whether a datagram between these ports may be a tunnel: the test
    // every UDP packet takes.
    bool maybe(uint16_t src_port, uint16_t dst_port) const {
        return bit(by_dst_, dst_port) || bit(by_either_, src_port);
    }
    // The tunnel these ports name, None if none: VXLAN, Geneve, VXLAN-GPE
    // and MPLS over UDP by the destination port, the others by either.
    UdpTunnel tunnel(uint16_t src_port, uint16_t dst_port) const;
    // "vxlan=4789 geneve=6081 gtpu=2152 teredo=3544 ayiya=5072 vxlan-gpe=4790
    // mpls-udp=6635" (off for none).
    std::string to_string() const;

  private:
    static size_t index(UdpTunnel t) { return size_t(t) - 1; }
    static bool by_destination(UdpTunnel t) {
        return t == UdpTunnel::Vxlan || t == UdpTunnel::Geneve || t == UdpTunnel::VxlanGpe || t == UdpTunnel::MplsUdp;
    }
    using PortBits = std::array<uint64_t, 1024>; // one bit per port
    static bool bit(const PortBits &bits, uint16_t port) { return bits[port >> 6] >> (port & 63) & 1; }
    static void set_bit(PortBits &bits, uint16_t port) { bits[port >> 6] |= uint64_t(1) << (port & 63); }
    void index_ports();

    std::array<std::vector<uint16_t>, kUdpTunnelKinds> ports_;
    PortBits by_dst_{};    // every tunnel's ports: a destination port names one
    PortBits by_either_{}; // the ports of the tunnels known by either end
};

} // namespace wm::capture
