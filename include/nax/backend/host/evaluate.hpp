// eval(e): materialise an expression into an array with the expression's axes, and
// item(e) for rank-0 expressions.
#pragma once
#include "assign.hpp"

namespace nax {

namespace detail {
// The owning array eval makes for an expression: a host Array unless a backend claims the
// expression (the CUDA backend: one that reads device arrays gives a nax::cuda::Array), so
// eval, and the maps that evaluate their results, serve every memory space.
template <class E, class = void>
struct eval_array {
  using type = array_for_t<typename E::value_type, typename E::axes_type>;
};
}  // namespace detail

template <class X>
  requires array_like<X>
auto eval(const X& x) {
  using E = detail::expr_t<const X&>;
  return typename detail::eval_array<E>::type(detail::as_expr(x));
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
