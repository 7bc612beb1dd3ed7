// Reverse-mode rules of indexing (expr/index.hpp). Included by rules.hpp before backprop's
// definition. take's source receives the cotangent scatter-added at the indices (to the
// position each clip or wrap index read; fill mode's out-of-range reads receive nothing), as
// JAX transposes a gather; scatter_add passes the cotangent to x unchanged and gives the
// updates the cotangent read at the indices (0 for dropped updates). The indices have none.
#pragma once
#include "../expr/index.hpp"
#include "cotangent.hpp"

namespace nax::detail::ad {

template <class E, class Ct, class St>
void backprop(const E& e, Ct ct, St& st);

template <class C, class Ct, class St>
void rule(const Stored<C>& s, const Ct& ct, St& st) {
  backprop(s.child, ct, st);
}

template <class X, class I, class A, class Ct, class St>
void rule(const Take<X, I, A>& t, const Ct& ct, St& st) {
  using Node = Take<X, I, A>;
  using T = typename X::value_type;
  // A lazy scatter_add node, not a loop here: under grad(grad(f)) the cotangent reaching the
  // inner variable is differentiated again, through this node's own rule. The cotangent gets
  // every axis of the take first (a broadcast where it is constant: its index axes are summed
  // by the scatter); the mapped axes it has beyond x's are kept, and backprop sums them (or
  // keeps them, for per-member gradients) like any broadcast.
  auto full = spread<typename Node::axes_type, hidden_t<Node>>(ct, t.extents());
  auto zeros = spread<typename X::axes_type, hidden_t<X>>(Scalar<T>{{}, T(0)}, t.a.extents());
  backprop(t.a, Scatter<scatter_add_op, decltype(zeros), I, decltype(full), A>(std::move(zeros), t.b, std::move(full), t.mode),
           st);
}

template <class Op, class X, class I, class U, class A, class Ct, class St>
void rule(const Scatter<Op, X, I, U, A>& s, const Ct& ct, St& st) {
  if constexpr (!std::is_same_v<Op, scatter_add_op>) {
    not_differentiable("scatter, scatter_max or scatter_min (only scatter_add has a gradient in nax)");
  } else {
    using T = typename X::value_type;
    backprop(get<0>(s.children), ct, st);
    backprop(get<2>(s.children), make_take<A>(ct, get<1>(s.children), s.mode, T(0)), st);
  }
}

}  // namespace nax::detail::ad
