// plugin/src/capture/frame_filter.cpp - see frame_filter.h.
#include "capture/frame_filter.h"

#include <memory>
#include <stdexcept>

namespace wm::capture {

FrameFilter::FrameFilter(const std::string &expression, int dlt) : expression_(expression) {
    // A dead handle carries the link type the expression is compiled for.
    std::unique_ptr<pcap_t, decltype(&pcap_close)> dead(pcap_open_dead(dlt, 262144), &pcap_close);
    if (!dead) throw std::invalid_argument("capture filter '" + expression + "': out of memory");
    if (pcap_compile(dead.get(), &program_, expression.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
        const char *name = pcap_datalink_val_to_name(dlt);
        throw std::invalid_argument("capture filter '" + expression + "' (link type " +
                                    (name ? name : std::to_string(dlt)) + "): " + pcap_geterr(dead.get()));
    }
}

FrameFilter::~FrameFilter() { pcap_freecode(&program_); }

bool FrameFilter::accepts(const uint8_t *frame, uint32_t caplen, uint32_t wirelen) const {
    pcap_pkthdr h{};
    h.caplen = caplen;
    h.len = wirelen;
    return pcap_offline_filter(&program_, &h, frame) != 0;
}

} // namespace wm::capture
