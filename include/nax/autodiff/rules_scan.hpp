// Reverse-mode rule of the scans (expr/scan.hpp). Included by rules.hpp before backprop's
// definition. cumsum's cotangent is ct summed from the other end (lax's transpose of cumsum: the
// same scan with `reverse` flipped), a lazy node, so grad(grad(f)) differentiates it again.
// cumprod, cummax and cummin have no reverse rule yet: grad raises, naming them.
#pragma once
#include "../expr/scan.hpp"
#include "cotangent.hpp"

namespace nax::detail::ad {

template <class E, class Ct, class St>
void backprop(const E& e, Ct ct, St& st);

template <class Op, class C, class A, class Ct, class St>
void rule(const Scan<Op, C, A>& s, const Ct& ct, St& st) {
  using Node = Scan<Op, C, A>;
  if constexpr (!std::is_same_v<Op, sum_op>) {
    not_differentiable("cumprod, cummax or cummin (only cumsum has a gradient in nax)");
  } else {
    // every axis of the node first (a cotangent constant along A is spread along it)
    auto full = spread<typename Node::axes_type, hidden_t<Node>>(ct, s.extents());
    backprop(s.child, Scan<sum_op, decltype(full), A>{{}, std::move(full), !s.reverse}, st);
  }
}

}  // namespace nax::detail::ad
