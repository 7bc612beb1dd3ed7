// jax.random.permutation and jax.random.choice, bit for bit with JAX (its default 32-bit mode)
// for the same key, as lazy expressions over the sort nodes (expr/sort.hpp), on any backend:
//   - permutation: JAX's _shuffle: rounds of a stable sort by fresh uint32 random bits, each
//     round's key split from the last; ceil(3 ln(n) / ln(2^32 - 1)) rounds (1 up to n = 1625,
//     3 at most below 2^32). The expression always has three rounds; the unused ones sort by
//     zeros, which leaves the order as it is.
//   - choice without weights: randint (with replacement) or the first draws of a permutation;
//     with weights p: a search of the running sum of p (with replacement), or the top draws of
//     gumbel noise plus log(p) (without).
// Keys are host values (nax::random::Key): inside vmap every member draws the same, as with an
// unmapped key in jax.vmap.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "nax/expr/scan.hpp"
#include "nax/expr/sort.hpp"
#include "nax/random/categorical.hpp"

namespace nax::random {

namespace detail {

inline int shuffle_rounds(index_t n) {
  return static_cast<int>(std::ceil(3.0 * std::log(static_cast<double>(std::max<index_t>(1, n))) / std::log(4294967295.0)));
}

inline void check_draws(index_t n, index_t draws, bool replace, const char* what) {
  if (n > index_t{std::numeric_limits<std::int32_t>::max()})
    throw argument_error(std::string("random::") + what + ": a population of " + std::to_string(n) +
                         " does not fit the int32 indices it draws (JAX's default mode)");
  if (draws < 0) throw argument_error(std::string("random::") + what + ": draws must be >= 0, got " + std::to_string(draws));
  if (draws > 0 && n <= 0)
    throw argument_error(std::string("random::") + what + ": nothing to draw from (the population has size " +
                         std::to_string(n) + ")");
  if (!replace && draws > n)
    throw argument_error(std::string("random::") + what + ": cannot draw " + std::to_string(draws) +
                         " without replacement from a population of " + std::to_string(n));
}

}  // namespace detail

// A random permutation of 0, ..., n-1 along a new axis A (int64; jax.random.permutation(key, n)).
template <class A>
auto permutation(Key key, index_t n) {
  if (n < 0) throw argument_error("random::permutation: n must be >= 0, got " + std::to_string(n));
  if (detail::shuffle_rounds(n) > 3)
    throw argument_error("random::permutation of " + std::to_string(n) + " elements: more than three rounds of sorting");
  const int rounds = detail::shuffle_rounds(n);
  // round r sorts by bits of the second half of split(key), the first half going on
  auto round_keys = [&](int r) {
    for (int k = 0; k < r; ++k) key = split(key)[0];
    const Key subkey = split(key)[1];
    return bits<A>(subkey, {n}) * static_cast<std::uint32_t>(r < rounds ? 1 : 0);
  };
  const Key start = key;
  auto by = [&](int r) {
    key = start;
    return argsort<A>(round_keys(r));
  };
  auto first = take<A>(axis_index<A, index_t>(n), by(0));
  auto second = take<A>(std::move(first), by(1));
  return take<A>(std::move(second), by(2));
}

// x with its elements along A in a random order (jax.random.permutation(key, x, axis)).
template <class A, class X>
  requires array_like<X>
auto permutation(Key key, X&& x) {
  using E = nax::detail::expr_t<X>;
  static_assert(nax::detail::require_axis_present<A, nax::detail::visible_t<E>>::value);
  auto e = nax::detail::as_expr(std::forward<X>(x));
  const index_t n = nax::detail::extent_of<A>(e);
  return take<A>(std::move(e), permutation<A>(key, n));
}

// `draws` indices in [0, n) along a new axis S (int32, jax.random.choice(key, n, (draws,),
// replace)): independent (randint) with replacement, distinct without. (Both forms are in the
// expression, so that it has one type; the one not chosen is drawn over nothing.)
template <class S>
auto choice(Key key, index_t n, index_t draws, bool replace = true) {
  detail::check_draws(n, draws, replace, "choice");
  auto independent = randint<S>(key, {replace ? draws : 0}, 0, replace ? std::max<index_t>(n, 1) : 1);
  auto distinct = take<S>(permutation<S>(key, replace ? 0 : n), axis_index<S, index_t>(draws), index_mode::fill,
                          index_t(0));
  return where(replace, take<S>(std::move(independent), axis_index<S, index_t>(draws), index_mode::fill, 0),
               cast<std::int32_t>(std::move(distinct)));
}

// `draws` indices along a new axis S drawn with weights p (along p's one axis A; int32, as
// jax.random.choice(key, n, (draws,), replace, p)): with replacement, where the running sum of p
// first reaches a uniform draw of its total; without, the top draws of gumbel noise plus log(p).
template <class S, class P>
  requires array_like<P>
auto choice(Key key, P&& p, index_t draws, bool replace = true) {
  using E = nax::detail::expr_t<P>;
  using V = nax::detail::visible_t<E>;
  using T = typename E::value_type;
  static_assert(V::size == 1 && std::is_floating_point_v<T>,
                "nax::random::choice: the weights p are a floating-point array of one axis (the population)");
  using A = nax::detail::at_t<0, V>;
  auto weights = nax::detail::as_expr(std::forward<P>(p));
  const index_t n = nax::detail::extent_of<A>(weights);
  detail::check_draws(n, draws, replace, "choice");
  const index_t with = replace ? draws : 0, without = replace ? 0 : draws;
  auto running = cumsum<A>(weights);
  auto total = take<A>(running, nax::detail::Scalar<index_t>{{}, n - 1}, index_mode::fill, T(0));  // (n = 0: no draws)
  auto independent = searchsorted<A>(running, total * (T(1) - uniform<T, S>(key, {with})));
  auto noise = gumbel<T, A>(key, {replace ? 0 : n}) + log(slice<A>(weights, 0, replace ? 0 : n));
  auto distinct = top_k<A, S>(std::move(noise), without).indices;
  auto pick = [&](auto e) { return take<S>(std::move(e), axis_index<S, index_t>(draws), index_mode::fill, index_t(0)); };
  return cast<std::int32_t>(where(replace, pick(std::move(independent)), pick(std::move(distinct))));
}

// `draws` elements of x along A, in a new axis S in A's place (jax.random.choice(key, x,
// (draws,), replace, axis)), without or with weights p along A.
template <class S, class A, class X>
  requires array_like<X>
auto choice(Key key, X&& x, index_t draws, bool replace = true) {
  using E = nax::detail::expr_t<X>;
  static_assert(nax::detail::require_axis_present<A, nax::detail::visible_t<E>>::value);
  auto e = nax::detail::as_expr(std::forward<X>(x));
  const index_t n = nax::detail::extent_of<A>(e);
  return take<A>(std::move(e), choice<S>(key, n, draws, replace));
}
template <class S, class A, class X, class P>
  requires array_like<X> && array_like<P>
auto choice(Key key, X&& x, index_t draws, bool replace, P&& p) {
  using E = nax::detail::expr_t<X>;
  static_assert(nax::detail::require_axis_present<A, nax::detail::visible_t<E>>::value);
  static_assert(std::is_same_v<nax::detail::visible_t<nax::detail::expr_t<P>>, nax::axes<A>>,
                "nax::random::choice: the weights p have exactly the sampled axis A");
  return take<A>(std::forward<X>(x), choice<S>(key, std::forward<P>(p), draws, replace));
}

}  // namespace nax::random
