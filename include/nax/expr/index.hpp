// Indexing by integer arrays: take (gather along a named axis, with the index array's axes in
// its place), take_along, one_hot, and scatter (add, set, max, min) into a named axis. Index
// arrays broadcast by name like every operand: an axis the index array shares with x picks
// one index per position of that axis (take_along_axis), an axis only the index array has is
// added to the result (an embedding lookup adds the token axes).
//
// Out-of-range indices (index_mode), as JAX defines them: clip (a negative index counts from
// the end, then indices are clamped into the axis, and the gradient goes where the value was
// read: take_along_axis(mode="clip"); JAX's `x[idx]` reads the same values but drops the
// gradient of out-of-range indices; the default of take), fill (out-of-range reads give a fill value, NaN for floats, as jnp.take's
// default; scatters drop such updates, as `x.at[idx].add(u)`: the default of the scatters),
// wrap (modulo the extent, as mode="wrap") and checked (raises nax::argument_error naming the
// index, its position and the extent). Along an axis of extent 0 only fill mode is defined
// (every read gives the fill value, every update is dropped); the others raise shape_error.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../core/config.hpp"
#include "../core/pack.hpp"
#include "axis_index.hpp"
#include "leaves.hpp"
#include "relayout.hpp"
#include "math.hpp"
#include "node.hpp"

namespace nax {

enum class index_mode : std::uint8_t { clip, fill, wrap, checked };

namespace detail {

// The position along an axis of extent n (> 0) that raw names under mode, or -1 when it
// names none (fill mode, out of range). Checked indices were verified before the pass;
// they are clamped here as well, so no pass can ever read outside the axis.
template <class I>
NAX_HOST_DEVICE inline index_t resolve_index(I raw, index_t n, index_mode mode) {
  index_t k;
  if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(index_t)) {
    if (raw > static_cast<I>(std::numeric_limits<index_t>::max())) {
      if (mode == index_mode::wrap) return static_cast<index_t>(raw % static_cast<I>(n));
      k = n;  // too large for any axis
    } else {
      k = static_cast<index_t>(raw);
    }
  } else {
    k = static_cast<index_t>(raw);
  }
  if (mode == index_mode::wrap) {
    k %= n;
    return k < 0 ? k + n : k;
  }
  if (k < 0) k += n;
  if (k >= 0 && k < n) return k;
  if (mode == index_mode::fill) return -1;
  return k < 0 ? 0 : n - 1;
}

// jnp.take's fill value for mode="fill": NaN for floating point, the smallest value of a
// signed integer, the largest of an unsigned one, true for bool.
template <class T>
T default_fill() {
  if constexpr (std::is_same_v<T, bool>) return true;
  else if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::quiet_NaN();
  else if constexpr (std::is_signed_v<T>) return std::numeric_limits<T>::lowest();
  else return std::numeric_limits<T>::max();
}

// L with A replaced by the axes of Insert (in their order).
template <class L, class A, class Insert>
struct replace_by_list;
template <class... Ls, class A, class... Is>
struct replace_by_list<axes<Ls...>, A, axes<Is...>> {
  using type = tuple_to_axes_t<decltype(std::tuple_cat(
      std::conditional_t<std::is_same_v<Ls, A>, std::tuple<Is...>, std::tuple<Ls>>{}...))>;
};

// The axes of take<A>(x, idx): x's, with A replaced by idx's axes that x does not have
// otherwise (an idx axis shared with x picks per position of that axis).
template <class XA, class A, class IA>
using take_axes_t = typename replace_by_list<XA, A, difference_t<IA, difference_t<XA, axes<A>>>>::type;

template <class I>
struct require_integer_indices {
  static_assert(std::is_integral_v<I> && !std::is_same_v<I, bool>,
                "nax: take and scatter need an index array of an integer type (I); cast it with "
                "nax::cast<std::int32_t>");
  static constexpr bool value = true;
};

template <class A, class IndexAxes, class SourceAxes>
struct require_indices_along {
  static_assert(difference_t<IndexAxes, SourceAxes>::size == 0,
                "nax: take_along<A>(x, idx) needs every axis of idx among x's (IndexAxes, SourceAxes): one index "
                "per position of x's other axes; use take<A> to add axes");
  static constexpr bool value = true;
};

template <class UpdateAxes, class TakeAxes>
struct require_update_axes {
  static_assert(same_set_v<UpdateAxes, TakeAxes>,
                "nax: scatter<A>(x, idx, updates) needs updates with the axes of take<A>(x, idx) (UpdateAxes, "
                "TakeAxes): x's other axes and idx's axes");
  static constexpr bool value = true;
};

// An operand that must be in memory before a pass reads it at computed positions (take's
// source): the backend evaluates it once per evaluation (memo by id) into a strided leaf.
template <class C>
struct Stored : node_interface<Stored<C>> {
  using child_type = C;
  using axes_type = typename C::axes_type;
  using value_type = typename C::value_type;
  using hidden_type = hidden_t<C>;
  using unbound_type = unbound_t<C>;
  C child;
  std::uint64_t id = next_node_id();
  decltype(auto) extents() const { return child.extents(); }
};

// x (a leaf of either memory space, or anything else Stored) read along A at idx. Lowered
// into the consuming pass (lower/gather.hpp): the gather is fused, never stored.
template <class X, class I, class A>
struct Take : node_interface<Take<X, I, A>> {
  using source_type = X;
  using index_type = I;
  using axis = A;
  using axes_type = take_axes_t<typename X::axes_type, A, typename I::axes_type>;
  using value_type = typename X::value_type;
  using hidden_type = union_t<hidden_t<X>, hidden_t<I>>;
  using unbound_type = union_t<unbound_t<X>, unbound_t<I>>;
  static constexpr std::size_t rank = axes_type::size;

