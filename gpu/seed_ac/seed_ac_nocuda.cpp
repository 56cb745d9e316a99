// gpu/seed_ac/seed_ac_nocuda.cpp - GPU entry points of a build without CUDA.
#include "gpu/seed_ac/seed_ac_variants.h"

namespace wm::seed_ac {

bool gpu_usable(int, std::string *why) {
    if (why) *why = "built without CUDA support";
    return false;
}

} // namespace wm::seed_ac
