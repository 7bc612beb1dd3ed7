// The cotangent of take<A>(x, i) with a C++ index: ct spread back over A and kept at position
// i only, select(axis_index<A> == i, spread(ct), 0). One form, made by the rule (rules.hpp)
// and recognised where a cotangent is added into a gradient (rules.hpp's add_to_gradient,
// tape.hpp's accumulate): there the gradient's slice at A = i gets ct itself, instead of the
// whole gradient getting the select. A model whose blocks are one array stacked along `layer`
// (examples/gpt) takes layer l's weights so in every block; as a select, each block's update
// passed over every layer's gradient and evaluated its cotangent for each, and a cotangent
// summed over the batch ran as a reduction where the slice's is one contraction (a GEMM).
// Autodiff layer: expr/ and cotangent.hpp.
#pragma once
#include <type_traits>

#include "../expr/axis_index.hpp"
#include "../expr/elementwise.hpp"
#include "cotangent.hpp"

namespace nax::detail::ad {

template <class A, class Spread>
auto at_position(Spread spread, index_t extent, index_t i) {
  using T = typename Spread::value_type;
  auto at_i = make_map<fn::equal_to>(AxisIndex<A, index_t>{{}, {extent}}, Scalar<index_t>{{}, i});
  return make_map<fn::select>(std::move(at_i), std::move(spread), Scalar<T>{{}, T(0)});
}

// Recognises at_position's result (whoever built it: the same expression is the same numbers):
// its axis, its position, and the cotangent before the spread.
template <class Ct>
struct at_position_traits : std::false_type {};
template <class A, class C, class Out, class H, class U, class T>
  requires(!contains_v<A, typename C::axes_type>)
struct at_position_traits<Map<fn::select, Map<fn::equal_to, AxisIndex<A, index_t>, Scalar<index_t>>,
                              Relayout<C, identity_kind, Out, H, U>, Scalar<T>>> : std::true_type {
  using axis = A;
  using Ct = Map<fn::select, Map<fn::equal_to, AxisIndex<A, index_t>, Scalar<index_t>>,
                 Relayout<C, identity_kind, Out, H, U>, Scalar<T>>;
  static index_t position(const Ct& ct) { return get<1>(get<0>(ct.children).children).value; }
  static const C& unspread(const Ct& ct) { return get<1>(ct.children).child; }
  // Whether ct is, element for element, unspread(ct) at A = position and 0 elsewhere along A,
  // whose extent is `extent`: the spread a pure broadcast, the select's other arm 0, and the
  // position inside.
  static bool holds(const Ct& ct, index_t extent) {
    const auto& spread = get<1>(ct.children);
    const index_t i = position(ct);
    return get<2>(ct.children).value == T(0) && simple_relayout(spread) && extent_of<A>(spread) == extent &&
           get<0>(get<0>(ct.children).children).extents()[0] == extent && i >= 0 && i < extent;
  }
};

}  // namespace nax::detail::ad
