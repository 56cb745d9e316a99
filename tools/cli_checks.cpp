#include "cli_checks.h"

#include "warpmatch.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <sys/stat.h>

CLI::Option *add_gpu_wait_option(CLI::App *cmd, int &wait) {
    const std::map<std::string, int> modes{{"spin", WM_GPU_WAIT_SPIN}, {"block", WM_GPU_WAIT_BLOCK}};
    return cmd
        ->add_option("--gpu-wait", wait,
                     "how the scanning thread waits for the GPU: spin (default: soonest, one core busy) or "
                     "block (sleeps: the core is free for other threads)")
        ->transform(CLI::CheckedTransformer(modes, CLI::ignore_case).description(""))
        ->type_name("spin|block");
}

CLI::Option *add_payload_layout_option(CLI::App *cmd, int &layout) {
    const std::map<std::string, int> layouts{
        {"auto", WM_PAYLOADS_AUTO}, {"packed", WM_PAYLOADS_PACKED}, {"in-place", WM_PAYLOADS_IN_PLACE}};
    return cmd
        ->add_option("--payload-layout", layout,
                     "where a window's payloads lie for the scan: in-place (as the file has them, no copy on the "
                     "host), packed (copied back to back) or auto (default: the library's choice, in place)")
        ->transform(CLI::CheckedTransformer(layouts, CLI::ignore_case).description(""))
        ->type_name("auto|packed|in-place");
}

void refuse_set_matches_with_streams(CLI::App *cmd, const bool &streams, const std::string &matches) {
    cmd->parse_complete_callback([&streams, &matches] {
        if (streams && matches == "set")
            throw CLI::ValidationError("--matches set", "--streams needs match positions: use --matches positions "
                                                        "(or auto) with --streams");
    });
}

CLI::Validator finite_range(double lo, double hi) {
    return CLI::Validator(
        [lo, hi](std::string &v) -> std::string {
            double x = 0;
            if (!CLI::detail::lexical_cast(v, x) || !std::isfinite(x) || x < lo || x > hi)
                return fmt::format("{} is not a number from {:g} to {:g}", v, lo, hi);
            return {};
        },
        fmt::format("NUMBER in [{:g}, {:g}]", lo, hi));
}

bool same_file_as_any(const std::string &output, const std::vector<std::string> &inputs) {
    struct stat o {};
    if (output.empty() || ::stat(output.c_str(), &o) != 0) return false; // a new file destroys nothing
    for (const std::string &in : inputs) {
        struct stat i {};
        if (::stat(in.c_str(), &i) == 0 && i.st_dev == o.st_dev && i.st_ino == o.st_ino) return true;
    }
    return false;
}

bool finish_output(FILE *out, const std::string &name) {
    // ferror: an earlier write failed (disk full, closed stdout); the flush or
    // close reports what was still buffered.
    const bool earlier = std::ferror(out) != 0;
    errno = 0;
    const bool flushed = (out == stdout ? std::fflush(out) : std::fclose(out)) == 0;
    if (!earlier && flushed) return true;
    const int e = errno ? errno : EIO;
    fmt::print(stderr, "warpmatch: writing {} failed: {}; alerts may be missing from it\n", name, std::strerror(e));
    return false;
}
