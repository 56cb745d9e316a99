// tests/fuzz/fuzz_main.cpp - runs a fuzz target over saved inputs, for
// builds without libFuzzer (gcc, CI): each argument is a file or a
// directory of them. The seed corpora and every crash once found are run
// this way as ctest cases, so a fixed bug stays fixed.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

int run_file(const std::filesystem::path &p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", p.c_str());
        return 1;
    }
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "input %s (%zu bytes)\n", p.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size()); // a failed check aborts
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    size_t ran = 0;
    for (int a = 1; a < argc; ++a) {
        const std::filesystem::path arg(argv[a]);
        std::vector<std::filesystem::path> files;
        if (std::filesystem::is_directory(arg)) {
            for (const auto &e : std::filesystem::directory_iterator(arg))
                if (e.is_regular_file()) files.push_back(e.path());
        } else {
            files.push_back(arg);
        }
        std::sort(files.begin(), files.end());
        for (const auto &f : files) {
            if (run_file(f) != 0) return 1;
            ++ran;
        }
    }
    if (ran == 0) {
        std::fprintf(stderr, "usage: %s FILE|DIR... (no inputs given or found)\n", argv[0]);
        return 2;
    }
    std::fprintf(stderr, "%zu inputs ran\n", ran);
    return 0;
}