  X a;  // the source (a and b: the leaf walks visit both)
  I b;  // the indices
  index_mode mode = index_mode::clip;
  value_type fill{};
  std::array<index_t, rank> extents_{};

  Take(X x, I idx, index_mode m, value_type f) : a(std::move(x)), b(std::move(idx)), mode(m), fill(f) {
    using XA = typename X::axes_type;
    using IA = typename I::axes_type;
    [&]<class... Ss>(axes<Ss...>) {
      (check_same_extent<Ss>(extent_of<Ss>(a), extent_of<Ss>(b), "the source", "the indices"), ...);
    }(intersection_t<difference_t<XA, axes<A>>, IA>{});
    [&]<class... Os>(axes<Os...>) {
      extents_ = {[&]() -> index_t {
        if constexpr (contains_v<Os, IA>) return extent_of<Os>(b);
        else return extent_of<Os>(a);
      }()...};
    }(axes_type{});
    index_t count = 1;
    for (index_t e : extents_) count *= e;  // each extent is one of the operands'
    // Under fill mode every index of an empty axis is out of range and reads the fill value
    // (a constant pad of an empty axis); the other modes would have to read something.
    if (count != 0 && extent_of<A>(a) == 0 && mode != index_mode::fill)
      throw shape_error("nax: take along axis '" + std::string(axis_name<A>()) +
                        "' of extent 0 with a non-empty index array: there is nothing to take");
  }
  const std::array<index_t, rank>& extents() const { return extents_; }
};

// Scatter ops: what an update does to the element it lands on (duplicates combine in turn).
struct scatter_add_op {
  static constexpr const char* name = "scatter_add";
  template <class T>
  NAX_HOST_DEVICE static void apply(T& to, T v) {
    to = static_cast<T>(to + v);
  }
};
struct scatter_set_op {
  static constexpr const char* name = "scatter";
  template <class T>
  NAX_HOST_DEVICE static void apply(T& to, T v) {
    to = v;
  }
};
struct scatter_max_op {
  static constexpr const char* name = "scatter_max";
  template <class T>
  NAX_HOST_DEVICE static void apply(T& to, T v) {
    if (v > to || v != v) to = v;  // NaN propagates, as jnp's max
  }
};
struct scatter_min_op {
  static constexpr const char* name = "scatter_min";
  template <class T>
  NAX_HOST_DEVICE static void apply(T& to, T v) {
    if (v < to || v != v) to = v;
  }
};

// x with updates applied at idx along A (materialised: the backend copies x, then scatters).
// The result's axes are x's, plus the mapped axes of idx and updates that x lacks (inside
// vmap each member scatters its own updates into its own copy).
template <class Op, class X, class I, class U, class A>
struct Scatter : node_interface<Scatter<Op, X, I, U, A>> {
  using op = Op;
  using axis = A;
  using axes_type = union_t<typename X::axes_type, hidden_t<I>, hidden_t<U>>;
  using value_type = typename X::value_type;
  using hidden_type = union_t<hidden_t<X>, hidden_t<I>, hidden_t<U>>;
  using unbound_type = union_t<unbound_t<X>, unbound_t<I>, unbound_t<U>>;
  static constexpr std::size_t rank = axes_type::size;

  pack<X, I, U> children;
  index_mode mode = index_mode::clip;
  std::array<index_t, rank> extents_{};
  std::uint64_t id = next_node_id();

