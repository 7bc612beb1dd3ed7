// Layouts whose element i along an axis A is the operand's element at a position computed
// from i: flip, roll, pad (a constant, or edge, reflect, symmetric and wrap), tile, repeat,
// dynamic_slice and dynamic_update_slice. Each is take<A>(x, positions) with the positions an
// integer expression of axis_index<A> (int64): one fused gather on either backend, take's
// gradient (a scatter-add, so positions read twice, as pad's edges and tile's copies are,
// sum their cotangents), and take's behaviour under vmap, xmap and grad(grad). A start that
// varies over a mapped axis (dynamic_slice inside vmap) gives each member its own window.
// Names and semantics are jnp's and lax's, with the axis named instead of numbered.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "index.hpp"
#include "math.hpp"
#include "relayout.hpp"

namespace nax {

// jnp.pad's modes that read the operand (a number instead of a mode pads with that constant).
// For an axis 0 1 2 padded by 2 on each side:
//   edge       0 0 | 0 1 2 | 2 2      (the end values repeated)
//   reflect    2 1 | 0 1 2 | 1 0      (mirrored about the end values, which are not repeated)
//   symmetric  1 0 | 0 1 2 | 2 1      (mirrored about the edges, end values repeated)
//   wrap       1 2 | 0 1 2 | 0 1      (periodic)
// Pads wider than the axis continue the pattern, as numpy's and JAX's.
enum class pad_mode : std::uint8_t { edge, reflect, symmetric, wrap };

namespace detail {

inline std::string axis_text(std::string_view name) { return "'" + std::string(name) + "'"; }

// n * reps, or a shape_error naming the op and the axis when it overflows index_t.
template <class A>
index_t repeated_extent(index_t n, index_t reps, const char* op) {
  if (reps < 0)
    throw shape_error(std::string("nax: ") + op + "<" + std::string(axis_name<A>()) + "> with " +
                      std::to_string(reps) + " repetitions: the count must not be negative");
  if (n != 0 && reps > std::numeric_limits<index_t>::max() / n)
    throw shape_error(std::string("nax: size overflow in ") + op + " along axis " + axis_text(axis_name<A>()) +
                      ": " + std::to_string(n) + " times " + std::to_string(reps));
  return n * reps;
}

// n + before + after, the extent of a padded axis, or a shape_error (negative pads, overflow).
template <class A>
index_t padded_extent(index_t n, index_t before, index_t after) {
  if (before < 0 || after < 0)
    throw shape_error("nax: pad<" + std::string(axis_name<A>()) + "> by " + std::to_string(before) + " and " +
                      std::to_string(after) + ": pads must not be negative (slice to cut elements off)");
  if (before > std::numeric_limits<index_t>::max() - n || after > std::numeric_limits<index_t>::max() - n - before)
    throw shape_error("nax: size overflow in pad along axis " + axis_text(axis_name<A>()));
  return n + before + after;
}

// x as an expression, after checking at compile time that A is one of its visible axes.
template <class A, class X>
auto along(X&& x) {
  static_assert(require_axis_present<A, visible_t<expr_t<X>>>::value);
  return as_expr(std::forward<X>(x));
}

// The operand read along A at positions (in [0, n) wherever an element is read).
template <class A, class X, class P>
auto gather_positions(X&& x, P&& positions) {
  using T = typename expr_t<X>::value_type;
  return make_take<A>(std::forward<X>(x), std::forward<P>(positions), index_mode::clip, T{});
}

// start clamped so that a window of `size` fits an axis of extent n (lax's dynamic_slice rule),
// as an int64 expression; start is a C++ integer or an integer expression (mapped or not).
template <class A, class S>
auto clamped_start(S&& start, index_t n, index_t size, const char* op) {
  if (size < 0 || size > n)
    throw shape_error(std::string("nax: ") + op + " of size " + std::to_string(size) + " along axis " +
                      axis_text(axis_name<A>()) + " of extent " + std::to_string(n) +
                      ": the window must fit the axis");
  // A negative start counts from the end first, as lax's (allow_negative_indices=True).
  if constexpr (std::is_integral_v<std::remove_cvref_t<S>>) {
    if (std::cmp_greater(start, std::numeric_limits<index_t>::max()))
      return Scalar<index_t>{{}, n - size};
    index_t s = static_cast<index_t>(start);
    if (s < 0) s = s < -n ? 0 : s + n;
    return Scalar<index_t>{{}, s > n - size ? n - size : s};
  } else {
    static_assert(require_integer_indices<typename expr_t<S>::value_type>::value);
    static_assert(visible_t<expr_t<S>>::size == 0,
                  "nax: dynamic_slice and dynamic_update_slice take a start with no axes of its own (a number, "
                  "or a rank-0 array; inside vmap it may vary over the mapped axis)");
    auto s = cast<index_t>(std::forward<S>(start));
    return minimum(maximum(where(s < index_t(0), s + n, s), index_t(0)), n - size);
  }
}

}  // namespace detail

// x with the order of axis A reversed (jnp.flip(x, axis)).
template <class A, class X>
  requires array_like<X>
auto flip(X&& x) {
  auto e = detail::along<A>(std::forward<X>(x));
  const index_t n = detail::extent_of<A>(e);
  return detail::gather_positions<A>(std::move(e), (n - 1) - axis_index<A, index_t>(n));
}

// x shifted by `shift` positions along A, elements leaving one end entering at the other
// (jnp.roll(x, shift, axis): result[i] = x[(i - shift) mod n]); a negative shift rolls back.
template <class A, class X>
  requires array_like<X>
auto roll(X&& x, index_t shift) {
  auto e = detail::along<A>(std::forward<X>(x));
  const index_t n = detail::extent_of<A>(e);
  const index_t s = n == 0 ? 0 : ((shift % n) + n) % n;
  return detail::gather_positions<A>(std::move(e), remainder(axis_index<A, index_t>(n) + (n - s), n));
}

// x with `before` and `after` elements of `value` added at the ends of axis A (jnp.pad's
// constant mode; the padding has no gradient).
template <class A, class X, class V = typename detail::expr_t<X>::value_type>
  requires array_like<X> && element<V>
auto pad(X&& x, index_t before, index_t after, V value = V(0)) {
  using T = typename detail::expr_t<X>::value_type;
  auto e = detail::along<A>(std::forward<X>(x));
  const index_t n = detail::extent_of<A>(e);
  const index_t m = detail::padded_extent<A>(n, before, after);
  // The padding reads position n, outside the axis (fill mode would count a negative one from
  // the end).
  auto j = axis_index<A, index_t>(m) - before;
  return detail::make_take<A>(std::move(e), where(j >= index_t(0), j, n), index_mode::fill, static_cast<T>(value));
}

// x with `before` and `after` elements added at the ends of axis A, read from x by `mode`
// (jnp.pad's edge, reflect, symmetric and wrap). An empty axis cannot be padded this way and
// raises nax::shape_error, as jnp.pad does.
template <class A, class X>
  requires array_like<X>
auto pad(X&& x, index_t before, index_t after, pad_mode mode) {
  auto e = detail::along<A>(std::forward<X>(x));
  const index_t n = detail::extent_of<A>(e);
  const index_t m = detail::padded_extent<A>(n, before, after);
  if (n == 0 && m != 0)
    throw shape_error("nax: pad<" + std::string(axis_name<A>()) + "> of an axis of extent 0 reads the axis, which is "
                      "empty: only a constant pad can extend it");
  // One formula for the four modes: j = clamp(i - before, lo, hi), k = j mod period, and the
  // position k where k < n, else mirror - k.
  constexpr index_t lowest = std::numeric_limits<index_t>::lowest(), highest = std::numeric_limits<index_t>::max();
  if (n > highest / 2) throw shape_error("nax: pad<" + std::string(axis_name<A>()) + ">: the axis is too long to mirror");
  index_t lo = lowest, hi = highest, period = n, mirror = 0;
  switch (mode) {
    case pad_mode::edge: lo = 0, hi = n - 1; break;
    case pad_mode::reflect: period = 2 * (n - 1), mirror = period; break;  // n == 1: period 0, x mod 0 = 0
    case pad_mode::symmetric: period = 2 * n, mirror = period - 1; break;
    case pad_mode::wrap: break;
  }
  auto k = remainder(minimum(maximum(axis_index<A, index_t>(m) - before, lo), hi), period);
  return detail::gather_positions<A>(std::move(e), where(k < n, k, mirror - k));
}

// x repeated `reps` times along A, as a whole (jnp.tile with one axis: 0 1 2 0 1 2).
template <class A, class X>
  requires array_like<X>
auto tile(X&& x, index_t reps) {
  auto e = detail::along<A>(std::forward<X>(x));
  const index_t n = detail::extent_of<A>(e);
  const index_t m = detail::repeated_extent<A>(n, reps, "tile");
  return detail::gather_positions<A>(std::move(e), remainder(axis_index<A, index_t>(m), n));
}

// Each element of x along A repeated `reps` times in place (jnp.repeat(x, reps, axis): 0 0 1 1 2 2).
template <class A, class X>
  requires array_like<X>
auto repeat(X&& x, index_t reps) {
  auto e = detail::along<A>(std::forward<X>(x));
  const index_t n = detail::extent_of<A>(e);
  const index_t m = detail::repeated_extent<A>(n, reps, "repeat");
  return detail::gather_positions<A>(std::move(e), axis_index<A, index_t>(m) / (reps == 0 ? 1 : reps));
}

// The window of `size` elements of x along A from `start` (lax.dynamic_slice along one axis):
// as in JAX a negative start counts from the end, then start is clamped so that the window
// fits. start is a number or an integer rank-0 expression, which inside vmap may differ per
// member. A size larger than the axis raises.
template <class A, class X, class S>
  requires array_like<X> && (array_like<S> || std::is_integral_v<std::remove_cvref_t<S>>)
auto dynamic_slice(X&& x, S&& start, index_t size) {
  auto e = detail::along<A>(std::forward<X>(x));
  auto s = detail::clamped_start<A>(std::forward<S>(start), detail::extent_of<A>(e), size, "dynamic_slice");
  return detail::gather_positions<A>(std::move(e), std::move(s) + axis_index<A, index_t>(size));
}

// x with the window along A from `start` replaced by update, which has x's axes, A's extent
// being the window's (lax.dynamic_update_slice along one axis; start clamped as in
// dynamic_slice). Differentiable in both x and update.
template <class A, class X, class U, class S>
  requires array_like<X> && array_like<U> && (array_like<S> || std::is_integral_v<std::remove_cvref_t<S>>)
auto dynamic_update_slice(X&& x, U&& update, S&& start) {
  using E = detail::expr_t<X>;
  using UE = detail::expr_t<U>;
  using T = typename E::value_type;
  static_assert(detail::require_axis_present<A, detail::visible_t<E>>::value);
  static_assert(detail::same_set_v<detail::visible_t<E>, detail::visible_t<UE>>,
                "nax: dynamic_update_slice<A>(x, update, start) needs an update with the axes of x");
  static_assert(detail::require_no_narrowing<T, typename UE::value_type>::value);
  auto e = detail::as_expr(std::forward<X>(x));
  auto u = detail::as_expr(std::forward<U>(update));
  const index_t n = detail::extent_of<A>(e), size = detail::extent_of<A>(u);
  auto s = detail::clamped_start<A>(std::forward<S>(start), n, size, "dynamic_update_slice");
  auto offset = axis_index<A, index_t>(n) - s;  // the position in the window
  auto inside = (offset >= index_t(0)) && (offset < size);
  // Outside the window the update is read at `size`, out of range: a fill value that where()
  // discards, and no cotangent sent back to the update.
  auto position = where(inside, offset, size);
  auto updated = where(std::move(inside), cast<T>(detail::make_take<A>(std::move(u), std::move(position), index_mode::fill,
                                                                      typename UE::value_type{})),
                       std::move(e));
  // in x's axis order (where() puts the window mask's axis first): a relabelling, free at evaluation
  return [&]<class... Vs>(axes<Vs...>) { return transpose<Vs...>(std::move(updated)); }(detail::visible_t<E>{});
}

}  // namespace nax
