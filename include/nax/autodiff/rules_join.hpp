// Reverse-mode rules of the joins (expr/join.hpp): merge, concatenate, stack. Included by
// rules.hpp before backprop's definition. Each cotangent is a lazy relayout of ct (no copy):
// merge's is ct split back, concatenate gives each operand its slice of ct along the joined
// axis, stack gives each operand ct at its index of the new axis (that axis dropped).
#pragma once
#include "cotangent.hpp"

namespace nax::detail::ad {

template <class E, class Ct, class St>
void backprop(const E& e, Ct ct, St& st);

// e at index `at` of its visible axis A, without A (an affine relayout: A's index is fixed).
template <class A, class E>
auto take_at(E e, index_t at) {
  using Out = difference_t<typename E::axes_type, axes<A>>;
  Relayout<E, identity_kind, Out, hidden_t<E>, unbound_t<E>> r{{}, std::move(e)};
  [&]<class... Cx>(axes<Cx...>) {
    std::size_t j = 0;
    auto row = [&]<class X>(std::type_identity<X>) {
      if constexpr (std::is_same_v<X, A>) r.offset[j] = at;
      else r.coef[j][index_of_v<X, Out>] = 1;
      ++j;
    };
    (row(std::type_identity<Cx>{}), ...);
  }(typename E::axes_type{});
  r.extents_ = extents_by_name<Out>(r.child);
  return r;
}

// merge<Outer, Inner, Merged>: ct split back into Outer and Inner (nothing to send when empty).
template <class C, class Outer, class Inner, class Merged, class Ct, class St>
void rule(const Merge<C, Outer, Inner, Merged>& m, const Ct& ct, St& st) {
  index_t inner = extent_of<Inner>(m.child);
  if (inner == 0 || extent_of<Outer>(m.child) == 0) return;
  backprop(m.child, nax::split<Merged, Outer, Inner>(ct, inner), st);
}

// concatenate<Axis>: operand K gets ct[offset_K : offset_K + extent_K] along Axis;
// stack<Axis>: operand K gets ct at index K of Axis.
template <class Axis, bool IsStack, class... Cs, class Ct, class St>
void rule(const Join<Axis, IsStack, Cs...>& n, const Ct& ct, St& st) {
  index_t at = 0;
  auto one = [&](const auto& child) {
    if constexpr (IsStack) {
      backprop(child, take_at<Axis>(ct, at), st);
      ++at;
    } else {
      index_t count = extent_of<Axis>(child);
      backprop(child, nax::slice<Axis>(ct, at, at + count), st);
      at += count;
    }
  };
  n.children.apply([&](const auto&... c) { (one(c), ...); });
}

}  // namespace nax::detail::ad
