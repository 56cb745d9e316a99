// gpu/seed_ac/seed_ac_dispatch.cu - host entry, dispatch and the thin
// __global__ kernels of the seed_ac family, plus the text generator/packer.
#include "gpu/seed_ac/seed_ac_agent.cuh"
#include "gpu/seed_ac/seed_ac_cuda_check.h"
#include "gpu/seed_ac/seed_ac_gpu.h"
#include "gpu/seed_ac/seed_ac_hd.h"
#include "gpu/seed_ac/seed_ac_tuning.h"

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

namespace wm::seed_ac {
namespace detail {

template <class P, int kBits, bool kStaged, CountMode kMode>
__global__ void __launch_bounds__(P::kBlockThreads, P::kMinBlocksPerSm) count_kernel(const CountParams params) {
    extern __shared__ uint32_t smem[];
    CountAgent<P, kBits, kStaged, kMode>(params, smem).run();
}

// One word (4 one-byte characters) per thread.
__global__ void generate_kernel(uint32_t *d_bytes, uint64_t num_words, uint64_t length,
                                uint32_t alphabet, uint64_t seed) {
    for (uint64_t w = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; w < num_words;
         w += uint64_t(gridDim.x) * blockDim.x) {
        uint32_t x = 0;
        for (int j = 0; j < 4; ++j) {
            const uint64_t i = 4 * w + j;
            if (i < length) x |= random_char(seed, i, alphabet) << (8 * j);
        }
        d_bytes[w] = x;
    }
}

// One packed word (32 / kBits characters) per thread.
template <int kBits>
__global__ void pack_kernel(const uint32_t *d_bytes, uint64_t length, uint32_t *d_packed,
                            uint64_t num_words) {
    constexpr uint32_t kPer = 32 / kBits;
    for (uint64_t w = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; w < num_words;
         w += uint64_t(gridDim.x) * blockDim.x) {
        uint32_t x = 0;
        const uint64_t first = w * kPer;
        for (uint32_t j = 0; j < kPer && first + j < length; j += 4) {
            const uint32_t b = __ldg(d_bytes + (first + j) / 4);
            for (uint32_t k = 0; k < 4 && first + j + k < length; ++k)
                x |= ((b >> (8 * k)) & ((1u << kBits) - 1u)) << ((j + k) * kBits);
        }
        d_packed[w] = x;
    }
}

int util_grid(uint64_t items) {
    const uint64_t blocks = (items + CountPolicy::kUtilThreads - 1) / CountPolicy::kUtilThreads;
    return static_cast<int>(blocks < 65536 ? (blocks ? blocks : 1) : 65536);
}

// Blocks of `kernel` resident at once on the current device with this much
// shared memory. Cached: the queries cost microseconds, which would land
// inside the benchmark's event-timed region of sub-millisecond kernels.
uint64_t resident_blocks(const void *kernel, size_t shared_bytes) {
    static std::mutex mu;
    static std::map<std::tuple<int, const void *, size_t>, uint64_t> cache;
    int device = 0;
    SEED_AC_CHECK(cudaGetDevice(&device));
    const auto key = std::make_tuple(device, kernel, shared_bytes);
    std::lock_guard<std::mutex> lock(mu);
    const auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    int sms = 0, per_sm = 0;
    SEED_AC_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SEED_AC_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, CountPolicy::kBlockThreads,
                                                                shared_bytes));
    if (per_sm < 1) throw std::runtime_error("seed_ac kernel does not fit on an SM");
    return cache[key] = uint64_t(per_sm) * sms;
}

// Sizes the grid (one resident wave: blocks per SM at this shared-memory
// size times SMs), launches, checks the launch.
template <int kBits, bool kStaged, CountMode kMode>
LaunchInfo launch(CountParams params, cudaStream_t stream) {
    using P = CountPolicy;
    using Agent = CountAgent<P, kBits, kStaged, kMode>;
    auto kernel = count_kernel<P, kBits, kStaged, kMode>;
    if (kStaged) {
        const uint64_t chars = uint64_t(P::kBlockThreads) * P::kTileChars + params.overlap;
        const uint64_t words = (chars * kBits + 31) / 32;
        params.stage_words = static_cast<uint32_t>((words + 3) / 4 * 4);
    }
    LaunchInfo info;
    info.block = P::kBlockThreads;
    info.shared_counters = params.shared_counters;
    info.shared_bytes = sizeof(uint32_t) * (size_t(params.shared_counters) +
                                            (kStaged ? Agent::Layout::size(params.stage_words) : 0));
    // Raised to the policy's worst case once, so later launches skip the call.
    static const bool raised = [&] {
        const size_t most = sizeof(uint32_t) * (size_t(P::kMaxSharedCounters) +
                                                (kStaged ? Agent::Layout::size(
                                                               ((uint64_t(P::kBlockThreads) * P::kTileChars +
                                                                 P::kMaxOverlap) * kBits / 32 + 4) / 4 * 4)
                                                         : 0));
        SEED_AC_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(most)));
        return true;
    }();
    (void)raised;
    const uint64_t wave = resident_blocks(reinterpret_cast<const void *>(kernel), info.shared_bytes);
    info.grid = static_cast<int>(params.num_tiles < wave ? params.num_tiles : wave);
    if (info.grid == 0) return info;
    kernel<<<info.grid, P::kBlockThreads, info.shared_bytes, stream>>>(params);
    SEED_AC_CHECK_LAUNCH("seed_ac count_kernel");
    return info;
}

