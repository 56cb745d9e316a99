// tests/abi/abi_replay_refused.h - a replay whose options are refused:
// WM_INVALID before the file is read, the message naming what was wrong.
#pragma once

#include "warpmatch.h"
#include "warpmatch_stream.h"

#include <gtest/gtest.h>

#include <string>

namespace abi_test {

inline void expect_replay_refused(wm_scanner_t *sc, const std::string &path, const wm_replay_options_t &ro,
                                  const std::string &named) {
    wm_replay_stats_t st;
    wm_replay_stats_init(&st);
    wm_error_t *err = nullptr;
    EXPECT_EQ(wm_replay_file_ex(sc, path.c_str(), &ro, nullptr, nullptr, nullptr, nullptr, &st, nullptr, &err),
              WM_INVALID);
    ASSERT_NE(err, nullptr);
    EXPECT_NE(std::string(err->message).find(named), std::string::npos) << err->message;
    EXPECT_EQ(st.capture.packets, 0u);
    wm_error_free(err);
}

} // namespace abi_test
