// gpu/ac_run_targets.cpp - see ac_run_targets.h.
#include "gpu/ac_run_targets.h"

#include <cstddef>

namespace wm::gpu {

std::vector<bool> run_string_states(const std::vector<std::vector<std::pair<uint8_t, uint32_t>>> &kids) {
    constexpr int kNone = -1; // root, or a string of two classes or more
    std::vector<int> run_class(kids.size(), kNone);
    // Breadth-first: a parent comes before its children.
    for (size_t s = 0; s < kids.size(); ++s)
        for (const auto &[c, child] : kids[s])
            if (s == 0 || run_class[s] == c) run_class[child] = c;
    std::vector<bool> run(kids.size());
    for (size_t s = 0; s < kids.size(); ++s) run[s] = run_class[s] != kNone;
    return run;
}

} // namespace wm::gpu
