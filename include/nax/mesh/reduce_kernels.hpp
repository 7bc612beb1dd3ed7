// Elementwise combination of two buffers under a reduce_op, for the host communicator (and the
// MPI communicator's NaN-propagating max/min). One function pointer per (dtype, op), chosen once
// per collective call; the loops are plain and unit-stride so the compiler vectorises them.
#pragma once
#include <cstring>
#include <type_traits>

#include "../core/config.hpp"
#include "dtype.hpp"

namespace nax::detail::comm_kernels {

// Integer sums and products wrap (two's complement), as XLA's do; bool: sum/max = or, prod/min = and.
// Floating max/min propagate NaN, as nax::maximum/minimum and XLA do.
template <class T>
inline T combine_sum(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class T>
inline T combine_prod(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else if constexpr (std::is_integral_v<T>) {
    // Promote narrow types to unsigned int so that the product itself cannot overflow int.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}
template <class T>
inline T combine_max(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return (a > b || a != a) ? a : b;
  else
    return a > b ? a : b;
}
template <class T>
inline T combine_min(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return (a < b || a != a) ? a : b;
  else
    return a < b ? a : b;
}

// accumulator[i] = op(accumulator[i], source[i]) for i < count. Pointers must not overlap.
using combine_fn = void (*)(void* accumulator, const void* source, index_t count);

template <class T, reduce_op Op>
void combine_loop(void* accumulator, const void* source, index_t count) {
  T* __restrict acc = static_cast<T*>(accumulator);
  const T* __restrict src = static_cast<const T*>(source);
  for (index_t i = 0; i < count; ++i) {
    if constexpr (Op == reduce_op::sum) acc[i] = combine_sum(acc[i], src[i]);
    else if constexpr (Op == reduce_op::prod) acc[i] = combine_prod(acc[i], src[i]);
    else if constexpr (Op == reduce_op::max) acc[i] = combine_max(acc[i], src[i]);
    else acc[i] = combine_min(acc[i], src[i]);
  }
}

template <class T>
combine_fn combine_for_type(reduce_op op) {
  switch (op) {
    case reduce_op::sum: return &combine_loop<T, reduce_op::sum>;
    case reduce_op::prod: return &combine_loop<T, reduce_op::prod>;
    case reduce_op::max: return &combine_loop<T, reduce_op::max>;
    case reduce_op::min: return &combine_loop<T, reduce_op::min>;
  }
  return nullptr;
}

// The combine function of (type, op); nullptr for an invalid enumerator value.
inline combine_fn combine_for(dtype type, reduce_op op) {
  if (!is_valid(type) || !is_valid(op)) return nullptr;
  return visit_dtype(type, [op](auto zero) { return combine_for_type<decltype(zero)>(op); });
}

}  // namespace nax::detail::comm_kernels
