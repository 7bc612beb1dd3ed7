// Reverse-mode rules of the scans (expr/scan.hpp). Included by rules.hpp before backprop's
// definition. Each cotangent is a lazy node, so grad(grad(f)) differentiates it again:
//   - cumsum: ct summed from the other end (lax's transpose of cumsum: `reverse` flipped);
//   - cummax, cummin: each output's cotangent goes to the element its value came from, the
//     first element (in scan order) of the current run of the running extreme: a
//     scatter_add at those positions, as take's adjoint. Where JAX's associative scan splits a
//     tie between equal elements in tree-dependent shares, nax gives it to the first;
//     without ties the two agree.
// cumprod has no rule yet: grad raises, naming it.
#pragma once
#include <limits>

#include "../expr/gather_layouts.hpp"
#include "../expr/scan.hpp"
#include "cotangent.hpp"

namespace nax::detail {

// For a cummax or cummin node s: the position along A that each output's value came from (the
// element that started the current run of the running extreme), as an int64 expression.
template <class Op, class C, class A>
auto running_extreme_sources(const Scan<Op, C, A>& s) {
  using T = typename C::value_type;
  const index_t n = extent_of<A>(s);
  auto i = axis_index<A, index_t>(n);
  // the output one step earlier in scan order (none before the first: position n, out of
  // range, reads NaN, which equals nothing)
  auto step = i + (s.reverse ? index_t(1) : index_t(-1));
  auto previous = make_take<A>(s, where(step >= index_t(0), step, n), index_mode::fill,
                               std::numeric_limits<T>::quiet_NaN());
  // Positions as keys that grow in scan order (j, or n - 1 - j when reverse): the nearest run
  // start at or before each position is the running maximum of the starts' keys.
  const index_t sign = s.reverse ? -1 : 1, offset = s.reverse ? n - 1 : 0;
  auto keys = where(s != previous, i * sign + offset, index_t(-1));
  return Scan<max_op, decltype(keys), A>{{}, std::move(keys), s.reverse} * sign + offset;
}

}  // namespace nax::detail

namespace nax::detail::ad {

template <class E, class Ct, class St>
void backprop(const E& e, Ct ct, St& st);

template <class Op>
struct require_scan_rule {
  static_assert(std::is_same_v<Op, sum_op> || std::is_same_v<Op, prod_op> || std::is_same_v<Op, max_op> ||
                    std::is_same_v<Op, min_op>,
                "nax: grad: a scan of this op (Op) has no rule: add its case to autodiff/rules_scan.hpp and "
                "autodiff/forward.hpp");
  static constexpr bool value = true;
};

template <class Op, class C, class A, class Ct, class St>
void rule(const Scan<Op, C, A>& s, const Ct& ct, St& st) {
  using Node = Scan<Op, C, A>;
  using T = typename C::value_type;
  static_assert(require_scan_rule<Op>::value);
  if constexpr (std::is_same_v<Op, prod_op>) {
    not_differentiable("cumprod (cumsum, cummax and cummin have gradients in nax; cumprod not yet)");
  } else {
    // every axis of the node first (a cotangent constant along A is spread along it)
    auto full = spread<typename Node::axes_type, hidden_t<Node>>(ct, s.extents());
    if constexpr (std::is_same_v<Op, sum_op>) {
      backprop(s.child, Scan<sum_op, decltype(full), A>{{}, std::move(full), !s.reverse}, st);
    } else {
      auto sources = running_extreme_sources(s);
      auto zeros = spread<typename C::axes_type, hidden_t<C>>(Scalar<T>{{}, T(0)}, s.child.extents());
      backprop(s.child,
               Scatter<scatter_add_op, decltype(zeros), decltype(sources), decltype(full), A>(
                   std::move(zeros), std::move(sources), std::move(full), index_mode::clip),
               st);
    }
  }
}

}  // namespace nax::detail::ad
