// axis_index<A>(n): the index along axis A (0, 1, ..., n-1), as an expression. int32, as JAX.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "node.hpp"

namespace nax {
namespace detail {
template <class A, class T>
struct AxisIndex : node_interface<AxisIndex<A, T>> {
  using axes_type = axes<A>;
  using value_type = T;
  static constexpr std::size_t rank = 1;
  std::array<index_t, 1> extents_{};
  const std::array<index_t, 1>& extents() const { return extents_; }
};
}  // namespace detail

template <class A, class T = std::int32_t>
auto axis_index(index_t extent) {
  static_assert(axis<A>, "nax: axis_index needs an axis name declared with NAX_AXIS");
  // the largest index, extent - 1, must be exact in T: at most max() for an integer, 2^digits
  // for floating point (whose max() does not convert to an integer)
  constexpr std::uint64_t largest = std::is_floating_point_v<T>
                                        ? (std::numeric_limits<T>::digits >= 64 ? ~std::uint64_t{0}
                                                                                : std::uint64_t{1} << std::numeric_limits<T>::digits)
                                        : static_cast<std::uint64_t>(std::numeric_limits<T>::max());
  if (extent < 0 || (extent > 0 && static_cast<std::uint64_t>(extent) - 1 > largest))
    throw shape_error("nax: axis_index of axis '" + std::string(axis_name<A>()) + "' with extent " +
                      std::to_string(extent) + " does not fit its element type");
  return detail::AxisIndex<A, T>{{}, {extent}};
}

}  // namespace nax
