// Lanes: L consecutive values of one row, so that a CUDA thread reads each contiguous leaf
// with 16-byte vector loads (ld.global.v4) and writes with vector stores, which is how the
// device's memory system reaches its bandwidth. The evaluators' protocol (evaluators.hpp)
// gains one call:
//   get_lanes<L>(i)   the values at innermost indices i .. i+L-1 of the row. The caller
//                     promises get<true>'s Unit, that i is a multiple of L, that i+L does not
//                     pass the row's end, and that lanes_fit<L>(ev) held.
// On the host the same calls read element by element (the host's loops never use them; the
// tests do, to check the lanes against get<true>).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../core/config.hpp"

namespace nax::detail {

template <class T, int L>
struct lanes {
  T v[L];
};

// Whether L values of T are read with vector loads (1, 2, 4, 8 bytes or a multiple of 16),
// and the alignment of the first one that this needs.
template <class T, int L>
inline constexpr bool lanes_load_as_vectors =
    std::is_trivially_copyable_v<T> && (L * sizeof(T) % 16 == 0 || L * sizeof(T) == 8 || L * sizeof(T) == 4 ||
                                        L * sizeof(T) == 2 || L * sizeof(T) == 1);
template <class T, int L>
inline constexpr std::size_t lanes_alignment = L * sizeof(T) < 16 ? L * sizeof(T) : 16;

// The lane count of a kernel writing T: one 16-byte store, or 1 (no lanes) for a T whose
// size does not divide 16.
template <class T>
inline constexpr int lanes_for = (std::is_trivially_copyable_v<T> && sizeof(T) <= 8 && 16 % sizeof(T) == 0)
                                     ? static_cast<int>(16 / sizeof(T))
                                     : 1;

template <int L, class T>
NAX_HOST_DEVICE lanes<T, L> broadcast_lanes(const T& value) {
  lanes<T, L> out;
  for (int j = 0; j < L; ++j) out.v[j] = value;
  return out;
}

// One vector access of Bytes bytes at p (aligned to them) on the device; memcpy to and from
// the registers is how a bit copy is written without breaking aliasing rules.
template <std::size_t Bytes>
struct vector_word;
#if defined(__CUDA_ARCH__)
template <>
struct vector_word<16> {
  using type = uint4;
};
template <>
struct vector_word<8> {
  using type = uint2;
};
template <>
struct vector_word<4> {
  using type = unsigned int;
};
template <>
struct vector_word<2> {
  using type = unsigned short;
};
template <>
struct vector_word<1> {
  using type = unsigned char;
};
#endif

template <int L, class T>
NAX_HOST_DEVICE lanes<T, L> load_lanes(const T* p) {
  lanes<T, L> out;
#if defined(__CUDA_ARCH__)
  if constexpr (lanes_load_as_vectors<T, L>) {
    constexpr std::size_t bytes = L * sizeof(T), word = lanes_alignment<T, L>;
    using W = typename vector_word<word>::type;
    for (std::size_t c = 0; c < bytes / word; ++c) {
      const W raw = reinterpret_cast<const W*>(p)[c];
      memcpy(reinterpret_cast<char*>(out.v) + c * word, &raw, word);
    }
  } else
#endif
  {
    for (int j = 0; j < L; ++j) out.v[j] = p[j];
  }
  return out;
}

template <int L, class T>
NAX_HOST_DEVICE void store_lanes(T* p, const lanes<T, L>& in) {
#if defined(__CUDA_ARCH__)
  if constexpr (lanes_load_as_vectors<T, L>) {
    constexpr std::size_t bytes = L * sizeof(T), word = lanes_alignment<T, L>;
    using W = typename vector_word<word>::type;
    for (std::size_t c = 0; c < bytes / word; ++c) {
      W raw;
      memcpy(&raw, reinterpret_cast<const char*>(in.v) + c * word, word);
      reinterpret_cast<W*>(p)[c] = raw;
    }
  } else
#endif
  {
    for (int j = 0; j < L; ++j) p[j] = in.v[j];
  }
}

// Lanes of an evaluator that has no vector read of its own (generated values, indices): L
// calls of get<true>.
template <int L, class Ev>
NAX_HOST_DEVICE auto lanes_by_element(const Ev& ev, index_t i) {
  lanes<typename Ev::value_type, L> out;
  for (int j = 0; j < L; ++j) out.v[j] = ev.template get<true>(i + j);
  return out;
}

// f applied lane by lane.
template <class R, int L, class F, class... Ts>
NAX_HOST_DEVICE lanes<R, L> map_lanes(const F& f, const lanes<Ts, L>&... in) {
  lanes<R, L> out;
  for (int j = 0; j < L; ++j) out.v[j] = f(in.v[j]...);
  return out;
}

// Whether data + base, and every step of the first `outer` strides from it, is aligned to A
// bytes (A a power of two; unsigned arithmetic, so negative strides wrap correctly).
template <std::size_t A, class T, std::size_t N>
bool lanes_aligned(const T* data, index_t base, const std::array<index_t, N>& stride, std::size_t outer) {
  auto aligned = [](std::uintptr_t bytes) { return bytes % A == 0; };
  bool fit = aligned(reinterpret_cast<std::uintptr_t>(data) + static_cast<std::uintptr_t>(base) * sizeof(T));
  for (std::size_t k = 0; k < outer; ++k) fit = fit && aligned(static_cast<std::uintptr_t>(stride[k]) * sizeof(T));
  return fit;
}

// Whether every leaf of ev that moves along the innermost axis starts each row aligned for
// vector loads of L lanes (its data plus base, and each outer stride, a multiple of the
// alignment). Leaves that do not move along it read one value per row and need nothing.
template <int L, class Ev>
bool lanes_fit(const Ev& ev) {
  bool fit = true;
  ev.visit_leaves([&](const auto& leaf) {
    using Leaf = std::remove_cvref_t<decltype(leaf)>;
    using T = typename Leaf::value_type;
    if constexpr (Leaf::rank > 0 && Leaf::depends_inner && lanes_load_as_vectors<T, L>)
      fit = fit && lanes_aligned<lanes_alignment<T, L>>(leaf.data, leaf.base, leaf.stride, Leaf::rank - 1);
  });
  return fit;
}

}  // namespace nax::detail
