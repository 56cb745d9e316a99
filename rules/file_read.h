// rules/file_read.h - a file read whole, up to a cap: rule files and align
// reference files are named by users, and a wrong name (/dev/zero, a
// multi-gigabyte capture) must fail with the limit, not by exhausting memory.
#pragma once

#include <cstddef>
#include <string>

namespace wm::rules {

struct CappedRead {
    std::string bytes; // the file's bytes, or its first max_bytes + 1 when it is longer
    int error = 0;     // errno of a failed open or read (EISDIR for a directory), else 0
    bool over = false; // the file holds more than max_bytes
};

// Reads path (binary) until its end or max_bytes + 1 bytes.
CappedRead read_file_capped(const std::string &path, size_t max_bytes);

} // namespace wm::rules
