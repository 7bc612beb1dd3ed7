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

namespace detail {
// An evaluated mapped value (DESIGN 5b). Inside vmap/xmap, e varies over mapped axes, or holds
// a collective's result that the enclosing map has not resolved yet: its storage holds every
// axis of e (a mapped axis at the extent this device holds), and the value goes on with the
// mapped axes hidden and the unbound ones marked, as e was. Inside grad the evaluation is
// recorded like any other (the array's constructor). The storage is shared by the copies of
// the returned node, and freed with the last of them.
template <class E>
auto evaluate_mapped(const E& e) {
  using Axes = typename E::axes_type;
  auto whole = positional_relayout<identity_kind, Axes, E, axes<>, axes<>>(e);  // every axis visible
  auto leaf = as_expr(typename eval_array<decltype(whole)>::type(whole));       // (owns the array)
  return positional_relayout<identity_kind, Axes, decltype(leaf), hidden_t<E>, unbound_t<E>>(std::move(leaf));
}
}  // namespace detail

// eval(e): an Array with e's axes; inside vmap/xmap, of a value that varies over mapped axes,
// an evaluated mapped value (detail::evaluate_mapped), which f goes on using as an expression.
template <class X>
  requires array_like<X>
auto eval(const X& x) {
  using E = detail::expr_t<const X&>;
  if constexpr (detail::hidden_t<E>::size == 0 && detail::unbound_t<E>::size == 0)
    return typename detail::eval_array<E>::type(detail::as_expr(x));
  else
    return detail::evaluate_mapped(detail::as_expr(x));
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
