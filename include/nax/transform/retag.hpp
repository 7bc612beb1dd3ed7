// Retagging relayouts used by the transforms: hide an axis (it becomes mapped), reveal it
// at a position (it becomes visible again), mark or resolve an axis binding, rename any
// axis (mapped ones too), and take a range of any axis. All are Relayout nodes: lowering
// folds them into strides, so they cost nothing at run time.
#pragma once
#include "../expr/relayout.hpp"

namespace nax::detail {

template <class L, std::size_t P, class A, class Seq = std::make_index_sequence<L::size>>
struct insert_at;
template <class... As, std::size_t P, class A, std::size_t... I>
struct insert_at<axes<As...>, P, A, std::index_sequence<I...>> {
  using type = concat_t<tuple_to_axes_t<decltype(std::tuple_cat(keep_if<(I < P), As>{}...))>, axes<A>,
                        tuple_to_axes_t<decltype(std::tuple_cat(keep_if<(I >= P), As>{}...))>>;
};
template <class L, std::size_t P, class A>
using insert_at_t = typename insert_at<L, P, A>::type;

template <class A, class E>
auto hide_axis(E e) {
  return positional_relayout<identity_kind, typename E::axes_type, E, union_t<hidden_t<E>, axes<A>>>(std::move(e));
}

// Makes mapped axis A visible at position P among the visible axes.
template <class A, std::size_t P, class E>
auto reveal_axis(E e) {
  using Hidden = difference_t<hidden_t<E>, axes<A>>;
  using Out = concat_t<insert_at_t<visible_t<E>, P, A>, Hidden>;
  auto r = by_name_relayout<Out, E, Hidden>(std::move(e));
  r.extents_ = extents_by_name<Out>(r.child);
  return r;
}

template <class A, class E>
auto mark_unbound(E e) {
  return positional_relayout<identity_kind, typename E::axes_type, E, hidden_t<E>, union_t<unbound_t<E>, axes<A>>>(
      std::move(e));
}
template <class A, class E>
auto resolve_axis(E e) {
  return positional_relayout<identity_kind, typename E::axes_type, E, hidden_t<E>, difference_t<unbound_t<E>, axes<A>>>(
      std::move(e));
}

// Renames From to To whether From is visible or mapped (To takes its place in both lists).
template <class From, class To, class E>
auto rename_axis(E e) {
  using Hidden = replace_t<hidden_t<E>, From, To>;
  return positional_relayout<rename_kind<From, To>, replace_t<typename E::axes_type, From, To>, E, Hidden>(std::move(e));
}

// Elements [begin, begin + count) along A, visible or mapped.
template <class A, class E>
auto narrow_axis(E e, index_t begin, index_t count) {
  auto r = positional_relayout<identity_kind, typename E::axes_type>(std::move(e));
  constexpr std::size_t j = index_of_v<A, typename E::axes_type>;
  r.offset[j] = begin;
  r.extents_[j] = count;
  return r;
}

}  // namespace nax::detail
