// Relayouts that are affine maps of indices: transpose, rename, slice, split, broadcast_to.
// One node, Relayout, holds the map child_index = offset + coef * index; lowering folds it
// into the strides and offsets of the leaves below, so a relayout never adds a slower loop.
// Kind says, at compile time, which child axes follow an index of this node's axes.
#pragma once
#include <string>

#include "node.hpp"

namespace nax {
namespace detail {

struct identity_kind {
  template <class S>
  using child_axes_following = S;
};
template <class From, class To>
struct rename_kind {
  template <class S>
  using child_axes_following = replace_t<S, To, From>;
};
template <class Axis, class Outer, class Inner>
struct split_kind {
  template <class S>
  using child_axes_following =
      std::conditional_t<contains_v<Outer, S> || contains_v<Inner, S>, concat_t<S, axes<Axis>>, S>;
};

// One position along A, with A removed (take<A>(x, i) for a C++ index i): A has no index of
// its own (its coefficients are 0, its offset is i), so the other axes read a strided slice.
template <class A>
struct position_kind {
  template <class S>
  using child_axes_following = S;
};

// Hidden and Unbound retag the mapped and not-yet-bound axes (vmap hides an argument's
// axis and reveals it in the output; collectives mark and resolve axis bindings).
template <class C, class Kind, class OutAxes, class Hidden = hidden_t<C>, class Unbound = unbound_t<C>>
struct Relayout : node_interface<Relayout<C, Kind, OutAxes, Hidden, Unbound>> {
  using child_type = C;
  using kind = Kind;
  using axes_type = OutAxes;
  using hidden_type = Hidden;
  using unbound_type = Unbound;
  using value_type = typename C::value_type;
  static constexpr std::size_t rank = OutAxes::size;
  static constexpr std::size_t child_rank = C::axes_type::size;

  C child;
  std::array<index_t, rank> extents_{};
  std::array<std::array<index_t, rank>, child_rank> coef{};
  std::array<index_t, child_rank> offset{};

