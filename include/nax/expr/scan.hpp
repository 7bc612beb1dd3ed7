// Scans along a named axis: cumsum, cumprod, cummax and cummin (jnp's and lax's names),
// inclusive, with lax's `reverse` (accumulating from the last element back). The result has
// x's axes; sums and products of bool count in int32, as JAX. A materialised node: the backend
// writes the operand into a temporary of the node's axes and scans it in place along A
// (backend/host/scan.hpp's scan_into_temporary, shared by the backends; each has run_scan).
#pragma once
#include <cstdint>

#include "node.hpp"
#include "reduce_ops.hpp"

namespace nax {
namespace detail {

template <class Op, class C, class A>
struct Scan : node_interface<Scan<Op, C, A>> {
  using child_type = C;
  using op = Op;
  using axis = A;
  using axes_type = typename C::axes_type;
  using value_type = typename Op::template result<typename C::value_type>;
  using hidden_type = hidden_t<C>;
  using unbound_type = unbound_t<C>;
  static constexpr std::size_t rank = axes_type::size;

  C child;
  bool reverse = false;
  std::uint64_t id = next_node_id();

  decltype(auto) extents() const { return child.extents(); }
};

template <class E>
inline constexpr bool is_scan_v = false;
template <class Op, class C, class A>
inline constexpr bool is_scan_v<Scan<Op, C, A>> = true;

template <class Op, class A, class X>
auto make_scan(X&& x, bool reverse) {
  using E = expr_t<X>;
  static_assert(require_axis_present<A, visible_t<E>>::value);
  return Scan<Op, E, A>{{}, as_expr(std::forward<X>(x)), reverse};
}

}  // namespace detail

// Running sum along A: element i is x[0] + ... + x[i] (reverse: x[i] + ... + x[n-1]).
template <class A, class X>
  requires array_like<X>
auto cumsum(X&& x, bool reverse = false) {
  return detail::make_scan<detail::sum_op, A>(std::forward<X>(x), reverse);
}
// Running product along A.
template <class A, class X>
  requires array_like<X>
auto cumprod(X&& x, bool reverse = false) {
  return detail::make_scan<detail::prod_op, A>(std::forward<X>(x), reverse);
}
// Running maximum along A (a NaN propagates to every later element, as lax.cummax).
template <class A, class X>
  requires array_like<X>
auto cummax(X&& x, bool reverse = false) {
  return detail::make_scan<detail::max_op, A>(std::forward<X>(x), reverse);
}
// Running minimum along A.
template <class A, class X>
  requires array_like<X>
auto cummin(X&& x, bool reverse = false) {
  return detail::make_scan<detail::min_op, A>(std::forward<X>(x), reverse);
}

}  // namespace nax
