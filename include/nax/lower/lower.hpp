// lower(): named expression tree + placement -> positional evaluator (evaluators.hpp).
// Runs once per evaluation; every name is resolved at compile time. InnerAxes names the
// node axes whose index follows the innermost loop axis. Nodes that must be computed
// before the pass that reads them (reductions, contractions, joins, sorts, collectives: the
// list is at the end of lower()) are handed to the backend's context, whose materialise()
// returns a strided leaf, computed once per id.
#pragma once
#include <type_traits>

#include "../expr/axis_index.hpp"
#include "../expr/contract.hpp"
#include "../expr/generate.hpp"
#include "../expr/index.hpp"
#include "../expr/join.hpp"
#include "../expr/reduce.hpp"
#include "../expr/relayout.hpp"
#include "evaluators.hpp"
#include "gather.hpp"
#include "placement.hpp"

namespace nax::detail {

template <class X>
inline constexpr bool is_leaf_v = false;
template <class T, class... As>
inline constexpr bool is_leaf_v<Leaf<T, As...>> = true;
template <class X>
inline constexpr bool is_scalar_v = false;
template <class T>
inline constexpr bool is_scalar_v<Scalar<T>> = true;
template <class X>
inline constexpr bool is_map_v = false;
template <class F, class... Cs>
inline constexpr bool is_map_v<Map<F, Cs...>> = true;
template <class X>
inline constexpr bool is_relayout_v = false;
template <class C, class K, class O, class H, class U>
inline constexpr bool is_relayout_v<Relayout<C, K, O, H, U>> = true;
template <class X>
inline constexpr bool is_axis_index_v = false;
template <class A, class T>
inline constexpr bool is_axis_index_v<AxisIndex<A, T>> = true;

template <class X>
inline constexpr bool is_take_v = false;
template <class X, class I, class A>
inline constexpr bool is_take_v<Take<X, I, A>> = true;

template <class F, class... Cs>
F map_functor(const Map<F, Cs...>*);
template <class X>
inline constexpr bool is_generate_v = false;
template <class F, class S, class... Gs>
inline constexpr bool is_generate_v<Generate<F, S, Gs...>> = true;

template <class InnerAxes, std::size_t N, class Node, class Context>
auto lower(const Node& node, const placement<Node::axes_type::size, N>& p, Context& ctx);

// The evaluator lower() makes of child C of a node (placement restricted to C's axes).
template <class InnerAxes, std::size_t N, class C, class Context>
using lowered_child_t = decltype(lower<intersection_t<InnerAxes, typename C::axes_type>>(
    std::declval<const C&>(), std::declval<const placement<C::axes_type::size, N>&>(), std::declval<Context&>()));

// A Map's evaluator: its children lowered, each with the placement restricted to its axes. One
// function per Map type (pack::apply with lambdas would be three at -O0).
template <class InnerAxes, class F, class NA, std::size_t N, std::size_t... Is, class... Cs, class Context>
auto lower_map_children(const pack_impl<std::index_sequence<Is...>, Cs...>& children,
                        const placement<NA::size, N>& p, Context& ctx) {
  using Ev = map_eval<F, std::index_sequence<Is...>, lowered_child_t<InnerAxes, N, Cs, Context>...>;
  return Ev{{{lower<intersection_t<InnerAxes, typename Cs::axes_type>>(
      static_cast<const pack_slot<Is, Cs>&>(children).value, restrict_placement<typename Cs::axes_type, NA>(p),
      ctx)}...}};
}

template <class InnerAxes, std::size_t N, class Node, class Context>
auto lower(const Node& node, const placement<Node::axes_type::size, N>& p, Context& ctx) {
  using NA = typename Node::axes_type;
  constexpr bool depends_inner = intersection_t<InnerAxes, NA>::size > 0;
  if constexpr (is_leaf_v<Node>) {
    using T = typename Node::value_type;
    leaf_eval<T, N, depends_inner> ev{};
    ev.data = node.view.data();
    ev.base = 0;
    ev.stride = {};
    index_t lo = 0, hi = 0;
    bool empty = false;
    for (std::size_t j = 0; j != NA::size; ++j) {
      index_t s = node.view.strides()[j];
      ev.base += s * p.offset[j];
      for (std::size_t k = 0; k != N; ++k) ev.stride[k] += s * p.coef[j][k];
      index_t e = node.view.extents()[j];
      if (e == 0) empty = true;
      else (s < 0 ? lo : hi) += s * (e - 1);
    }
    ev.lo = empty ? nullptr : static_cast<const void*>(ev.data + lo);
    ev.hi = empty ? nullptr : static_cast<const void*>(ev.data + hi + 1);
    return ev;
  } else if constexpr (is_scalar_v<Node>) {
    return scalar_eval<typename Node::value_type>{node.value};
  } else if constexpr (is_axis_index_v<Node>) {
    return index_eval<typename Node::value_type, N, depends_inner>{p.offset[0], p.coef[0]};
  } else if constexpr (is_map_v<Node>) {
    using F = decltype(map_functor(static_cast<const Node*>(nullptr)));
    return lower_map_children<InnerAxes, F, NA>(node.children, p, ctx);
  } else if constexpr (is_generate_v<Node>) {
    using G = typename Node::generated_axes;
    using SA = typename Node::seed_type::axes_type;
    auto seed = lower<intersection_t<InnerAxes, SA>>(node.seed, restrict_placement<SA, NA>(p), ctx);
    // Linear index over the generated axes: row-major strides times the placement.
    auto strides = row_major_strides(node.generated_extents);
    generate_eval<typename Node::functor, decltype(seed), N, intersection_t<InnerAxes, G>::size != 0,
                  intersection_t<InnerAxes, SA>::size != 0>
        ev{
        node.f, seed, 0, {}};
    index_t count = 1;
    for (index_t e : node.generated_extents) count *= e;  // checked_size: no overflow
    ev.counter32 = count <= (index_t(1) << 32);
    [&]<class... Gs>(axes<Gs...>) {
      std::size_t g = 0;
      ((ev.base += strides[g] * p.offset[index_of_v<Gs, NA>],
        [&] {
          if constexpr (N > 0)
            for (std::size_t k = 0; k != N; ++k) ev.coef[k] += strides[g] * p.coef[index_of_v<Gs, NA>][k];
        }(),
        ++g),
       ...);
    }(G{});
    return ev;
  } else if constexpr (is_take_v<Node>) {
    // The source in memory (a leaf, or evaluated once per evaluation), read at the index's
    // values: the gather is part of this pass.
    using X = typename Node::source_type;
    using I = typename Node::index_type;
    using A = typename Node::axis;
    using XA = typename X::axes_type;
    using IA = typename I::axes_type;
    using XR = difference_t<XA, axes<A>>;
    using T = typename Node::value_type;
    auto source = [&] {
      if constexpr (is_leaf_v<X>) return node.a;
      else return ctx.materialise(node.a);
    }();
    const auto& v = source.view;
    const index_t extent = v.extents()[index_of_v<A, XA>];
    if (node.mode == index_mode::checked && extent > 0) verify_indices<A>(materialise_any(node.b, ctx), extent, ctx);
    auto index = lower<intersection_t<InnerAxes, IA>>(node.b, restrict_placement<IA, NA>(p), ctx);
    gather_eval<T, N, intersection_t<InnerAxes, XR>::size != 0, decltype(index)> ev{
        v.data(), 0, {}, 0, v.strides()[index_of_v<A, XA>], extent, node.mode, node.fill, index,
        lower<axes<>>(source, placement<XA::size, N>{}, ctx)};
    const auto rest = restrict_placement<XR, NA>(p);
    [&]<class... Rs>(axes<Rs...>) {
      std::size_t j = 0;
      [[maybe_unused]] auto one = [&](index_t s) {
        ev.base += s * rest.offset[j];
        for (std::size_t k = 0; k != N; ++k) ev.stride[k] += s * rest.coef[j][k];
        ++j;
      };
      (one(v.strides()[index_of_v<Rs, XA>]), ...);
    }(XR{});
    return ev;
  } else if constexpr (is_relayout_v<Node>) {
    using C = typename Node::child_type;
    using ChildInner = intersection_t<
        unique_t<typename Node::kind::template child_axes_following<InnerAxes>>, typename C::axes_type>;
    return lower<ChildInner>(node.child, compose_placement(node.coef, node.offset, p), ctx);
  } else {
    // Every other node (Reduce, ArgReduce, Contract, Merge, Join, Stored, Scatter, Scan, Sort,
    // SearchSorted, Permute, CommCollective, AllToAll): computed first by the backend's
    // materialise_node, then read as a leaf.
    auto leaf = ctx.materialise(node);
    return lower<InnerAxes>(leaf, p, ctx);
  }
}

}  // namespace nax::detail
