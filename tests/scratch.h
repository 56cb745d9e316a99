// tests/scratch.h - scratch files for tests: one directory per test process
// under gtest's temp dir, removed when the process's tests end, or kept
// (and named) when one failed so it can be looked at.
//
// ctest runs every test case as a process of its own, several at a time,
// so fixed names in /tmp collide and per-test names pile up; a directory
// per process does neither.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

namespace wm::test {

namespace scratch_detail {

inline const std::filesystem::path &dir() {
    static const std::filesystem::path d = [] {
        std::filesystem::path p =
            std::filesystem::path(::testing::TempDir()) / ("wm-test-" + std::to_string(getpid()));
        std::filesystem::create_directories(p);
        return p;
    }();
    return d;
}

inline bool &used() {
    static bool u = false;
    return u;
}

class Cleanup : public ::testing::EmptyTestEventListener {
    void OnTestProgramEnd(const ::testing::UnitTest &unit) override {
        if (!used()) return;
        if (unit.Failed()) {
            std::cerr << "[ scratch ] kept " << dir().string() << " (a test failed)\n";
            return;
        }
        std::error_code ec;
        std::filesystem::remove_all(dir(), ec);
    }
};

// Installed before main() in every test binary that includes this header.
inline const bool kInstalled = [] {
    ::testing::UnitTest::GetInstance()->listeners().Append(new Cleanup);
    return true;
}();

} // namespace scratch_detail

// A path in this process's scratch directory, named after the running test
// (if any) and `name`; nothing is created at that path.
inline std::string scratch_path(const std::string &name) {
    scratch_detail::used() = true;
    std::string prefix;
    if (const auto *info = ::testing::UnitTest::GetInstance()->current_test_info())
        prefix = std::string(info->test_suite_name()) + "." + info->name() + ".";
    for (char &c : prefix)
        if (c == '/') c = '_'; // parameterised names hold '/'
    return (scratch_detail::dir() / (prefix + name)).string();
}

} // namespace wm::test
