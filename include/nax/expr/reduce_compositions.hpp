// Reductions composed of the four Reduce ops (no new op, so each backend, collective and
// derivative rule already knows them): any, all, count_nonzero, nansum, nanmean and norm.
// Names and results are jnp's, with the reduced axes named (none named: every visible axis).
#pragma once
#include <cstdint>
#include <type_traits>

#include "math.hpp"
#include "reduce.hpp"

namespace nax {

// Whether any element over As is non-zero (NaN counts as non-zero); false over an empty axis.
template <class... As, class X>
  requires array_like<X>
auto any(X&& x) {
  return detail::make_reduce<detail::max_op, As...>(std::forward<X>(x) != 0);
}
// Whether every element over As is non-zero; true over an empty axis.
template <class... As, class X>
  requires array_like<X>
auto all(X&& x) {
  return detail::make_reduce<detail::min_op, As...>(std::forward<X>(x) != 0);
}

// The number of non-zero elements over As, as int64 (jnp.count_nonzero with 64-bit types
// enabled: an int32 count could overflow silently on a large array).
template <class... As, class X>
  requires array_like<X>
auto count_nonzero(X&& x) {
  return sum<As...>(cast<std::int64_t>(std::forward<X>(x) != 0));
}

// The sum over As with NaNs counted as 0 (jnp.nansum); NaN elements receive no gradient.
template <class... As, class X>
  requires array_like<X>
auto nansum(X&& x) {
  auto e = detail::as_expr(std::forward<X>(x));
  return sum<As...>(where(isnan(e), 0, e));
}

// The mean over As of the elements that are not NaN (jnp.nanmean): NaN where every one is.
template <class... As, class X>
  requires array_like<X>
auto nanmean(X&& x) {
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  auto e = cast<T>(std::forward<X>(x));
  return nansum<As...>(e) / sum<As...>(cast<T>(!isnan(e)));
}

// jnp.linalg.norm's `ord`, for norm<A>(x, nax::ord::inf) and the like.
namespace ord {
struct inf_t {};
struct one_t {};
inline constexpr inf_t inf{};  // max |x|
inline constexpr one_t one{};  // sum |x|
}  // namespace ord

// The 2-norm over As, sqrt(sum(x^2)) (jnp.linalg.norm with ord None: over two axes it is
// the Frobenius norm); in floating point. Its gradient at x = 0 is NaN, as JAX's.
template <class... As, class X>
  requires array_like<X>
auto norm(X&& x) {
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  return sqrt(sum<As...>(square(cast<T>(std::forward<X>(x)))));
}

namespace detail {
template <class... As>
struct require_one_norm_axis {
  static_assert(sizeof...(As) == 1,
                "nax: norm<A>(x, ord) takes one axis (a vector norm); over two axes jnp.linalg.norm's ord means a "
                "matrix norm, which nax does not provide");
  static constexpr bool value = true;
};
}  // namespace detail

// The max-norm along A, max |x| (jnp.linalg.norm(x, ord=inf, axis)); ties share the gradient,
// as jnp.max's. An empty axis raises nax::shape_error, as JAX's max does.
template <class... As, class X>
  requires array_like<X>
auto norm(X&& x, ord::inf_t) {
  static_assert(detail::require_one_norm_axis<As...>::value);
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  return max<As...>(abs(cast<T>(std::forward<X>(x))));
}
// The 1-norm along A, sum |x| (jnp.linalg.norm(x, ord=1, axis)).
template <class... As, class X>
  requires array_like<X>
auto norm(X&& x, ord::one_t) {
  static_assert(detail::require_one_norm_axis<As...>::value);
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  return sum<As...>(abs(cast<T>(std::forward<X>(x))));
}

}  // namespace nax
