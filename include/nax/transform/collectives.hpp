// Collectives over mapped axes, with JAX's semantics (jax.lax.psum, pmean, pmax, pmin,
// all_gather, psum_scatter, ppermute, all_to_all, axis_index, axis_size). Each names
// logical axes. Over an axis vectorised on this device (vmap, or xmap without a mesh axis)
// it is a local reduction or reindexing; over a mesh-bound axis it is the same local work
// on this device's part plus the mesh axis's communicator. Every result carries the axis
// in its unbound set until the map that binds it resolves it: a collective over an axis no
// enclosing map binds is a compile-time error where the value is used.
#pragma once
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../expr/collective.hpp"
#include "../expr/join.hpp"
#include "../expr/math.hpp"
#include "../expr/reduce.hpp"
#include "axis_env.hpp"
#include "retag.hpp"

namespace nax {

// Tags for the tiled variants of all_gather and psum_scatter.
struct tiled_t {
  explicit tiled_t() = default;
};
inline constexpr tiled_t tiled{};

namespace detail {

// The axis that an untiled all_gather creates before a tiled one merges it away.
template <class N>
struct gathered_axis : axis_tag {
  static constexpr const char* axis_label() { return "gathered"; }
};

// xmap may bind several logical axes to one mesh axis (attention heads and MLP units both
// split over `model`), but a value that varies over two of them holds only the diagonal
// blocks of their product: its collective over one of them would combine different
// members of the other. Refused at run time, naming both axes.
template <class N, class E>
void require_one_axis_on_communicator(const axis_binding& b) {
  if (!b.comm) return;
  [&]<class... As>(axes<As...>) {
    auto check = [&]<class A>(std::type_identity<A>) {
      if constexpr (!std::is_same_v<A, N>) {
        const axis_binding* other = find_binding<A>();
        if (other && other->comm == b.comm)
          throw argument_error("nax: a collective over '" + std::string(axis_name<N>()) +
                               "' of a value that also varies over '" + std::string(axis_name<A>()) +
                               "': xmap binds both to one mesh axis, so each device holds only its own block of both "
                               "and the collective would mix members of '" +
                               std::string(axis_name<A>()) + "'. Reduce over '" + std::string(axis_name<A>()) +
                               "' first, or bind the two axes to different mesh axes");
      }
    };
    (check(std::type_identity<As>{}), ...);
  }(hidden_t<E>{});
}

template <class Op, class N, class E>
auto reduce_over_mapped(E e) {
  const axis_binding& b = binding_of<N>();
  if constexpr (contains_v<N, hidden_t<E>>) {
    require_one_axis_on_communicator<N, E>(b);
    using R = Reduce<Op, E, N>;
    return mark_unbound<N>(CommCollective<R, all_reduce_kind<Op>, N>(R(std::move(e)), b.comm, b.global_extent));
  } else if constexpr (std::is_same_v<Op, sum_op>) {
    // A value that does not vary over N is summed N times (jax.lax.psum of a replicated operand).
    using T = accumulate_t<typename E::value_type>;
    return mark_unbound<N>(make_map<fn::cast_to<T>>(std::move(e)) * static_cast<T>(b.global_extent));
  } else {
    return mark_unbound<N>(std::move(e));
  }
}

// E with N mapped: as it is if it varies over N, else broadcast over N's local part.
template <class N, class E>
auto ensure_mapped(E e) {
  if constexpr (contains_v<N, hidden_t<E>>) {
    return e;
  } else {
    const axis_binding& b = binding_of<N>();
    using Out = concat_t<typename E::axes_type, axes<N>>;
    auto r = by_name_relayout<Out, E, concat_t<hidden_t<E>, axes<N>>>(std::move(e));
    r.extents_ = [&]<class... As>(axes<As...>) {
      return std::array<index_t, Out::size>{(std::is_same_v<As, N> ? b.local_extent : extent_of<As>(r.child))...};
    }(Out{});
    return r;
  }
}

// E with mapped axis N complete on every device (all-gathered over the mesh if bound to one).
template <class N, class E>
auto gather_mapped(E e) {
  const axis_binding& b = binding_of<N>();
  require_one_axis_on_communicator<N, E>(b);
  return CommCollective<E, all_gather_kind, N>(std::move(e), b.comm, b.global_extent, b.offset);
}

// The sum of e over the members of N (e varies over it), each device keeping its block of
// the visible axis Axis: a reduce-scatter over the mesh axis's communicator (the local sum of
// this device's members first). block: the elements of Axis one member keeps.
template <class N, class Axis, class E>
auto reduce_scatter_mapped(E e, index_t block) {
  const axis_binding& b = binding_of<N>();
  require_one_axis_on_communicator<N, E>(b);
  using R = Reduce<sum_op, E, N>;
  R r(std::move(e));
  const index_t kept = b.comm ? block * b.local_extent : extent_of<Axis>(r);
  return mark_unbound<N>(
      CommCollective<R, reduce_scatter_kind<sum_op>, Axis>(std::move(r), b.comm, kept, b.offset * block));
}

// This device's part of a mapped axis N that holds every member.
template <class N, class E>
auto own_part(E e) {
  const axis_binding& b = binding_of<N>();
  return narrow_axis<N>(std::move(e), b.offset, b.local_extent);
}

template <class A>
void check_member_extent(const char* what, index_t extent, index_t members, const char* axis_role) {
  if (extent != members)
    throw shape_error(std::string("nax: ") + what + ": the " + axis_role + " axis '" + std::string(axis_name<A>()) +
                      "' has extent " + std::to_string(extent) + ", the mapped axis has " + std::to_string(members) +
                      " members");
}

}  // namespace detail

// Sum over the members of the mapped axes Ns... (all of them see the result).
template <class... Ns, class X>
  requires array_like<X> && (sizeof...(Ns) >= 1)
auto psum(X&& x) {
  auto e = detail::as_expr(std::forward<X>(x));
  if constexpr (sizeof...(Ns) == 1) {
    return detail::reduce_over_mapped<detail::sum_op, Ns...>(std::move(e));
  } else {
    return [&]<class N, class... Rest>(axes<N, Rest...>) {
      return psum<Rest...>(detail::reduce_over_mapped<detail::sum_op, N>(std::move(e)));
    }(axes<Ns...>{});
  }
}

template <class... Ns, class X>
  requires array_like<X> && (sizeof...(Ns) >= 1)
auto pmax(X&& x) {
  auto e = detail::as_expr(std::forward<X>(x));
  if constexpr (sizeof...(Ns) == 1) {
    return detail::reduce_over_mapped<detail::max_op, Ns...>(std::move(e));
  } else {
    return [&]<class N, class... Rest>(axes<N, Rest...>) {
      return pmax<Rest...>(detail::reduce_over_mapped<detail::max_op, N>(std::move(e)));
    }(axes<Ns...>{});
  }
}

template <class... Ns, class X>
  requires array_like<X> && (sizeof...(Ns) >= 1)
auto pmin(X&& x) {
  auto e = detail::as_expr(std::forward<X>(x));
  if constexpr (sizeof...(Ns) == 1) {
    return detail::reduce_over_mapped<detail::min_op, Ns...>(std::move(e));
  } else {
    return [&]<class N, class... Rest>(axes<N, Rest...>) {
      return pmin<Rest...>(detail::reduce_over_mapped<detail::min_op, N>(std::move(e)));
    }(axes<Ns...>{});
  }
}

// The number of members of the mapped axes Ns... (a rank-0 int32 expression).
template <class... Ns>
  requires(sizeof...(Ns) >= 1)
auto axis_size() {
  index_t n = (index_t{1} * ... * detail::binding_of<Ns>().global_extent);
  detail::Scalar<std::int32_t> s{{}, static_cast<std::int32_t>(n)};
  return detail::positional_relayout<detail::identity_kind, axes<>, decltype(s), axes<>, axes<Ns...>>(s);
}

// Mean over the members of Ns..., in floating point.
template <class... Ns, class X>
  requires array_like<X> && (sizeof...(Ns) >= 1)
auto pmean(X&& x) {
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  index_t n = (index_t{1} * ... * detail::binding_of<Ns>().global_extent);
  return psum<Ns...>(cast<T>(std::forward<X>(x))) * (T(1) / static_cast<T>(n));
}

// This member's index along the mapped axis N (int32); with several names, the row-major
// index over them (axis_index<i, j> = i * size(j) + j).
template <class N, class... More>
  requires(sizeof...(More) >= 0)
auto axis_index() {
  if constexpr (sizeof...(More) == 0) {
    const detail::axis_binding& b = detail::binding_of<N>();
    auto local = detail::hide_axis<N>(detail::AxisIndex<N, std::int32_t>{{}, {b.local_extent}});
    return detail::mark_unbound<N>(local + static_cast<std::int32_t>(b.offset));
  } else {
    index_t inner = (index_t{1} * ... * detail::binding_of<More>().global_extent);
    return axis_index<N>() * static_cast<std::int32_t>(inner) + axis_index<More...>();
  }
}

// Every member's value, stacked along a new visible axis NewAxis (untiled), or
// concatenated along the existing visible axis NewAxis (tiled).
template <class N, class NewAxis, class X>
  requires array_like<X>
auto all_gather(X&& x) {
  using E = detail::expr_t<X>;
  static_assert(detail::require_axis_absent<NewAxis, typename E::axes_type>::value);
  auto mapped = detail::ensure_mapped<N>(detail::as_expr(std::forward<X>(x)));
  auto gathered = detail::gather_mapped<N>(std::move(mapped));
  return detail::mark_unbound<N>(detail::reveal_axis<NewAxis, 0>(detail::rename_axis<N, NewAxis>(std::move(gathered))));
}
template <class N, class Axis, class X>
  requires array_like<X>
auto all_gather(X&& x, tiled_t) {
  using E = detail::expr_t<X>;
  static_assert(detail::require_axis_present<Axis, detail::visible_t<E>>::value);
  return merge<detail::gathered_axis<N>, Axis, Axis>(all_gather<N, detail::gathered_axis<N>>(std::forward<X>(x)));
}

// psum, then member i keeps element i of visible axis Axis (whose extent must equal the
// number of members); Axis is removed (untiled) or keeps its i-th block (tiled). Over a mesh
// axis a value that varies over N is one reduce-scatter (each device receives only its
// block); a value that does not is psum'd locally (N times it) and this device's part kept.
template <class N, class Axis, class X>
  requires array_like<X>
auto psum_scatter(X&& x) {
  using E = detail::expr_t<X>;
  static_assert(detail::require_axis_present<Axis, detail::visible_t<E>>::value);
  const detail::axis_binding& b = detail::binding_of<N>();
  auto e = detail::as_expr(std::forward<X>(x));
  detail::check_member_extent<Axis>("psum_scatter", detail::extent_of<Axis>(e), b.global_extent, "scattered");
  if constexpr (detail::contains_v<N, detail::hidden_t<E>>) {
    auto kept = detail::reduce_scatter_mapped<N, Axis>(std::move(e), 1);
    return detail::hide_axis<N>(detail::rename_axis<Axis, N>(std::move(kept)));
  } else {
    auto total = psum<N>(std::move(e));
    return detail::own_part<N>(detail::hide_axis<N>(detail::rename_axis<Axis, N>(std::move(total))));
  }
}
template <class N, class Axis, class X>
  requires array_like<X>
auto psum_scatter(X&& x, tiled_t) {
  using E = detail::expr_t<X>;
  static_assert(detail::require_axis_present<Axis, detail::visible_t<E>>::value);
  const detail::axis_binding& b = detail::binding_of<N>();
  auto e = detail::as_expr(std::forward<X>(x));
  index_t extent = detail::extent_of<Axis>(e);
  if (b.global_extent == 0 || extent % b.global_extent != 0)
    throw shape_error("nax: psum_scatter (tiled): the axis '" + std::string(axis_name<Axis>()) + "' has extent " +
                      std::to_string(extent) + ", not a multiple of the " + std::to_string(b.global_extent) +
                      " members of the mapped axis");
  const index_t block = extent / b.global_extent;
  if constexpr (detail::contains_v<N, detail::hidden_t<E>>) {
    auto kept = detail::reduce_scatter_mapped<N, Axis>(std::move(e), block);
    return detail::hide_axis<N>(split<Axis, N, Axis>(std::move(kept), block));
  } else {
    auto blocks = split<Axis, N, Axis>(psum<N>(std::move(e)), block);
    return detail::own_part<N>(detail::hide_axis<N>(std::move(blocks)));
  }
}

namespace detail {
// source[d] = the member whose value member d receives (-1: none), checked as JAX checks.
template <class N>
std::vector<index_t> permutation_sources(const std::vector<std::pair<int, int>>& perm, index_t members) {
  std::vector<index_t> source(static_cast<std::size_t>(members), -1);
  std::set<int> sources;
  for (auto [src, dst] : perm) {
    const std::string pair = pair_text({src, dst});
    if (src < 0 || dst < 0 || src >= members || dst >= members)
      throw argument_error("nax: ppermute over '" + std::string(axis_name<N>()) + "': pair " + pair +
                           " names a member outside 0.." + std::to_string(members - 1));
    if (!sources.insert(src).second)
      throw argument_error("nax: ppermute over '" + std::string(axis_name<N>()) + "': source " +
                           std::to_string(src) + " appears twice (pair " + pair + ")");
    if (source[static_cast<std::size_t>(dst)] >= 0)
      throw argument_error("nax: ppermute over '" + std::string(axis_name<N>()) + "': destination " +
                           std::to_string(dst) + " appears twice (pair " + pair + ")");
    source[static_cast<std::size_t>(dst)] = src;
  }
  return source;
}
}  // namespace detail

// Member dst receives member src's value for each (src, dst) pair; the others receive zeros.
// Over a mesh axis each member's value crosses the mesh once, by the communicator's permute.
template <class N, class X>
  requires array_like<X>
auto ppermute(X&& x, const std::vector<std::pair<int, int>>& perm) {
  const detail::axis_binding& b = detail::binding_of<N>();
  auto source = detail::permutation_sources<N>(perm, b.global_extent);
  auto mapped = detail::ensure_mapped<N>(detail::as_expr(std::forward<X>(x)));
  detail::require_one_axis_on_communicator<N, decltype(mapped)>(b);
  detail::Permute<decltype(mapped), N> permuted{{}, std::move(mapped), std::move(source), b.comm, b.comm ? b.offset : 0};
  return detail::mark_unbound<N>(std::move(permuted));
}

// Member i's block j of visible axis Split goes to member j, which finds it at index i of
// the new visible axis Concat (jax.lax.all_to_all, untiled: Split's extent equals the
// number of members and is removed; Concat takes its place). Over a mesh axis, one
// all-to-all of the communicator: each device sends each other device only its blocks.
template <class N, class Split, class Concat, class X>
  requires array_like<X>
auto all_to_all(X&& x) {
  using E = detail::expr_t<X>;
  static_assert(detail::require_axis_present<Split, detail::visible_t<E>>::value);
  static_assert(detail::require_axis_absent<Concat, detail::difference_t<typename E::axes_type, axes<Split>>>::value);
  const detail::axis_binding& b = detail::binding_of<N>();
  auto mapped = detail::ensure_mapped<N>(detail::as_expr(std::forward<X>(x)));
  detail::require_one_axis_on_communicator<N, decltype(mapped)>(b);
  detail::check_member_extent<Split>("all_to_all", detail::extent_of<Split>(mapped), b.global_extent, "split");
  detail::AllToAll<decltype(mapped), N, Split, Concat> swapped{{}, std::move(mapped), b.comm};
  return detail::mark_unbound<N>(std::move(swapped));
}

}  // namespace nax
