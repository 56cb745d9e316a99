// plugin/src/stream/hs_stream_oracle.h - the independent answer for
// matching across segments: Hyperscan in stream mode (hs_open_stream /
// hs_scan_stream / hs_close_stream) over the same reassembled streams.
//
// Built from the same rules as the scanner but compiled on its own
// (HS_MODE_STREAM; literals as \xHH regexes, as compiled_ruleset.cpp does
// for block mode, intel/hyperscan#303). One Hyperscan stream per flow
// direction and gap-free run; a gap closes it and the next byte opens a new
// one, whose offsets are rebased onto the TCP stream. Offset/depth are
// applied to stream offsets and protocol/ports to the direction's metadata,
// exactly the semantics CarryMatcher must reproduce.
#pragma once

#include "rules/rule.h"
#include "warpmatch.h"

#include <hs/hs.h>

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace wm::stream {

// (rule index, stream end offset) of one match.
using StreamMatch = std::pair<uint32_t, uint64_t>;

class HsStreamOracle {
  public:
    // Throws std::runtime_error when Hyperscan cannot compile or allocate.
    explicit HsStreamOracle(const std::vector<rules::Rule> &rules);
    ~HsStreamOracle();
    HsStreamOracle(const HsStreamOracle &) = delete;
    HsStreamOracle &operator=(const HsStreamOracle &) = delete;

    // Bytes [off, off+len) of direction dir of flow; appends the matches
    // that end inside them, sorted by (end, rule).
    void data(uint64_t flow, int dir, uint64_t off, const uint8_t *bytes, size_t len,
              const wm_payload_meta_t &meta, std::vector<StreamMatch> &out);
    // Hole in the stream: the current Hyperscan stream ends.
    void gap(uint64_t flow, int dir);
    // The flow ended: both streams close.
    void end(uint64_t flow);
    size_t open_streams() const { return streams_.size(); }

  private:
    struct Open {
        hs_stream_t *stream = nullptr;
        uint64_t base = 0; // TCP stream offset of Hyperscan offset 0
    };
    void close(std::map<std::pair<uint64_t, int>, Open>::iterator it);

    const std::vector<rules::Rule> &rules_;
    hs_database_t *db_ = nullptr;
    hs_scratch_t *scratch_ = nullptr;
    std::map<std::pair<uint64_t, int>, Open> streams_;
};

} // namespace wm::stream
