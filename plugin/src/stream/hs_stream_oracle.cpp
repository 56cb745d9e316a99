#include "stream/hs_stream_oracle.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace wm::stream {
namespace {

std::string escape_literal(const std::string &bytes) {
    static const char hex[] = "0123456789abcdef";
    std::string re;
    for (unsigned char c : bytes) {
        re += "\\x";
        re += hex[c >> 4];
        re += hex[c & 15];
    }
    return re;
}

// Same test as CompiledRuleSet::applies, restated so the oracle shares no
// code with what it checks.
bool applies(const rules::Rule &r, const wm_payload_meta_t &m) {
    if (r.protocol == rules::Protocol::Tcp && m.proto != WM_PROTO_TCP) return false;
    if (r.protocol == rules::Protocol::Udp && m.proto != WM_PROTO_UDP) return false;
    if (r.ports.empty()) return true;
    for (const auto &p : r.ports)
        if ((m.src_port >= p.lo && m.src_port <= p.hi) || (m.dst_port >= p.lo && m.dst_port <= p.hi))
            return true;
    return false;
}

struct ScanCtx {
    const std::vector<rules::Rule> *rules;
    const wm_payload_meta_t *meta;
    uint64_t base;
    std::vector<StreamMatch> *out;
};

int on_match(unsigned id, unsigned long long, unsigned long long to, unsigned, void *p) {
    auto *c = static_cast<ScanCtx *>(p);
    const rules::Rule &r = (*c->rules)[id];
    const uint64_t end = c->base + to, start = end - r.pattern.size();
    if (start < r.offset) return 0;
    if (r.depth != 0 && end > uint64_t(r.offset) + r.depth) return 0;
    if (!applies(r, *c->meta)) return 0;
    c->out->emplace_back(id, end);
    return 0;
}

int ignore_match(unsigned, unsigned long long, unsigned long long, unsigned, void *) { return 0; }

} // namespace

HsStreamOracle::HsStreamOracle(const std::vector<rules::Rule> &rules) : rules_(rules) {
    if (rules.empty()) return;
    std::vector<std::string> res;
    std::vector<const char *> exprs;
    std::vector<unsigned> flags, ids;
    for (size_t i = 0; i < rules.size(); ++i) {
        res.push_back(escape_literal(rules[i].pattern));
        flags.push_back(rules[i].nocase ? HS_FLAG_CASELESS : 0);
        ids.push_back(static_cast<unsigned>(i));
    }
    for (const auto &r : res) exprs.push_back(r.c_str());
    hs_compile_error_t *err = nullptr;
    if (hs_compile_multi(exprs.data(), flags.data(), ids.data(), unsigned(exprs.size()),
                         HS_MODE_STREAM, nullptr, &db_, &err) != HS_SUCCESS) {
        std::string msg = err ? err->message : "unknown error";
        hs_free_compile_error(err);
        throw std::runtime_error("Hyperscan stream-mode compile failed: " + msg);
    }
    if (hs_alloc_scratch(db_, &scratch_) != HS_SUCCESS) {
        hs_free_database(db_);
        throw std::runtime_error("Hyperscan stream-mode scratch allocation failed");
    }
}

HsStreamOracle::~HsStreamOracle() {
    while (!streams_.empty()) close(streams_.begin());
    hs_free_scratch(scratch_);
    hs_free_database(db_);
}

void HsStreamOracle::close(std::map<std::pair<uint64_t, int>, Open>::iterator it) {
    // Literal patterns cannot match at end of data, so nothing is lost by
    // ignoring what closing reports.
    hs_close_stream(it->second.stream, scratch_, ignore_match, nullptr);
    streams_.erase(it);
}

void HsStreamOracle::data(uint64_t flow, int dir, uint64_t off, const uint8_t *bytes, size_t len,
                          const wm_payload_meta_t &meta, std::vector<StreamMatch> &out) {
    if (!db_ || len == 0) return;
    auto it = streams_.find({flow, dir});
    if (it == streams_.end()) {
        Open o;
        o.base = off;
        if (hs_open_stream(db_, 0, &o.stream) != HS_SUCCESS)
            throw std::runtime_error("hs_open_stream failed");
        it = streams_.emplace(std::make_pair(flow, dir), o).first;
    }
    const size_t first = out.size();
    ScanCtx ctx{&rules_, &meta, it->second.base, &out};
    const hs_error_t rc = hs_scan_stream(it->second.stream, reinterpret_cast<const char *>(bytes),
                                         static_cast<unsigned>(len), 0, scratch_, on_match, &ctx);
    if (rc != HS_SUCCESS)
        throw std::runtime_error(fmt::format("hs_scan_stream failed (error {})", rc));
    std::sort(out.begin() + first, out.end(), [](const StreamMatch &a, const StreamMatch &b) {
        return a.second != b.second ? a.second < b.second : a.first < b.first;
    });
}

void HsStreamOracle::gap(uint64_t flow, int dir) {
    auto it = streams_.find({flow, dir});
    if (it != streams_.end()) close(it);
}

void HsStreamOracle::end(uint64_t flow) {
    gap(flow, 0);
    gap(flow, 1);
}

} // namespace wm::stream
