// gpu/approx/kdiff_kinds.h - maps a group's (metric, words, kmax) to the
// template instance that runs it, for the CPU walk and the kernel dispatch
// alike, so both support exactly the same set.
#pragma once

#include "gpu/approx/kdiff.h"
#include "gpu/approx/kdiff_lane.h"

#include <stdexcept>
#include <string>

namespace wm::approx {

template <uint32_t W, uint32_t K> struct KindTag {
    static constexpr uint32_t kWords = W;
    static constexpr uint32_t kK = K; // 0: Levenshtein (Myers); else Hamming levels - 1
    using Lane = std::conditional_t<K == 0, MyersLane<W>, HammingLane<W, (K ? K : 1)>>;
};

// Calls f(KindTag<W, K>{}) for the group's kind.
template <typename F> void with_kind(const GroupDesc &g, F &&f) {
    if (g.metric == uint32_t(Metric::Levenshtein)) {
        switch (g.words) {
        case 1: return f(KindTag<1, 0>{});
        case 2: return f(KindTag<2, 0>{});
        case 4: return f(KindTag<4, 0>{});
        case 8: return f(KindTag<8, 0>{});
        case 16: return f(KindTag<16, 0>{});
        }
    } else {
        if (g.words == 1 && g.kmax == 3) return f(KindTag<1, 3>{});
        if (g.words == 1 && g.kmax == 7) return f(KindTag<1, 7>{});
        if (g.words == 2 && g.kmax == 3) return f(KindTag<2, 3>{});
        if (g.words == 2 && g.kmax == 7) return f(KindTag<2, 7>{});
        if (g.words == 4 && g.kmax == 3) return f(KindTag<4, 3>{});
    }
    throw std::logic_error("kdiff: no kernel for group kind metric=" + std::to_string(g.metric) +
                           " words=" + std::to_string(g.words) + " kmax=" + std::to_string(g.kmax));
}

} // namespace wm::approx
