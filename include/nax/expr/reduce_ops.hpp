// The combining operations of reductions: identity and combine, for host loops and kernels.
// The concept reduction_op states what one provides; a Reduce node over anything else fails
// with that name.
#pragma once
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../core/config.hpp"

namespace nax::detail {

// Sums and products of bool count in int32, as JAX.
template <class T>
using accumulate_t = std::conditional_t<std::is_same_v<T, bool>, std::int32_t, T>;

// A reduction: result<T> (the accumulated type, T for most), identity<T>() (the value an
// empty reduction gives) and combine<T>(a, b), associative, so that loops and kernels may
// reduce in any grouping. Checked at float, the type every reduction supports.
template <class Op>
concept reduction_op = requires(float a, float b) {
  typename Op::template result<float>;
  { Op::template identity<float>() } -> std::same_as<float>;
  { Op::template combine<float>(a, b) } -> std::same_as<float>;
};

struct sum_op {
  template <class T>
  using result = accumulate_t<T>;
  template <class T>
  NAX_HOST_DEVICE static constexpr T identity() { return T(0); }
  template <class T>
  NAX_HOST_DEVICE static constexpr T combine(T a, T b) { return static_cast<T>(a + b); }
};
struct prod_op {
  template <class T>
  using result = accumulate_t<T>;
  template <class T>
  NAX_HOST_DEVICE static constexpr T identity() { return T(1); }
  template <class T>
  NAX_HOST_DEVICE static constexpr T combine(T a, T b) { return static_cast<T>(a * b); }
};
// max and min propagate NaN, as jnp.max and jnp.min.
struct max_op {
  template <class T>
  using result = T;
  template <class T>
  NAX_HOST_DEVICE static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
  template <class T>
  NAX_HOST_DEVICE static constexpr T combine(T a, T b) { return (a != a || a > b) ? a : b; }
};
struct min_op {
  template <class T>
  using result = T;
  template <class T>
  NAX_HOST_DEVICE static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
  template <class T>
  NAX_HOST_DEVICE static constexpr T combine(T a, T b) { return (a != a || a < b) ? a : b; }
};

// argmax / argmin: does candidate b replace the best a so far? First occurrence wins; NaN
// counts as the extreme, as jnp.argmax.
struct arg_max_op {
  template <class T>
  NAX_HOST_DEVICE static constexpr bool better(T b, T a) { return (b != b && a == a) || b > a; }
};
struct arg_min_op {
  template <class T>
  NAX_HOST_DEVICE static constexpr bool better(T b, T a) { return (b != b && a == a) || b < a; }
};

}  // namespace nax::detail
