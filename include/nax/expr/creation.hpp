// Arrays computed from their position, as expressions (nothing is stored until they are
// assigned or evaluated, so they fuse into their consumer on either backend): linspace, eye,
// tri, the masks tril and triu, and full_like, zeros_like and ones_like. Names, defaults and
// formulas are jnp's, with axes named instead of numbered; the default element type is float,
// jnp's (float32) default.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>

#include "axis_index.hpp"
#include "math.hpp"
#include "relayout.hpp"

namespace nax {

namespace detail {
template <class A, class B>
struct require_two_axes {
  static_assert(!std::is_same_v<A, B>, "nax: eye, tri, tril and triu need two different axes (rows A, columns B)");
  static constexpr bool value = true;
};
}  // namespace detail

// num values from start to stop along a new axis A (jnp.linspace): stop included unless
// endpoint is false. Computed as jnp computes them, start * (1 - t) + stop * t with
// t = i / (num - 1) in T's floating type (double for an integer T, whose values are then
// floored), and the last value exactly stop; num == 1 gives start.
template <class A, class T = float>
auto linspace(double start, double stop, index_t num, bool endpoint = true) {
  static_assert(axis<A>, "nax: linspace needs an axis name declared with NAX_AXIS");
  static_assert(element<T> && !std::is_same_v<T, bool>, "nax: linspace needs a numeric element type");
  if (num < 0)
    throw shape_error("nax: linspace along '" + std::string(axis_name<A>()) + "' of " + std::to_string(num) +
                      " values: the count must not be negative");
  using C = std::conditional_t<std::is_floating_point_v<T>, T, double>;
  const index_t steps = endpoint ? num - 1 : num;
  const index_t last = endpoint && num > 1 ? num - 1 : -1;  // the position that is exactly stop
  auto i = axis_index<A, index_t>(num);
  auto t = cast<C>(i) / C(steps > 0 ? steps : 1);
  auto value = where(i == last, C(stop), C(start) * (C(1) - t) + C(stop) * t);
  if constexpr (std::is_floating_point_v<T>) return value;
  else return cast<T>(floor(value));
}

// 1 where the column index minus the row index is k (the k-th diagonal), else 0: an n x m
// matrix over rows A and columns B (jnp.eye(n, m, k)).
template <class A, class B, class T = float>
auto eye(index_t n, index_t m, index_t k = 0) {
  static_assert(detail::require_two_axes<A, B>::value);
  return cast<T>(axis_index<A, index_t>(n) + k == axis_index<B, index_t>(m));  // axes (A, B)
}
template <class A, class B, class T = float>
auto eye(index_t n) {
  return eye<A, B, T>(n, n);
}

// 1 on and below the k-th diagonal (column <= row + k), else 0 (jnp.tri(n, m, k)).
template <class A, class B, class T = float>
auto tri(index_t n, index_t m, index_t k = 0) {
  static_assert(detail::require_two_axes<A, B>::value);
  return cast<T>(axis_index<A, index_t>(n) + k >= axis_index<B, index_t>(m));
}

namespace detail {
// x where keep(column - row - k), else 0, for rows A and columns B of x.
template <class A, class B, class X, class Keep>
auto triangle(X&& x, index_t k, Keep keep) {
  using E = expr_t<X>;
  static_assert(require_two_axes<A, B>::value);
  static_assert(require_axis_present<A, visible_t<E>>::value);
  static_assert(require_axis_present<B, visible_t<E>>::value);
  auto e = as_expr(std::forward<X>(x));
  auto offset = axis_index<B, index_t>(extent_of<B>(e)) - axis_index<A, index_t>(extent_of<A>(e));
  using T = typename E::value_type;
  // in x's axis order (where() would put the mask's first): a relabelling, free at evaluation
  return [&]<class... Vs>(axes<Vs...>) {
    return transpose<Vs...>(where(keep(std::move(offset), k), std::move(e), T(0)));
  }(visible_t<E>{});
}
}  // namespace detail

// x on and below the k-th diagonal of rows A and columns B, 0 above (jnp.tril(x, k)).
template <class A, class B, class X>
  requires array_like<X>
auto tril(X&& x, index_t k = 0) {
  return detail::triangle<A, B>(std::forward<X>(x), k, [](auto d, index_t kk) { return std::move(d) <= kk; });
}
// x on and above the k-th diagonal of rows A and columns B, 0 below (jnp.triu(x, k)).
template <class A, class B, class X>
  requires array_like<X>
auto triu(X&& x, index_t k = 0) {
  return detail::triangle<A, B>(std::forward<X>(x), k, [](auto d, index_t kk) { return std::move(d) >= kk; });
}

// An expression of value with x's axes, extents and element type (jnp.full_like). x is not
// evaluated. Inside vmap the result does not vary over the mapped axes, as in JAX.
template <class X, class V>
  requires array_like<X> && element<V>
auto full_like(const X& x, V value) {
  using E = detail::expr_t<X>;
  using T = typename E::value_type;
  const auto e = detail::as_expr(x);  // a view of an array, the expression itself otherwise
  return [&]<class... Vs>(axes<Vs...>) {
    return broadcast_to<Vs...>(detail::Scalar<T>{{}, static_cast<T>(value)},
                               std::array<index_t, sizeof...(Vs)>{detail::extent_of<Vs>(e)...});
  }(detail::visible_t<E>{});
}
template <class X>
  requires array_like<X>
auto zeros_like(const X& x) {
  return full_like(x, 0);
}
template <class X>
  requires array_like<X>
auto ones_like(const X& x) {
  return full_like(x, 1);
}

}  // namespace nax
