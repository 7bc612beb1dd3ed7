// eval(e): materialise an expression into an Array with the expression's axes, and
// item(e) for rank-0 expressions.
#pragma once
#include "assign.hpp"

namespace nax {

template <class X>
  requires array_like<X>
auto eval(const X& x) {
  using E = detail::expr_t<const X&>;
  return detail::array_for_t<typename E::value_type, typename E::axes_type>(detail::as_expr(x));
}

template <class X>
  requires array_like<X>
auto item(const X& x) {
  using E = detail::expr_t<const X&>;
  static_assert(detail::require_rank_zero<typename E::axes_type>::value);
  return eval(x).item();
}

namespace detail {
template <class E>
auto evaluate_item(const E& e) {
  return nax::item(e);
}
}  // namespace detail

}  // namespace nax
