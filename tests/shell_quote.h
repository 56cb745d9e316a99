// tests/shell_quote.h - paths in the shell commands tests run. A clone may
// live under a path with spaces ("My Projects/warpmatch"); the commands the
// CLI and live tests build name the source and build trees' files, so those
// trees' paths are quoted wherever a command names them.
#pragma once

#include <string>

namespace wm::test {

// s as one shell word: '...' with each ' written '\''.
inline std::string shell_quote(const std::string &s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// `command` with every occurrence of the build and source trees' paths
// quoted (the longer first, so a build tree inside the source tree is one
// word); the rest of a path after the tree's stays as written, which the
// shell joins to the quoted part.
inline std::string quote_tree_paths(const std::string &command) {
    std::string roots[2] = {WM_BINARY_DIR, WM_SOURCE_DIR};
    if (roots[1].size() > roots[0].size()) std::swap(roots[0], roots[1]);
    std::string out;
    for (size_t i = 0; i < command.size();) {
        bool quoted = false;
        for (const std::string &root : roots)
            if (!root.empty() && command.compare(i, root.size(), root) == 0) {
                out += shell_quote(root);
                i += root.size();
                quoted = true;
                break;
            }
        if (!quoted) out += command[i++];
    }
    return out;
}

} // namespace wm::test
