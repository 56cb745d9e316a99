// Runs the CLI as a child process and captures stdout, stderr and status.
#pragma once

#include "tests/scratch.h"
#include "tests/shell_quote.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace wm::test {

struct CommandResult {
    int status = -1;
    std::string out, err;
};

inline std::string slurp(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

inline CommandResult run_command(const std::string &args) {
    char tmpl[] = "/tmp/wm-cli-XXXXXX";
    std::string dir = mkdtemp(tmpl);
    std::string cmd =
        shell_quote(WM_CLI) + " " + quote_tree_paths(args) + " >" + dir + "/out 2>" + dir + "/err";
    CommandResult r;
    int rc = std::system(cmd.c_str());
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = slurp(dir + "/out");
    r.err = slurp(dir + "/err");
    std::system(("rm -rf " + dir).c_str());
    return r;
}

} // namespace wm::test
