// rules/file_read.cpp - see file_read.h.
#include "rules/file_read.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace wm::rules {

CappedRead read_file_capped(const std::string &path, size_t max_bytes) {
    CappedRead r;
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) {
        r.error = errno;
        return r;
    }
    char buf[65536];
    while (r.bytes.size() <= max_bytes) {
        const size_t want = std::min(sizeof buf, max_bytes + 1 - r.bytes.size());
        const size_t got = std::fread(buf, 1, want, f);
        r.bytes.append(buf, got);
        if (got < want) break;
    }
    r.error = std::ferror(f) ? errno : 0; // fopen succeeds on a directory; the read fails with EISDIR
    std::fclose(f);
    r.over = r.bytes.size() > max_bytes;
    return r;
}

} // namespace wm::rules
