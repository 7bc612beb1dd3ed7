// Reverse-mode rule of sort<A> (expr/sort.hpp). Included by rules.hpp before backprop's
// definition. The sorted values are x read at the sort's permutation, so the rule is take's
// (rules_index.hpp): the cotangent scatter-added back through it, as JAX differentiates sort
// through the permutation it sorts alongside the values. argsort, top_k's indices and
// searchsorted are integers and carry no cotangent; top_k's values are a take, with take's rule.
#pragma once
#include "../expr/sort.hpp"
#include "rules_index.hpp"

namespace nax::detail::ad {

template <class C, class A, sort_result R, class Ct, class St>
void rule(const Sort<C, A, R>& s, const Ct& ct, St& st) {
  using T = typename C::value_type;
  rule(make_take<A>(s.child, sort_permutation(s), index_mode::clip, T(0)), ct, st);
}

}  // namespace nax::detail::ad
