// plugin/src/capture/uninit_vector.h - a std::vector whose resize() leaves new
// elements of trivial types uninitialized. A window's per-packet arrays are
// resized to the packet count and then every element is written by the
// threads that pack the window: value-initializing them first was a serial
// memset of ~100 bytes per packet (about a fifth of the 15-thread read time
// of a 1 GB capture, most of it the 96-byte wm_packet_t).
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace wm::capture {

template <typename T, typename A = std::allocator<T>> class DefaultInitAllocator : public A {
    using Traits = std::allocator_traits<A>;

  public:
    template <typename U> struct rebind {
        using other = DefaultInitAllocator<U, typename Traits::template rebind_alloc<U>>;
    };
    using A::A;

    template <typename U> void construct(U *p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void *>(p)) U; // default-init: no zeroing for trivial U
    }
    template <typename U, typename... Args> void construct(U *p, Args &&...args) {
        Traits::construct(static_cast<A &>(*this), p, std::forward<Args>(args)...);
    }
};

template <typename T> using UninitVector = std::vector<T, DefaultInitAllocator<T>>;

} // namespace wm::capture
