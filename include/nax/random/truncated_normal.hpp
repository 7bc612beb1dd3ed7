// jax.random.truncated_normal(key, lower, upper, shape, dtype) as a fused expression node:
// sqrt(2) * erfinv(u), u uniform on [erf(lower / sqrt 2), erf(upper / sqrt 2)), clipped into
// the open interval (lower, upper). The uniform draw and erfinv are JAX's bit for bit
// (distributions.hpp, erfinv.hpp); the two erf bounds are computed once, in double and rounded
// to T, where XLA has its own erf approximation, so a value can differ from JAX's in the last
// bits (tests/conformance/README.md gives the tolerance).
#pragma once
#include <cmath>
#include <limits>
#include <string>

#include "nax/random/samplers.hpp"

namespace nax::random {

namespace detail {

template <class T>
struct truncated_normal_fn {
  T a, b;         // the uniform draw's bounds: erf(lower / sqrt 2), erf(upper / sqrt 2)
  T above, below;  // nextafter(lower, inf), nextafter(upper, -inf)
  template <class S>
  using result = T;
  NAX_HOST_DEVICE T operator()(std::uint64_t key, index_t i) const {
    constexpr T sqrt2 = std::is_same_v<T, float> ? T(0x1.6a09e6p+0) : T(0x1.6a09e667f3bcdp+0);
    const T out = sqrt2 * erf_inv(uniform_element<T>(wrap_key_data(key), i, a, b));
    const T raised = out > above ? out : above;  // jnp.clip: maximum, then minimum
    return raised < below ? raised : below;
  }
};

}  // namespace detail

// Standard normal values truncated to (lower, upper), float by default:
// truncated_normal<row, col>(k, -2, 2, {r, c}). lower < upper (infinities allowed), else
// nax::argument_error naming both.
template <class... Ps, class K>
  requires key_operand<K>
auto truncated_normal(K&& key, double lower, double upper, const detail::sample_extents<Ps...>& extents) {
  using T = detail::sampler_t<float, Ps...>;
  static_assert(detail::require_floating_sample<T>::value);
  const T lo = static_cast<T>(lower), hi = static_cast<T>(upper);
  if (!(lo < hi))
    throw argument_error("random::truncated_normal: lower must be < upper, got lower = " + detail::show(lo) +
                         ", upper = " + detail::show(hi));
  const double sqrt2 = static_cast<double>(std::is_same_v<T, float> ? T(0x1.6a09e6p+0) : T(0x1.6a09e667f3bcdp+0));
  const T a = static_cast<T>(std::erf(static_cast<double>(static_cast<T>(static_cast<double>(lo) / sqrt2))));
  const T b = static_cast<T>(std::erf(static_cast<double>(static_cast<T>(static_cast<double>(hi) / sqrt2))));
  const detail::truncated_normal_fn<T> fn{a, b, std::nextafter(lo, std::numeric_limits<T>::infinity()),
                                          std::nextafter(hi, -std::numeric_limits<T>::infinity())};
  return detail::generate_over(detail::sample_axes_t<Ps...>{}, fn, std::forward<K>(key), extents);
}

}  // namespace nax::random
