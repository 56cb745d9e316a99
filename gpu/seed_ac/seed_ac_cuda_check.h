// gpu/seed_ac/seed_ac_cuda_check.h - CUDA error checks for seed_ac (own copy:
// this family stays independent of the production matcher in gpu/ac_*).
#pragma once

#include <cuda_runtime_api.h>
#include <stdexcept>
#include <string>

namespace wm::seed_ac {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char *what, const char *file, int line) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(e) + " (" +
                             cudaGetErrorName(e) + ", " + file + ":" + std::to_string(line) + ")");
}

} // namespace wm::seed_ac

#define SEED_AC_CHECK(call)                                                                        \
    do {                                                                                           \
        const cudaError_t seed_e_ = (call);                                                        \
        if (seed_e_ != cudaSuccess) ::wm::seed_ac::throw_cuda(seed_e_, #call, __FILE__, __LINE__); \
    } while (0)

// After every kernel launch: the launch error, named.
#define SEED_AC_CHECK_LAUNCH(name)                                                                 \
    do {                                                                                           \
        const cudaError_t seed_e_ = cudaGetLastError();                                            \
        if (seed_e_ != cudaSuccess)                                                                \
            ::wm::seed_ac::throw_cuda(seed_e_, "launch of " name, __FILE__, __LINE__);             \
    } while (0)
