// gpu/seed_ac/seed_ac_variants.h - the study's kernel family as data: which
// automaton order, text layout and counting each variant uses. Host-only, no
// CUDA headers, so CPU tests and the CPU walk name variants too.
#pragma once

#include <array>
#include <string>

namespace wm::seed_ac {

enum class CountMode {
    kGlobalAll,  // atomicAdd on a global counter per visited state (Baseline)
    kSharedAll,  // block-local counters in shared memory, flushed once per block
    kSharedLeaf, // as kSharedAll, but only leaf states (equal-length patterns)
};

enum class Variant {
    kBaseline,       // insertion-order states, byte text, global atomics
    kReordered,      // Baseline on breadth-first-numbered states
    kCoalesced,      // Baseline with the block's text staged in shared memory
    kSharedMem,      // shared-memory counters (Opt 1), insertion order
    kSharedMemReord, // shared-memory counters on breadth-first states
    kCompactMem,     // 1/2/4-bit packed text (Opt 3), global atomics
    kEqLength,       // leaf-only shared counters, breadth-first states (Opt 4)
    kCombined,       // ours: staged packed text + leaf-only shared counters (their conclusion)
};

struct VariantTraits {
    const char *name;
    bool breadth_first; // automaton numbered breadth-first
    bool packed;        // text packed to bits_for_alphabet(C); else one byte per character
    bool staged;        // text staged in shared memory with coalesced 16-byte loads
    CountMode mode;
};

inline VariantTraits traits(Variant v) {
    switch (v) {
    case Variant::kBaseline: return {"Baseline", false, false, false, CountMode::kGlobalAll};
    case Variant::kReordered: return {"Reordered", true, false, false, CountMode::kGlobalAll};
    case Variant::kCoalesced: return {"Coalesced", false, false, true, CountMode::kGlobalAll};
    case Variant::kSharedMem: return {"SharedMem", false, false, false, CountMode::kSharedAll};
    case Variant::kSharedMemReord: return {"SharedMem-Reord", true, false, false, CountMode::kSharedAll};
    case Variant::kCompactMem: return {"CompactMem", false, true, false, CountMode::kGlobalAll};
    case Variant::kEqLength: return {"EqLength", true, false, false, CountMode::kSharedLeaf};
    case Variant::kCombined: return {"Combined", true, true, true, CountMode::kSharedLeaf};
    }
    return {"?", false, false, false, CountMode::kGlobalAll};
}

inline constexpr std::array<Variant, 8> kAllVariants = {
    Variant::kBaseline,       Variant::kReordered,  Variant::kCoalesced, Variant::kSharedMem,
    Variant::kSharedMemReord, Variant::kCompactMem, Variant::kEqLength,  Variant::kCombined};

// Whether this build can run the kernels on `device`; `why` says why not
// ("built without CUDA support", "no CUDA device: ...").
bool gpu_usable(int device, std::string *why);

} // namespace wm::seed_ac
