// Reductions over named axes: the Reduce node (sum, prod, max, min), ArgReduce (argmax,
// argmin) and their builders, plus mean and logsumexp, which are compositions.
// With no axis named, a reduction removes every visible axis.
#pragma once
#include <cmath>
#include <limits>

#include "math.hpp"
#include "reduce_ops.hpp"

namespace nax {
namespace detail {

template <class Op, class C, class... Removed>
struct Reduce : node_interface<Reduce<Op, C, Removed...>> {
  static_assert(reduction_op<Op>, "nax: Reduce over Op, which is not a reduction_op (expr/reduce_ops.hpp: result, "
                                  "identity and combine)");
  using child_type = C;
  using removed_axes = axes<Removed...>;
  using axes_type = difference_t<typename C::axes_type, removed_axes>;
  using value_type = typename Op::template result<typename C::value_type>;
  using op_type = Op;
  using hidden_type = difference_t<hidden_t<C>, removed_axes>;
  using unbound_type = unbound_t<C>;
  static constexpr std::size_t rank = axes_type::size;

  C child;
  std::array<index_t, rank> extents_{};
  std::uint64_t id = next_node_id();

  explicit Reduce(C c) : child(std::move(c)), extents_(extents_by_name<axes_type>(child)) {}
  const std::array<index_t, rank>& extents() const { return extents_; }
  // Number of elements combined into each output element.
  index_t reduced_count() const { return (index_t{1} * ... * extent_of<Removed>(child)); }
};

template <class E>
inline constexpr bool is_reduce_v = false;
template <class Op, class C, class... Removed>
inline constexpr bool is_reduce_v<Reduce<Op, C, Removed...>> = true;

// Index of the largest (Op = arg_max_op) or smallest element along Axis; int32, as JAX.
template <class Op, class C, class Axis>
struct ArgReduce : node_interface<ArgReduce<Op, C, Axis>> {
  using child_type = C;
  using reduced_axis = Axis;
  using axes_type = difference_t<typename C::axes_type, axes<Axis>>;
  using value_type = std::int32_t;
  using op_type = Op;
  using hidden_type = hidden_t<C>;
  using unbound_type = unbound_t<C>;
  static constexpr std::size_t rank = axes_type::size;

  C child;
  std::array<index_t, rank> extents_{};
  std::uint64_t id = next_node_id();

  explicit ArgReduce(C c) : child(std::move(c)), extents_(extents_by_name<axes_type>(child)) {}
  const std::array<index_t, rank>& extents() const { return extents_; }
};

// Reductions name visible axes; with no names they remove every visible axis.
template <class L>
struct reduce_all;
template <class... As>
struct reduce_all<axes<As...>> {
  template <class Op, class E>
  static auto make(E e) {
    return Reduce<Op, E, As...>(std::move(e));
  }
};

template <class Op, class... As, class X>
auto make_reduce(X&& x) {
  using E = expr_t<X>;
  static_assert((require_axis_present<As, visible_t<E>>::value && ... && true));
  static_assert(require_unique_axes<axes<As...>>::value);
  if constexpr (sizeof...(As) == 0)
    return reduce_all<visible_t<E>>::template make<Op>(as_expr(std::forward<X>(x)));
  else
    return Reduce<Op, E, As...>(as_expr(std::forward<X>(x)));
}

// max and min over an empty axis have no identity; JAX raises, and so do we.
template <class... As, class E>
void require_nonempty_reduction(const E& e, const char* what) {
  auto check = [&](std::string_view name, index_t extent) {
    if (extent == 0)
      throw shape_error(std::string("nax: ") + what + " over axis '" + std::string(name) +
                        "' of extent 0: the reduction has no identity");
  };
  if constexpr (sizeof...(As) == 0) {
    [&]<class... Vs>(axes<Vs...>) { (check(axis_name<Vs>(), extent_of<Vs>(e)), ...); }(visible_t<E>{});
  } else {
    (check(axis_name<As>(), extent_of<As>(e)), ...);
  }
}

}  // namespace detail

template <class... As, class X>
  requires array_like<X>
auto sum(X&& x) {
  return detail::make_reduce<detail::sum_op, As...>(std::forward<X>(x));
}
template <class... As, class X>
  requires array_like<X>
auto prod(X&& x) {
  return detail::make_reduce<detail::prod_op, As...>(std::forward<X>(x));
}
template <class... As, class X>
  requires array_like<X>
auto max(X&& x) {
  auto node = detail::make_reduce<detail::max_op, As...>(std::forward<X>(x));
  detail::require_nonempty_reduction<As...>(node.child, "max");
  return node;
}
template <class... As, class X>
  requires array_like<X>
auto min(X&& x) {
  auto node = detail::make_reduce<detail::min_op, As...>(std::forward<X>(x));
  detail::require_nonempty_reduction<As...>(node.child, "min");
  return node;
}

// Mean in floating point (floating_t, as JAX); an empty reduction gives NaN, as numpy.
template <class... As, class X>
  requires array_like<X>
auto mean(X&& x) {
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  auto total = sum<As...>(cast<T>(std::forward<X>(x)));
  index_t count = total.reduced_count();
  T scale = count ? T(1) / static_cast<T>(count) : std::numeric_limits<T>::quiet_NaN();
  return total * scale;
}

// Variance over As (all axes when none are named): sum((x - mean)^2) / (count - ddof), as
// jnp.var; count - ddof <= 0 gives NaN or an infinity, as in JAX.
template <class... As, class X>
  requires array_like<X>
auto var(X&& x, int ddof = 0) {
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  auto e = cast<T>(std::forward<X>(x));
  auto total = sum<As...>(square(e - mean<As...>(e)));
  const index_t count = total.reduced_count();
  return total / static_cast<T>(count - ddof);
}
// Standard deviation: sqrt(var), as jnp.std.
template <class... As, class X>
  requires array_like<X>
auto std(X&& x, int ddof = 0) {
  return sqrt(var<As...>(std::forward<X>(x), ddof));
}

// log(sum(exp(x))) computed stably as m + log(sum(exp(x - m))) with m the max (0 where the
// max is not finite, as jax.nn.logsumexp); an empty reduction gives -inf. m is held constant
// under grad, as JAX holds it (stop_gradient): the value does not depend on m, so neither does
// the derivative, and the backward pass then skips max's rule (a pass to count the ties and
// one to route the cotangent to them).
template <class... As, class X>
  requires array_like<X>
auto logsumexp(X&& x) {
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  auto e = cast<T>(std::forward<X>(x));
  auto m = detail::make_reduce<detail::max_op, As...>(e);
  auto shift = stop_gradient(where(detail::make_map<detail::fn::is_finite>(m), m, T(0)));
  return log(sum<As...>(exp(e - shift))) + shift;
}

template <class A, class X>
  requires array_like<X>
auto argmax(X&& x) {
  using E = detail::expr_t<X>;
  static_assert(detail::require_axis_present<A, detail::visible_t<E>>::value);
  detail::ArgReduce<detail::arg_max_op, E, A> node(detail::as_expr(std::forward<X>(x)));
  detail::require_nonempty_reduction<A>(node.child, "argmax");
  return node;
}
template <class A, class X>
  requires array_like<X>
auto argmin(X&& x) {
  using E = detail::expr_t<X>;
  static_assert(detail::require_axis_present<A, detail::visible_t<E>>::value);
  detail::ArgReduce<detail::arg_min_op, E, A> node(detail::as_expr(std::forward<X>(x)));
  detail::require_nonempty_reduction<A>(node.child, "argmin");
  return node;
}

}  // namespace nax
