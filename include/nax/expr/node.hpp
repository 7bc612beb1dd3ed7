// The expression model: what every node has, leaves (views of arrays) and scalars, and
// as_expr, which turns what a user passes (Array, ArrayView, node, C++ number) into a node.
// Expr layer: includes core only. Nodes are small aggregates held by value.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include "../core/array.hpp"

namespace nax {

// Base of every expression node; lets concepts tell nodes from other types, and makes
// namespace nax associated with every node, so nax's operators are found by ADL.
struct expression_node {};

namespace detail {
using node_base = expression_node;

// Members every node offers; item() evaluates a rank-0 expression (backend defines
// evaluate_item, found by ADL when item() is used).
// hidden_type: the mapped axes the value varies over (bound by an enclosing vmap/xmap,
// hidden from the user's view); they are part of axes_type, which lists every axis the
// data has. unbound_type: axes that collectives name and no enclosing map has bound yet.
template <class Derived>
struct node_interface : expression_node {
  using hidden_type = axes<>;
  using unbound_type = axes<>;
  auto item() const { return evaluate_item(static_cast<const Derived&>(*this)); }
};

// Identity of a node that is materialised (reduction, contraction, ...). Copies of a node
// keep its id, so a sub-expression reused by user code is computed once per evaluation.
inline std::uint64_t next_node_id() {
  static std::atomic<std::uint64_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace detail

// Anything array-valued: has value_type, axes_type (ordered visible axis names) and extents().
template <class E>
concept expression = std::is_base_of_v<expression_node, std::remove_cvref_t<E>>;

namespace detail {

// A leaf: a strided view of data, optionally keeping an owner alive (an Array passed as an
// rvalue, so that `ones<...>(n) + x` does not dangle).
template <class T, class... As>
struct Leaf : node_interface<Leaf<T, As...>> {
  using value_type = T;
  using axes_type = axes<As...>;
  ArrayView<const T, As...> view;
  std::shared_ptr<const void> owner;
  const std::array<index_t, sizeof...(As)>& extents() const { return view.extents(); }
};

template <class T>
struct Scalar : node_interface<Scalar<T>> {
  using value_type = T;
  using axes_type = axes<>;
  T value;
  std::array<index_t, 0> extents() const { return {}; }
};

template <class X>
struct is_array : std::false_type {};
template <class T, class... As>
struct is_array<Array<T, As...>> : std::true_type {};
template <class X>
struct is_view : std::false_type {};
template <class T, class... As>
struct is_view<ArrayView<T, As...>> : std::true_type {};

template <class T, class... As>
Leaf<std::remove_const_t<T>, As...> leaf_of(const ArrayView<T, As...>& v, std::shared_ptr<const void> owner = {}) {
  return {{}, ArrayView<const std::remove_const_t<T>, As...>(v), std::move(owner)};
}

}  // namespace detail

// What builders accept: expressions, arrays, views and C++ numbers.
template <class X>
concept operand = expression<X> || detail::is_array<std::remove_cvref_t<X>>::value ||
                  detail::is_view<std::remove_cvref_t<X>>::value || element<std::remove_cvref_t<X>>;

template <class X>
concept array_like = expression<X> || detail::is_array<std::remove_cvref_t<X>>::value ||
                     detail::is_view<std::remove_cvref_t<X>>::value;

namespace detail {

template <class X>
auto as_expr(X&& x) {
  using D = std::remove_cvref_t<X>;
  if constexpr (expression<D>) {
    return D(std::forward<X>(x));
  } else if constexpr (is_array<D>::value) {
    if constexpr (std::is_rvalue_reference_v<X&&>) {
      auto owned = std::make_shared<const D>(std::move(x));
      return leaf_of(owned->view(), owned);
    } else {
      return leaf_of(x.view());
    }
  } else if constexpr (is_view<D>::value) {
    return leaf_of(x);
  } else {
    static_assert(element<D>, "nax: an operand must be an array, an expression or a number");
    return Scalar<D>{{}, x};
  }
}

template <class X>
using expr_t = decltype(as_expr(std::declval<X>()));

template <class E>
using hidden_t = typename std::remove_cvref_t<E>::hidden_type;
template <class E>
using unbound_t = typename std::remove_cvref_t<E>::unbound_type;
// The axes a user sees: all axes but the mapped ones.
template <class E>
using visible_t = difference_t<typename std::remove_cvref_t<E>::axes_type, hidden_t<E>>;

template <class E>
inline constexpr std::size_t rank_v = std::remove_cvref_t<E>::axes_type::size;

// Extent of axis A of expression e, by name.
template <class A, class E>
index_t extent_of(const E& e) {
  return e.extents()[index_of_v<A, typename E::axes_type>];
}

}  // namespace detail

// The axes of an expression that its user sees (mapped axes are hidden inside vmap/xmap).
template <class E>
using visible_axes_t = detail::visible_t<detail::expr_t<E>>;

// The extent of x's visible axis A (inside vmap/xmap too, where x may be an expression).
template <class A, class X>
  requires array_like<X>
index_t extent(const X& x) {
  static_assert(detail::require_axis_present<A, detail::visible_t<detail::expr_t<const X&>>>::value);
  return detail::extent_of<A>(detail::as_expr(x));
}

}  // namespace nax