  Scatter(X x, I idx, U updates, index_mode m) : children{{std::move(x)}, {std::move(idx)}, {std::move(updates)}}, mode(m) {
    const auto& xs = get<0>(children);
    const auto& is = get<1>(children);
    const auto& us = get<2>(children);
    using TA = take_axes_t<typename X::axes_type, A, typename I::axes_type>;
    [&]<class... Ss>(axes<Ss...>) {
      (check_same_extent<Ss>(extent_of<Ss>(xs), extent_of<Ss>(is), "the operand", "the indices"), ...);
    }(intersection_t<difference_t<typename X::axes_type, axes<A>>, typename I::axes_type>{});
    [&]<class... Ts>(axes<Ts...>) {
      (check_same_extent<Ts>(extent_of<Ts>(us), take_extent<Ts>(xs, is), "the updates", "take<A>(x, idx)"), ...);
    }(intersection_t<TA, typename U::axes_type>{});
    [&]<class... Os>(axes<Os...>) {
      extents_ = {[&]() -> index_t {
        if constexpr (contains_v<Os, typename X::axes_type>) return extent_of<Os>(xs);
        else if constexpr (contains_v<Os, typename I::axes_type>) return extent_of<Os>(is);
        else return extent_of<Os>(us);
      }()...};
    }(axes_type{});
    index_t count = 1;
    for (index_t e : us.extents()) count *= e;
    if (count != 0 && extent_of<A>(xs) == 0 && mode != index_mode::fill)  // fill: every update is dropped
      throw shape_error(std::string("nax: ") + Op::name + " into axis '" + std::string(axis_name<A>()) +
                        "' of extent 0 with non-empty updates: there is nowhere to put them");
  }
  const std::array<index_t, rank>& extents() const { return extents_; }

 private:
  template <class Ax, class XS, class IS>
  static index_t take_extent(const XS& xs, const IS& is) {
    if constexpr (contains_v<Ax, typename I::axes_type>) return extent_of<Ax>(is);
    else return extent_of<Ax>(xs);
  }
};

template <class E>
inline constexpr bool is_scatter_v = false;
template <class Op, class X, class I, class U, class A>
inline constexpr bool is_scatter_v<Scatter<Op, X, I, U, A>> = true;

template <class E>
inline constexpr bool is_stored_v = false;
template <class C>
inline constexpr bool is_stored_v<Stored<C>> = true;

template <class E>
auto stored(E e) {
  if constexpr (leaf_node<E> || is_stored_v<E>) return e;
  else return Stored<E>{{}, std::move(e)};
}

template <class A, class X, class Idx>
auto make_take(X&& x, Idx&& idx, index_mode mode, const typename expr_t<X>::value_type& fill) {
  using E = expr_t<X>;
  using I = expr_t<Idx>;
  static_assert(require_axis_present<A, visible_t<E>>::value);
  static_assert(require_integer_indices<typename I::value_type>::value);
  auto source = stored(as_expr(std::forward<X>(x)));
  return Take<decltype(source), I, A>(std::move(source), as_expr(std::forward<Idx>(idx)), mode, fill);
}

template <class Op, class A, class X, class Idx, class Upd>
auto make_scatter(X&& x, Idx&& idx, Upd&& updates, index_mode mode) {
  using E = expr_t<X>;
  using I = expr_t<Idx>;
  using U = expr_t<Upd>;
  static_assert(require_axis_present<A, visible_t<E>>::value);
  static_assert(require_integer_indices<typename I::value_type>::value);
  static_assert(require_update_axes<visible_t<U>, take_axes_t<visible_t<E>, A, visible_t<I>>>::value);
  static_assert(require_no_narrowing<typename E::value_type, typename U::value_type>::value);
  return Scatter<Op, E, I, U, A>(as_expr(std::forward<X>(x)), as_expr(std::forward<Idx>(idx)),
                                 as_expr(std::forward<Upd>(updates)), mode);
}

}  // namespace detail

// x read along axis A at the positions idx holds: the result has x's other axes and idx's
// axes in A's place (an axis idx shares with x picks one index per position of it).
// take<vocab>(table, tokens) is an embedding lookup. fill: the value of out-of-range reads
// under index_mode::fill (jnp.take's default for the type when not given).
template <class A, class X, class Idx>
  requires array_like<X> && array_like<Idx>
auto take(X&& x, Idx&& idx, index_mode mode = index_mode::clip) {
  using T = typename detail::expr_t<X>::value_type;
  return detail::make_take<A>(std::forward<X>(x), std::forward<Idx>(idx), mode, detail::default_fill<T>());
}
template <class A, class X, class Idx>
  requires array_like<X> && array_like<Idx>
auto take(X&& x, Idx&& idx, index_mode mode, const typename detail::expr_t<X>::value_type& fill) {
  return detail::make_take<A>(std::forward<X>(x), std::forward<Idx>(idx), mode, fill);
}

// take<A>(x, i): the slice at position i of axis A, with A removed (numpy's x[..., i, ...]),
// for a run-time loop over a stacked axis (a model's layers). An i outside [0, extent of A)
// raises nax::shape_error naming the axis: no mode, as a C++ index is never meant to wrap.
template <class A, class X, std::integral I>
  requires array_like<X>
