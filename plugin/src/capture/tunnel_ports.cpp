// plugin/src/capture/tunnel_ports.cpp - see tunnel_ports.h.
#include "capture/tunnel_ports.h"

#include <algorithm>
#include <stdexcept>

namespace wm::capture {

namespace {

constexpr UdpTunnel kTunnels[kUdpTunnelKinds] = {UdpTunnel::Vxlan,  UdpTunnel::Geneve,   UdpTunnel::Gtpu,
                                                 UdpTunnel::Teredo, UdpTunnel::Ayiya,    UdpTunnel::VxlanGpe,
                                                 UdpTunnel::MplsUdp};

std::invalid_argument bad(const std::string &spec, const std::string &why) {
    return std::invalid_argument("tunnel ports \"" + spec + "\": " + why);
}

std::vector<std::string> split(const std::string &s, const std::string &separators) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at <= s.size()) {
        const size_t end = std::min(s.find_first_of(separators, at), s.size());
        out.push_back(s.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

uint16_t parse_port(const std::string &spec, const std::string &text) {
    const bool digits = !text.empty() && text.size() <= 5 && std::all_of(text.begin(), text.end(), [](char c) {
        return c >= '0' && c <= '9';
    });
    const unsigned long v = digits ? std::stoul(text) : 0;
    if (v < 1 || v > 65535) throw bad(spec, "port \"" + text + "\" is not a number from 1 to 65535");
    return uint16_t(v);
}

} // namespace

TunnelPorts::TunnelPorts() {
    ports_[index(UdpTunnel::Vxlan)] = {kVxlanPort};
    ports_[index(UdpTunnel::Geneve)] = {kGenevePort};
    ports_[index(UdpTunnel::Gtpu)] = {kGtpuPort};
    ports_[index(UdpTunnel::Teredo)] = {kTeredoPort};
    ports_[index(UdpTunnel::Ayiya)] = {kAyiyaPort};
    ports_[index(UdpTunnel::VxlanGpe)] = {kVxlanGpePort};
    ports_[index(UdpTunnel::MplsUdp)] = {kMplsUdpPort};
    index_ports();
}

const char *TunnelPorts::name(UdpTunnel t) {
    switch (t) {
    case UdpTunnel::Vxlan: return "vxlan";
    case UdpTunnel::Geneve: return "geneve";
    case UdpTunnel::Gtpu: return "gtpu";
    case UdpTunnel::Teredo: return "teredo";
    case UdpTunnel::Ayiya: return "ayiya";
    case UdpTunnel::VxlanGpe: return "vxlan-gpe";
    case UdpTunnel::MplsUdp: return "mpls-udp";
    default: return "none";
    }
}

TunnelPorts TunnelPorts::parse(const std::string &spec) {
    TunnelPorts out;
    bool named[kUdpTunnelKinds] = {};
    for (const std::string &item : split(spec, "; \t")) {
        if (item.empty()) continue;
        const size_t eq = item.find('=');
        const std::string key = item.substr(0, eq);
        const UdpTunnel *t = std::find_if(std::begin(kTunnels), std::end(kTunnels),
                                          [&](UdpTunnel k) { return key == name(k); });
        if (t == std::end(kTunnels))
            throw bad(spec, "unknown tunnel \"" + key + "\" (vxlan, geneve, gtpu, teredo, ayiya, vxlan-gpe, mpls-udp)");
        if (eq == std::string::npos)
            throw bad(spec, "\"" + item + "\" has no '=' (" + key + "=PORT,... or " + key + "=off)");
        if (named[index(*t)]) throw bad(spec, key + " is given twice");
        named[index(*t)] = true;
        std::vector<uint16_t> &ports = out.ports_[index(*t)];
        ports.clear();
        const std::string value = item.substr(eq + 1);
        if (value == "off") continue;
        for (const std::string &p : split(value, ",")) {
            const uint16_t port = parse_port(spec, p);
            if (std::find(ports.begin(), ports.end(), port) == ports.end()) ports.push_back(port);
        }
        if (ports.size() > kMaxPortsPerTunnel)
            throw bad(spec, key + " has more than " + std::to_string(kMaxPortsPerTunnel) + " ports");
    }
    // One port, one tunnel: a datagram's header is checked as one kind only.
    for (size_t i = 0; i < kUdpTunnelKinds; ++i)
        for (size_t j = i + 1; j < kUdpTunnelKinds; ++j)
            for (uint16_t p : out.ports_[i])
                if (std::find(out.ports_[j].begin(), out.ports_[j].end(), p) != out.ports_[j].end())
                    throw bad(spec, "port " + std::to_string(p) + " is given to both " + name(kTunnels[i]) + " and " +
                                        name(kTunnels[j]));
    out.index_ports();
    return out;
}

void TunnelPorts::index_ports() {
    by_dst_.fill(0);
    by_either_.fill(0);
    for (UdpTunnel t : kTunnels)
        for (uint16_t p : ports_[index(t)]) {
            set_bit(by_dst_, p);
            if (!by_destination(t)) set_bit(by_either_, p);
        }
}

UdpTunnel TunnelPorts::tunnel(uint16_t src_port, uint16_t dst_port) const {
    for (UdpTunnel t : kTunnels) {
        const std::vector<uint16_t> &ports = ports_[index(t)];
        for (uint16_t p : ports)
            if (p == dst_port || (p == src_port && !by_destination(t))) return t;
    }
    return UdpTunnel::None;
}

std::string TunnelPorts::to_string() const {
    std::string s;
    for (UdpTunnel t : kTunnels) {
        s += s.empty() ? "" : " ";
        s += name(t);
        s += '=';
        const std::vector<uint16_t> &ports = ports_[index(t)];
        if (ports.empty()) s += "off";
        for (size_t k = 0; k < ports.size(); ++k) s += (k ? "," : "") + std::to_string(ports[k]);
    }
    return s;
}

} // namespace wm::capture