  const std::array<index_t, rank>& extents() const { return extents_; }
};

// A relayout whose child axes map one to one, by position in the lists, onto OutAxes.
template <class Kind, class OutAxes, class C, class Hidden = hidden_t<C>, class Unbound = unbound_t<C>>
Relayout<C, Kind, OutAxes, Hidden, Unbound> positional_relayout(C child) {
  Relayout<C, Kind, OutAxes, Hidden, Unbound> r{{}, std::move(child)};
  if constexpr (C::axes_type::size > 0)  // (a rank-0 child: no loop, and no "j < 0" for nvcc to warn about)
    for (std::size_t j = 0; j < C::axes_type::size; ++j) r.coef[j][j] = 1;
  r.extents_ = r.child.extents();
  return r;
}

// A relayout whose child axes map by name onto axes of the same name in OutAxes.
template <class OutAxes, class C, class Hidden = intersection_t<hidden_t<C>, OutAxes>, class Unbound = unbound_t<C>>
Relayout<C, identity_kind, OutAxes, Hidden, Unbound> by_name_relayout(C child) {
  Relayout<C, identity_kind, OutAxes, Hidden, Unbound> r{{}, std::move(child)};
  [&]<class... Cx>(axes<Cx...>) {
    std::size_t j = 0;
    ((r.coef[j][index_of_v<Cx, OutAxes>] = 1, ++j), ...);
  }(typename C::axes_type{});
  return r;
}

template <class Order, class Axes>
struct require_permutation {
  static_assert(same_set_v<Order, Axes> && is_unique_v<Order>,
                "nax: transpose needs every axis of the expression exactly once (Order, Axes)");
  static constexpr bool value = true;
};

template <class L, class Axis, class Outer, class Inner>
struct split_axes;
template <class... As, class Axis, class Outer, class Inner>
struct split_axes<axes<As...>, Axis, Outer, Inner> {
  using type = tuple_to_axes_t<decltype(std::tuple_cat(
      std::conditional_t<std::is_same_v<As, Axis>, std::tuple<Outer, Inner>, std::tuple<As>>{}...))>;
};

}  // namespace detail

// The same values with the axes in the given order (by name, no data moves until evaluation).
template <class... Order, class X>
  requires array_like<X>
auto transpose(X&& x) {
  using E = detail::expr_t<X>;
  static_assert((detail::require_axis_present<Order, detail::visible_t<E>>::value && ... && true));
  static_assert(detail::require_permutation<axes<Order...>, detail::visible_t<E>>::value);
  using OutAxes = detail::concat_t<axes<Order...>, detail::hidden_t<E>>;  // mapped axes stay last
  auto r = detail::by_name_relayout<OutAxes>(detail::as_expr(std::forward<X>(x)));
  r.extents_ = detail::extents_by_name<OutAxes>(r.child);
  return r;
}

// Renames axis From to To.
template <class From, class To, class X>
  requires array_like<X>
auto rename(X&& x) {
  using E = detail::expr_t<X>;
  static_assert(detail::require_axis_present<From, detail::visible_t<E>>::value);
  static_assert(detail::require_axis_absent<To, detail::difference_t<typename E::axes_type, axes<From>>>::value);
  return detail::positional_relayout<detail::rename_kind<From, To>, detail::replace_t<typename E::axes_type, From, To>>(
      detail::as_expr(std::forward<X>(x)));
}

// Elements begin, begin+step, ... below end along axis A (Python's x[begin:end:step], step >= 1).
template <class A, class X>
  requires array_like<X>
auto slice(X&& x, index_t begin, index_t end, index_t step = 1) {
  using E = detail::expr_t<X>;
  static_assert(detail::require_axis_present<A, detail::visible_t<E>>::value);
  auto r = detail::positional_relayout<detail::identity_kind, typename E::axes_type>(detail::as_expr(std::forward<X>(x)));
  constexpr std::size_t j = detail::index_of_v<A, typename E::axes_type>;
  index_t extent = r.extents_[j];
  if (step < 1)
    throw shape_error("nax: slice step " + std::to_string(step) + " on axis '" + std::string(axis_name<A>()) +
                      "' must be at least 1");
  if (begin < 0 || end < begin || end > extent)
    throw shape_error("nax: slice [" + std::to_string(begin) + ", " + std::to_string(end) + ") of axis '" +
                      std::string(axis_name<A>()) + "' is out of range: its extent is " + std::to_string(extent));
  r.coef[j][j] = step;
  r.offset[j] = begin;
  r.extents_[j] = (end - begin + step - 1) / step;
  return r;
}

// Splits axis A into Outer and Inner (A = outer * inner_extent + inner), in A's place.
template <class A, class Outer, class Inner, class X>
  requires array_like<X>
auto split(X&& x, index_t inner_extent) {
  using E = detail::expr_t<X>;
  using CA = typename E::axes_type;
  using Rest = detail::difference_t<CA, axes<A>>;
  static_assert(detail::require_axis_present<A, detail::visible_t<E>>::value);
  static_assert(detail::require_axis_absent<Outer, Rest>::value);
  static_assert(detail::require_axis_absent<Inner, detail::concat_t<Rest, axes<Outer>>>::value);
  using OutAxes = typename detail::split_axes<CA, A, Outer, Inner>::type;
  detail::Relayout<E, detail::split_kind<A, Outer, Inner>, OutAxes> r{{}, detail::as_expr(std::forward<X>(x))};
  index_t extent = detail::extent_of<A>(r.child);
  if (inner_extent < 1 || extent % inner_extent != 0)
    throw shape_error("nax: split of axis '" + std::string(axis_name<A>()) + "' (extent " + std::to_string(extent) +
                      ") into an inner extent of " + std::to_string(inner_extent) + " does not divide it");
  [&]<class... Cx>(axes<Cx...>) {
    std::size_t j = 0;
    ((std::is_same_v<Cx, A> ? (r.coef[j][detail::index_of_v<Outer, OutAxes>] = inner_extent,
                               r.coef[j][detail::index_of_v<Inner, OutAxes>] = 1)
                            : (r.coef[j][detail::index_of_v<Cx, OutAxes>] = 1),
      ++j),
     ...);
  }(CA{});
  [&]<class... Ox>(axes<Ox...>) {
    r.extents_ = {(std::is_same_v<Ox, Outer> ? extent / inner_extent
                   : std::is_same_v<Ox, Inner> ? inner_extent
                                               : detail::extent_of<Ox>(r.child))...};
  }(OutAxes{});
  return r;
}

template <class... To, class X, std::size_t M>
  requires array_like<X>
auto broadcast_to(X&& x, const index_t (&extents)[M]) {
  return broadcast_to<To...>(std::forward<X>(x), detail::extents_from_list<axes<To...>>(extents));
}

// Broadcasts x to the axes To... (which include all of x's) with the given extents, in To's order.
template <class... To, class X>
  requires array_like<X>
auto broadcast_to(X&& x, const std::array<index_t, sizeof...(To)>& extents) {
  using E = detail::expr_t<X>;
  [&]<class... Cx>(axes<Cx...>) {
    static_assert((detail::require_axis_present<Cx, axes<To...>>::value && ... && true));
  }(detail::visible_t<E>{});
  static_assert(detail::require_unique_axes<detail::concat_t<axes<To...>, detail::hidden_t<E>>>::value);
  using OutAxes = detail::concat_t<axes<To...>, detail::hidden_t<E>>;  // mapped axes stay last
  auto r = detail::by_name_relayout<OutAxes>(detail::as_expr(std::forward<X>(x)));
  detail::checked_size(axes<To...>{}, extents);
  [&]<class... Cx>(axes<Cx...>) {
    (detail::check_same_extent<Cx>(detail::extent_of<Cx>(r.child), extents[detail::index_of_v<Cx, axes<To...>>],
                                   "the broadcast operand", "the requested extents"),
     ...);
  }(detail::visible_t<E>{});
  [&]<class... Ox>(axes<Ox...>) {
    r.extents_ = {(detail::contains_v<Ox, axes<To...>> ? extents[detail::index_of_v<Ox, axes<To...>>]
                                                       : detail::extent_of<Ox>(r.child))...};
  }(OutAxes{});
  return r;
}

}  // namespace nax
