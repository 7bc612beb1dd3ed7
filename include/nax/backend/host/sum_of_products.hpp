// A sum of a product, sum<R...>(a * b), where both factors carry every summed axis and each
// has an axis of its own, is a contraction: dot<R...>(a, b). The host runs it as one, through
// the GEMM (each factor packed once by a fused pass), instead of as a reduction that would
// evaluate the product, and everything fused into each factor, once per element of the
// other's outer axes. Such sums are what autodiff and the maps produce where a contraction
// runs over a mapped axis: the adjoint of dot<embed>(h, w) with respect to h, when w's other
// axis is mapped (an MLP's hidden units bound to a mesh axis), is psum<hidden>(ct * w); and a
// row-parallel layer is written psum<hidden>(unit * w) itself.
#pragma once
#include <optional>
#include <type_traits>

#include "contract.hpp"

namespace nax::detail::host {

// Does r map each of its child's axes, whole, onto the axis of the same name (a relabel, or a
// broadcast when r has more axes: the others have no child axis)?
template <class C, class Out, class H, class U>
bool maps_by_name(const Relayout<C, identity_kind, Out, H, U>& r) {
  bool whole = true;
  [&]<class... Cx>(axes<Cx...>) {
    std::size_t j = 0;
    auto row = [&]<class A>(std::type_identity<A>) {
      constexpr std::size_t k = index_of_v<A, Out>;
      if (r.offset[j] != 0 || r.extents()[k] != r.child.extents()[j]) whole = false;
      for (std::size_t q = 0; q != Out::size; ++q)
        if (r.coef[j][q] != (q == k ? 1 : 0)) whole = false;
      ++j;
    };
    (row(std::type_identity<Cx>{}), ...);
  }(typename C::axes_type{});
  return whole;
}

// C as the product it is, seen through a relayout that only renames by name (the maps' hide
// and reveal, evaluate_mapped's every-axis-visible view).
template <class C>
struct product_factors {
  static constexpr bool value = false;
};
template <class X, class Y>
struct product_factors<Map<fn::multiplies, X, Y>> {
  static constexpr bool value = true;
  using type = Map<fn::multiplies, X, Y>;
  static const type* peel(const type& m) { return &m; }
};
template <class X, class Y, class Out, class H, class U>
  requires same_set_v<Out, typename Map<fn::multiplies, X, Y>::axes_type>
struct product_factors<Relayout<Map<fn::multiplies, X, Y>, identity_kind, Out, H, U>> {
  static constexpr bool value = true;
  using type = Map<fn::multiplies, X, Y>;
  static const type* peel(const Relayout<type, identity_kind, Out, H, U>& r) {
    return maps_by_name(r) ? &r.child : nullptr;
  }
};

// A factor seen without a broadcast by name around it (the adjoint of psum spreads a
// cotangent over the members that way): the contraction broadcasts by name itself.
template <class F>
struct unbroadcast {
  using type = F;
  static const F* peel(const F& f) { return &f; }
};
template <class C, class Out, class H, class U>
  requires(Out::size > C::axes_type::size &&
           same_set_v<intersection_t<Out, typename C::axes_type>, typename C::axes_type>)
struct unbroadcast<Relayout<C, identity_kind, Out, H, U>> {
  using type = C;
  static const C* peel(const Relayout<C, identity_kind, Out, H, U>& r) { return maps_by_name(r) ? &r.child : nullptr; }
};

template <class P, std::size_t I>
using factor_t = typename unbroadcast<std::remove_cvref_t<decltype(get<I>(std::declval<const P&>().children))>>::type;

template <class Op, class C, class... Removed>
constexpr bool is_matrix_product() {
  if constexpr (!std::is_same_v<Op, sum_op> || !product_factors<C>::value) {
    return false;
  } else {
    using P = typename product_factors<C>::type;
    using X = factor_t<P, 0>;
    using Y = factor_t<P, 1>;
    using T = typename Reduce<Op, C, Removed...>::value_type;
    using K = intersection_t<typename C::axes_type, axes<Removed...>>;
    using D = Contract<X, Y, Removed...>;
    return std::is_floating_point_v<T> && std::is_same_v<typename X::value_type, T> &&
           std::is_same_v<typename Y::value_type, T> && K::size == sizeof...(Removed) &&
           same_set_v<intersection_t<typename X::axes_type, K>, K> &&
           same_set_v<intersection_t<typename Y::axes_type, K>, K> &&
           same_set_v<typename D::axes_type, typename Reduce<Op, C, Removed...>::axes_type> &&
           D::a_outer_axes::size > 0 && D::b_outer_axes::size > 0;
  }
}

// The sum node's value: the contraction dot materialised, read in the sum's axis order by name.
template <class Node, class D>
leaf_for_t<Node> contraction_as_sum(const Node& node, const D& dot, context& ctx) {
  auto result = materialise_node(dot, ctx);
  using K = typename Node::axes_type;
  std::array<index_t, K::size> strides{};
  [&]<class... Ax>(axes<Ax...>) {
    strides = {result.view.strides()[index_of_v<Ax, typename D::axes_type>]...};
  }(K{});
  return leaf_for_t<Node>{{}, {result.view.data(), node.extents(), strides}, result.owner};
}

// node (a sum) computed as the contraction of its factors, when it is one (is_matrix_product)
// and no extent is 0; std::nullopt sends it to the reduction.
template <class Op, class C, class... Removed>
std::optional<leaf_for_t<Reduce<Op, C, Removed...>>> sum_as_contraction(const Reduce<Op, C, Removed...>& node,
                                                                         context& ctx) {
  if constexpr (!is_matrix_product<Op, C, Removed...>()) {
    return std::nullopt;
  } else {
    const auto* product = product_factors<C>::peel(node.child);
    if (!product) return std::nullopt;
    for (index_t e : node.child.extents())
      if (e == 0) return std::nullopt;
    using P = typename product_factors<C>::type;
    const auto* x = unbroadcast<std::remove_cvref_t<decltype(get<0>(product->children))>>::peel(get<0>(product->children));
    const auto* y = unbroadcast<std::remove_cvref_t<decltype(get<1>(product->children))>>::peel(get<1>(product->children));
    if (!x || !y) return std::nullopt;
    using D = Contract<factor_t<P, 0>, factor_t<P, 1>, Removed...>;
    return contraction_as_sum(node, D(*x, *y), ctx);
  }
}

// C as a contraction, seen through a relayout that only renames by name (evaluate_mapped's
// every-axis-visible view of a mapped contraction).
template <class C>
struct contraction_of {
  static constexpr bool value = false;
};
template <class A, class B, class... K>
struct contraction_of<Contract<A, B, K...>> {
  static constexpr bool value = true;
  using type = Contract<A, B, K...>;
  static const type* peel(const type& c) { return &c; }
};
template <class A, class B, class... K, class Out, class H, class U>
  requires same_set_v<Out, typename Contract<A, B, K...>::axes_type>
struct contraction_of<Relayout<Contract<A, B, K...>, identity_kind, Out, H, U>> {
  static constexpr bool value = true;
  using type = Contract<A, B, K...>;
  static const type* peel(const Relayout<type, identity_kind, Out, H, U>& r) { return maps_by_name(r) ? &r.child : nullptr; }
};

// The contraction D = dot<K...>(a, b) with the summed axes added to its contracted ones.
template <class D, class... Removed>
struct widened_contraction;
template <class A, class B, class... K, class... Removed>
struct widened_contraction<Contract<A, B, K...>, Removed...> {
  using type = Contract<A, B, K..., Removed...>;
};

// sum<R...>(dot<K...>(a, b)) where every summed axis is a batch axis of the contraction (in
// both operands, not contracted) is dot<K..., R...>(a, b): one GEMM over a longer inner
// dimension instead of the contraction's whole result (every R) and a strided reduction of
// it. Autodiff makes these where a contraction's batch axis is summed by the adjoint: with
// attention's heads bound to a mesh axis, the cotangent of the block's input is
// psum<head>(dot<head_dim>(ct_q, w_q)).
template <class Op, class C, class... Removed>
constexpr bool is_sum_of_contraction() {
  if constexpr (!std::is_same_v<Op, sum_op> || !contraction_of<C>::value || sizeof...(Removed) == 0) {
    return false;
  } else {
    using D = typename contraction_of<C>::type;
    using T = typename Reduce<Op, C, Removed...>::value_type;
    using R = axes<Removed...>;
    return std::is_floating_point_v<T> && std::is_same_v<typename D::value_type, T> &&
           R::size == intersection_t<typename D::batch_axes, R>::size;
  }
}

template <class Op, class C, class... Removed>
std::optional<leaf_for_t<Reduce<Op, C, Removed...>>> sum_as_wider_contraction(const Reduce<Op, C, Removed...>& node,
                                                                               context& ctx) {
  if constexpr (!is_sum_of_contraction<Op, C, Removed...>()) {
    return std::nullopt;
  } else {
    const auto* inner = contraction_of<C>::peel(node.child);
    if (!inner) return std::nullopt;
    for (index_t e : node.child.extents())
      if (e == 0) return std::nullopt;  // (the reduction writes the sum's zeros)
    using D = typename contraction_of<C>::type;
    using E = typename widened_contraction<D, Removed...>::type;
    return contraction_as_sum(node, E(inner->a, inner->b), ctx);
  }
}

}  // namespace nax::detail::host