auto take(X&& x, I i) {
  using E = detail::expr_t<X>;
  static_assert(detail::require_axis_present<A, detail::visible_t<E>>::value);
  auto e = detail::as_expr(std::forward<X>(x));
  const index_t n = detail::extent_of<A>(e);
  if (std::cmp_less(i, 0) || std::cmp_greater_equal(i, n))
    throw shape_error("nax: take<" + std::string(axis_name<A>()) + ">(x, " + std::to_string(i) +
                      "): the index is outside the axis '" + std::string(axis_name<A>()) + "' of extent " +
                      std::to_string(n));
  // A relayout, not a gather: lowering folds the position into the leaves' offsets, so the
  // slice is read as plain strided memory (vectorised), where a gather resolved the index at
  // every element.
  using CA = typename E::axes_type;
  using Out = detail::difference_t<CA, axes<A>>;
  detail::Relayout<E, detail::position_kind<A>, Out> r{{}, std::move(e)};
  [&]<class... Os>(axes<Os...>) {
    std::size_t k = 0;
    ((r.coef[detail::index_of_v<Os, CA>][k] = 1, r.extents_[k] = detail::extent_of<Os>(r.child), ++k), ...);
  }(Out{});
  r.offset[detail::index_of_v<A, CA>] = static_cast<index_t>(i);
  return r;
}

// take_along_axis: idx's axes are among x's; each position of them reads x along A at its
// index. Without A, idx picks one element per position of x's other axes (a label's
// log-probability); with A (of any extent), the result keeps A with idx's extent.
template <class A, class X, class Idx>
  requires array_like<X> && array_like<Idx>
auto take_along(X&& x, Idx&& idx, index_mode mode = index_mode::clip) {
  using E = detail::expr_t<X>;
  static_assert(detail::require_indices_along<A, detail::visible_t<detail::expr_t<Idx>>, detail::visible_t<E>>::value);
  return take<A>(std::forward<X>(x), std::forward<Idx>(idx), mode);
}

// One-hot encoding along a new axis A of extent n: 1 where A's index equals idx, else 0
// (an index outside [0, n), negative ones included, gives a row of zeros, as jax.nn.one_hot).
template <class A, class T = float, class Idx>
  requires array_like<Idx>
auto one_hot(Idx&& idx, index_t n) {
  using I = detail::expr_t<Idx>;
  static_assert(detail::require_integer_indices<typename I::value_type>::value);
  static_assert(detail::require_axis_absent<A, typename I::axes_type>::value);
  return cast<T>(detail::as_expr(std::forward<Idx>(idx)) == axis_index<A, std::int64_t>(n));
}

// x with updates added at idx along A (duplicates accumulate): the adjoint of take.
// updates have the axes of take<A>(x, idx). Out-of-range updates are dropped unless a mode
// says otherwise (index_mode::fill, JAX's default for scatters).
template <class A, class X, class Idx, class Upd>
  requires array_like<X> && array_like<Idx> && array_like<Upd>
auto scatter_add(X&& x, Idx&& idx, Upd&& updates, index_mode mode = index_mode::fill) {
  return detail::make_scatter<detail::scatter_add_op, A>(std::forward<X>(x), std::forward<Idx>(idx),
                                                        std::forward<Upd>(updates), mode);
}
// x with updates written at idx along A (x.at[idx].set(updates)); of duplicate indices one
// update wins, which one is unspecified (as in JAX).
template <class A, class X, class Idx, class Upd>
  requires array_like<X> && array_like<Idx> && array_like<Upd>
auto scatter(X&& x, Idx&& idx, Upd&& updates, index_mode mode = index_mode::fill) {
  return detail::make_scatter<detail::scatter_set_op, A>(std::forward<X>(x), std::forward<Idx>(idx),
                                                        std::forward<Upd>(updates), mode);
}
template <class A, class X, class Idx, class Upd>
  requires array_like<X> && array_like<Idx> && array_like<Upd>
auto scatter_max(X&& x, Idx&& idx, Upd&& updates, index_mode mode = index_mode::fill) {
  return detail::make_scatter<detail::scatter_max_op, A>(std::forward<X>(x), std::forward<Idx>(idx),
                                                        std::forward<Upd>(updates), mode);
}
template <class A, class X, class Idx, class Upd>
  requires array_like<X> && array_like<Idx> && array_like<Upd>
auto scatter_min(X&& x, Idx&& idx, Upd&& updates, index_mode mode = index_mode::fill) {
  return detail::make_scatter<detail::scatter_min_op, A>(std::forward<X>(x), std::forward<Idx>(idx),
                                                        std::forward<Upd>(updates), mode);
}

}  // namespace nax
