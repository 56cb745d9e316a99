// tests/fuzz/fuzz_input.h - what every fuzz target shares: a scratch file
// for inputs that must be read from a path, and a check that stops the run
// with a message (libFuzzer then saves the input as a crash).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace wm::fuzz {

// Fails the input: prints why, then aborts so libFuzzer (or the seed
// driver, fuzz_main.cpp) reports it as a crash with this message.
[[noreturn]] inline void fail(const std::string &why) {
    std::fprintf(stderr, "fuzz check failed: %s\n", why.c_str());
    std::fflush(stderr);
    std::abort();
}

inline void require(bool ok, const std::string &why) {
    if (!ok) fail(why);
}

// The per-process file a target writes each input into (readers that take
// a path: libpcap, the window reader, the rule importer), under $TMPDIR
// when set; removed at exit. One per process: the suffix of the first call.
inline const std::string &scratch_file(const char *suffix) {
    static const std::string path = [&] {
        const char *dir = std::getenv("TMPDIR");
        return std::string(dir && *dir ? dir : "/tmp") + "/wm-fuzz-" + std::to_string(getpid()) + suffix;
    }();
    // Registered once path exists, so it runs before path is destroyed.
    static const int removed_at_exit = std::atexit([] { std::remove(path.c_str()); });
    (void)removed_at_exit;
    return path;
}

inline const std::string &write_scratch(const uint8_t *data, size_t size, const char *suffix) {
    const std::string &path = scratch_file(suffix);
    FILE *f = std::fopen(path.c_str(), "wb");
    require(f != nullptr, "cannot create " + path);
    require(size == 0 || std::fwrite(data, 1, size, f) == size, "cannot write " + path);
    std::fclose(f);
    return path;
}

} // namespace wm::fuzz