template <bool kStaged, CountMode kMode>
LaunchInfo launch_bits(int bits, const CountParams &params, cudaStream_t stream) {
    switch (bits) {
    case 1: return launch<1, kStaged, kMode>(params, stream);
    case 2: return launch<2, kStaged, kMode>(params, stream);
    case 4: return launch<4, kStaged, kMode>(params, stream);
    case 8: return launch<8, kStaged, kMode>(params, stream);
    default: throw std::invalid_argument("bits must be 1, 2, 4 or 8");
    }
}

template <CountMode kMode>
LaunchInfo launch_mode(bool staged, int bits, const CountParams &params, cudaStream_t stream) {
    return staged ? launch_bits<true, kMode>(bits, params, stream)
                  : launch_bits<false, kMode>(bits, params, stream);
}

} // namespace detail

uint64_t text_words(uint64_t length, int bits) { return (words_for(length, bits) + 3) / 4 * 4; }

LaunchInfo count_visits(Variant variant, const DeviceAutomaton &a, const DeviceText &text,
                        int pattern_length, uint32_t *d_visits, cudaStream_t stream) {
    using P = CountPolicy;
    const VariantTraits t = traits(variant);
    const int want_bits = t.packed ? bits_for_alphabet(a.alphabet) : 8;
    if (text.bits != want_bits)
        throw std::invalid_argument(std::string(t.name) + " needs " + std::to_string(want_bits) +
                                    "-bit text, got " + std::to_string(text.bits));
    if (pattern_length < 1 || pattern_length - 1 > P::kMaxOverlap)
        throw std::invalid_argument("pattern length must be in [1, " + std::to_string(P::kMaxOverlap + 1) + "]");
    if (text.num_words < text_words(text.length, text.bits))
        throw std::invalid_argument("text buffer smaller than text_words(length, bits)");
    if (t.mode == CountMode::kSharedLeaf && a.first_leaf < 0)
        throw std::invalid_argument(std::string(t.name) +
                                    " needs equal-length patterns in breadth-first order");

    detail::CountParams params{};
    params.d_next = a.d_next;
    params.alphabet = a.alphabet;
    params.d_words = text.d_words;
    params.num_words = text.num_words;
    params.length = text.length;
    params.overlap = pattern_length - 1;
    params.d_visits = d_visits;
    const uint64_t tile_chars = uint64_t(P::kBlockThreads) * P::kTileChars;
    params.num_tiles = (text.length + tile_chars - 1) / tile_chars;
    const int counted = t.mode == CountMode::kSharedLeaf ? a.num_states - a.first_leaf : a.num_states;
    params.counter_base = t.mode == CountMode::kSharedLeaf ? a.first_leaf : 0;
    params.shared_counters = t.mode == CountMode::kGlobalAll
                                 ? 0
                                 : (counted < P::kMaxSharedCounters ? counted : P::kMaxSharedCounters);
    switch (t.mode) {
    case CountMode::kGlobalAll:
        return detail::launch_mode<CountMode::kGlobalAll>(t.staged, text.bits, params, stream);
    case CountMode::kSharedAll:
        return detail::launch_mode<CountMode::kSharedAll>(t.staged, text.bits, params, stream);
    case CountMode::kSharedLeaf:
        return detail::launch_mode<CountMode::kSharedLeaf>(t.staged, text.bits, params, stream);
    }
    throw std::invalid_argument("unknown variant");
}

void generate_text(uint32_t *d_bytes, uint64_t num_words, uint64_t length, int alphabet, uint64_t seed,
                   cudaStream_t stream) {
    if (num_words < text_words(length, 8)) throw std::invalid_argument("text buffer too small");
    detail::generate_kernel<<<detail::util_grid(num_words), CountPolicy::kUtilThreads, 0, stream>>>(
        d_bytes, num_words, length, static_cast<uint32_t>(alphabet), seed);
    SEED_AC_CHECK_LAUNCH("seed_ac generate_kernel");
}

void pack_text(const uint32_t *d_bytes, uint64_t length, int bits, uint32_t *d_packed,
               uint64_t num_words, cudaStream_t stream) {
    if (num_words < text_words(length, bits)) throw std::invalid_argument("packed buffer too small");
    const int grid = detail::util_grid(num_words);
    const int block = CountPolicy::kUtilThreads;
    switch (bits) {
    case 1: detail::pack_kernel<1><<<grid, block, 0, stream>>>(d_bytes, length, d_packed, num_words); break;
    case 2: detail::pack_kernel<2><<<grid, block, 0, stream>>>(d_bytes, length, d_packed, num_words); break;
    case 4: detail::pack_kernel<4><<<grid, block, 0, stream>>>(d_bytes, length, d_packed, num_words); break;
    case 8: detail::pack_kernel<8><<<grid, block, 0, stream>>>(d_bytes, length, d_packed, num_words); break;
    default: throw std::invalid_argument("bits must be 1, 2, 4 or 8");
    }
    SEED_AC_CHECK_LAUNCH("seed_ac pack_kernel");
}

bool gpu_usable(int device, std::string *why) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        if (why) *why = std::string("no CUDA device: ") + cudaGetErrorString(e);
        cudaGetLastError();
        return false;
    }
    if (device < 0 || device >= count) {
        if (why) *why = "no CUDA device " + std::to_string(device) + " (" + std::to_string(count) + " present)";
        return false;
    }
    return true;
}

} // namespace wm::seed_ac
