// Quantiles along a named axis through sort, as jnp.quantile and jnp.median (their default
// methods): a line with a NaN gives NaN; integers are computed in floating point (floating_t,
// as JAX). The result is lazy: a sort<A> of x (materialised once per evaluation) read at two
// positions, so its gradient reaches x through the sort's.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "math.hpp"
#include "reduce_compositions.hpp"
#include "sort.hpp"

namespace nax {

// jnp.quantile's methods for a position between two elements.
enum class quantile_method : std::uint8_t { linear, lower, higher, midpoint, nearest };

namespace detail {

template <class A>
void require_nonempty_quantile(index_t n) {
  if (n == 0)
    throw shape_error("nax: quantile or median along axis '" + std::string(axis_name<A>()) +
                      "' of extent 0: an empty line has no quantile");
}

// The quantiles q (a number, or an expression whose axes are added to the result) of x along A.
template <class A, class T, class X, class Q>
auto quantile_of(X x, Q q, quantile_method method) {
  const index_t n = extent_of<A>(x);
  require_nonempty_quantile<A>(n);
  auto masked = where(any<A>(isnan(x)), std::numeric_limits<T>::quiet_NaN(), x);
  auto sorted = sort<A>(std::move(masked));
  // as _quantile: positions in T, the weights before the indices are clamped into the line
  auto position = q * static_cast<T>(n - 1);
  auto low = floor(position);
  auto high = ceil(position);
  auto high_weight = position - low;
  auto low_weight = T(1) - high_weight;
  auto index = [&](auto p) { return cast<index_t>(clip(p, T(0), static_cast<T>(n - 1))); };
  auto low_value = take<A>(sorted, index(low));
  auto high_value = take<A>(sorted, index(high));
  // lower and higher read one position; nearest picks between the two values (method is a
  // run-time choice, so every branch is in the expression; where keeps the chosen one)
  auto one = take<A>(sorted, where(method == quantile_method::lower, index(low), index(high)));
  auto picked = where(method == quantile_method::nearest, where(high_weight <= T(0.5), low_value, high_value), one);
  return where(method == quantile_method::linear, low_value * low_weight + high_value * high_weight,
               where(method == quantile_method::midpoint, (low_value + high_value) * T(0.5), picked));
}

}  // namespace detail

// The q-th quantile (q in [0, 1]) of x along A, which the result lacks.
template <class A, class X>
  requires array_like<X>
auto quantile(X&& x, double q, quantile_method method = quantile_method::linear) {
  using E = detail::expr_t<X>;
  using T = floating_t<typename E::value_type>;
  static_assert(detail::require_axis_present<A, detail::visible_t<E>>::value);
  if (!(q >= 0 && q <= 1))
    throw argument_error("nax: quantile<" + std::string(axis_name<A>()) + ">(x, " + std::to_string(q) +
                         "): q must be in [0, 1]");
  return detail::quantile_of<A, T>(cast<T>(std::forward<X>(x)), detail::Scalar<T>{{}, static_cast<T>(q)}, method);
}

// Several quantiles at once: q's axes take A's place in the result (q's values should be in
// [0, 1]; outside, the positions are clamped into the line, as in JAX).
template <class A, class X, class Q>
  requires array_like<X> && array_like<Q>
auto quantile(X&& x, Q&& q, quantile_method method = quantile_method::linear) {
  using E = detail::expr_t<X>;
  using T = floating_t<typename E::value_type>;
  static_assert(detail::require_axis_present<A, detail::visible_t<E>>::value);
  static_assert(detail::require_axis_absent<A, typename detail::expr_t<Q>::axes_type>::value);
  return detail::quantile_of<A, T>(cast<T>(std::forward<X>(x)), cast<T>(std::forward<Q>(q)), method);
}

// The median along A: jnp.median, the midpoint of the two middle elements.
template <class A, class X>
  requires array_like<X>
auto median(X&& x) {
  return quantile<A>(std::forward<X>(x), 0.5, quantile_method::midpoint);
}

}  // namespace nax
