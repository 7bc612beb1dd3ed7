// The samplers of jax.random as fused expression nodes: bits, uniform, normal, bernoulli,
// randint. Element i (row-major linear index over the named sample axes, in the order given)
// is computed from (key, i) alone, inside the pass that consumes it; nothing is stored.
#pragma once
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "nax/random/distributions.hpp"
#include "nax/random/key_expr.hpp"

namespace nax::random {

namespace detail {

// The template arguments of a sampler: an optional element type first, then the axis names.
// uniform<sample>(k, {n}) draws JAX's default float; uniform<double, sample>(k, {n}) doubles.
template <class Default, class... Ps>
struct sampler_params {
  using type = Default;
  using axes_type = nax::axes<Ps...>;
};
template <class Default, class P, class... Ps>
  requires element<P>
struct sampler_params<Default, P, Ps...> {
  using type = P;
  using axes_type = nax::axes<Ps...>;
};
template <class Default, class... Ps>
using sampler_t = typename sampler_params<Default, Ps...>::type;
template <class... Ps>
using sample_axes_t = typename sampler_params<void, Ps...>::axes_type;
// The extents of a sample, one per axis name (the element type takes none).
template <class... Ps>
using sample_extents = std::array<index_t, sample_axes_t<Ps...>::size>;

template <class... Gs, class F, class K>
auto generate_over(nax::axes<Gs...>, F f, K&& key, const std::array<index_t, sizeof...(Gs)>& extents) {
  return generate<Gs...>(std::move(f), as_key_expr(std::forward<K>(key)), extents);
}

template <class T>
struct require_floating_sample {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "nax::random: uniform, normal, truncated_normal, bernoulli and categorical sample float or double "
                "(T is the element type asked for; integers in a range are randint's)");
  static constexpr bool value = true;
};

// ---- element functors ----

template <class U>
struct bits_fn {
  template <class S>
  using result = U;
  NAX_HOST_DEVICE constexpr U operator()(std::uint64_t key, index_t i) const {
    return random_bits<U>(wrap_key_data(key), i);
  }
};

template <class T>
struct uniform_fn {
  T min, max;
  template <class S>
  using result = T;
  NAX_HOST_DEVICE T operator()(std::uint64_t key, index_t i) const {
    return uniform_element<T>(wrap_key_data(key), i, min, max);
  }
};

// uniform on [0, 1): the same values as uniform_fn{0, 1} (the FMA by 1 plus 0 and the clamp
// at 0 change nothing), two vector instructions fewer per element.
template <class T>
struct uniform01_fn {
  template <class S>
  using result = T;
  NAX_HOST_DEVICE T operator()(std::uint64_t key, index_t i) const {
    using U = uint_of<T>;
    constexpr int shift = std::is_same_v<T, float> ? 32 - 23 : 64 - 52;
    const U one = std::bit_cast<U>(T(1));
    return std::bit_cast<T>(static_cast<U>((random_bits<T>(wrap_key_data(key), i) >> shift) | one)) - T(1);
  }
};

template <class T>
struct normal_fn {
  template <class S>
  using result = T;
  NAX_HOST_DEVICE T operator()(std::uint64_t key, index_t i) const {
    return normal_element<T>(wrap_key_data(key), i);
  }
};

template <class T>
struct bernoulli_fn {
  T p;
  template <class S>
  using result = bool;
  NAX_HOST_DEVICE bool operator()(std::uint64_t key, index_t i) const {
    return bernoulli_element<T>(wrap_key_data(key), i, p);
  }
};

// randint combines the bits of two streams (split(key)[0] and [1]) per element.
template <class T>
struct randint_fn {
  template <class H, class L, class Lo, class Hi>
  using result = T;
  NAX_HOST_DEVICE constexpr T operator()(uint_of<T> higher, uint_of<T> lower, T lo, T hi) const {
    return randint_from_bits<T>(higher, lower, lo, hi);
  }
};

template <class T, class Bound>
void check_randint_bound(Bound value, const char* name) {
  if (value < static_cast<Bound>(std::numeric_limits<T>::min()) ||
      value > static_cast<Bound>(std::numeric_limits<T>::max())) {
    throw argument_error(std::string("random::randint: ") + name + " = " + show(value) +
                         " does not fit the sampled integer type");
  }
}

}  // namespace detail

// jax.random.bits(key, shape): uint32 (the default) or uint64 random bits.
// bits<sample>(k, {n}), bits<std::uint64_t, row, col>(k, {r, c}).
template <class... Ps, class K>
  requires key_operand<K>
auto bits(K&& key, const detail::sample_extents<Ps...>& extents) {
  using U = detail::sampler_t<std::uint32_t, Ps...>;
  static_assert(std::is_same_v<U, std::uint32_t> || std::is_same_v<U, std::uint64_t>,
                "nax::random::bits draws std::uint32_t or std::uint64_t");
  return detail::generate_over(detail::sample_axes_t<Ps...>{}, detail::bits_fn<U>{}, std::forward<K>(key), extents);
}

// jax.random.uniform(key, shape, dtype): uniform on [0, 1), float by default.
// uniform<sample>(k, {n}), uniform<double, row, col>(k, {r, c}).
template <class... Ps, class K>
  requires key_operand<K>
auto uniform(K&& key, const detail::sample_extents<Ps...>& extents) {
  using T = detail::sampler_t<float, Ps...>;
  static_assert(detail::require_floating_sample<T>::value);
  return detail::generate_over(detail::sample_axes_t<Ps...>{}, detail::uniform01_fn<T>{}, std::forward<K>(key),
                               extents);
}

// jax.random.uniform(key, shape, dtype, minval, maxval): uniform on [min, max) (bounds cast to
// the element type first, as JAX does). min < max, else nax::argument_error naming both.
template <class... Ps, class K>
  requires key_operand<K>
auto uniform(K&& key, const detail::sample_extents<Ps...>& extents, double min, double max) {
  using T = detail::sampler_t<float, Ps...>;
  static_assert(detail::require_floating_sample<T>::value);
  const T lo = static_cast<T>(min), hi = static_cast<T>(max);
  check_uniform_range(lo, hi);
  return detail::generate_over(detail::sample_axes_t<Ps...>{}, detail::uniform_fn<T>{lo, hi}, std::forward<K>(key),
                               extents);
}

// jax.random.normal(key, shape, dtype): standard normal, float by default.
template <class... Ps, class K>
  requires key_operand<K>
auto normal(K&& key, const detail::sample_extents<Ps...>& extents) {
  using T = detail::sampler_t<float, Ps...>;
  static_assert(detail::require_floating_sample<T>::value);
  return detail::generate_over(detail::sample_axes_t<Ps...>{}, detail::normal_fn<T>{}, std::forward<K>(key), extents);
}

// jax.random.bernoulli(key, p, shape): bool, true with probability p, as uniform < p in the
// optional element type (float, JAX's default; double is JAX's x64 mode with a float64 p).
// p outside [0, 1] (or NaN) throws nax::argument_error naming p.
template <class... Ps, class K>
  requires key_operand<K>
auto bernoulli(K&& key, double p, const detail::sample_extents<Ps...>& extents) {
  using T = detail::sampler_t<float, Ps...>;
  static_assert(detail::require_floating_sample<T>::value);
  check_probability(p);
  return detail::generate_over(detail::sample_axes_t<Ps...>{}, detail::bernoulli_fn<T>{static_cast<T>(p)},
                               std::forward<K>(key), extents);
}

// jax.random.randint(key, shape, minval, maxval, dtype): integers in [lo, hi), int32 by default
// (also uint32, int64, uint64). hi <= lo, or a bound the type cannot hold, throws
// nax::argument_error naming it.
template <class... Ps, class K>
  requires key_operand<K>
auto randint(K&& key, const detail::sample_extents<Ps...>& extents,
             std::conditional_t<std::is_same_v<detail::sampler_t<std::int32_t, Ps...>, std::uint64_t>, std::uint64_t,
                                std::int64_t>
                 lo,
             decltype(lo) hi) {
  using T = detail::sampler_t<std::int32_t, Ps...>;
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8),
                "nax::random::randint draws int32, uint32, int64 or uint64");
  check_randint_range(lo, hi);
  detail::check_randint_bound<T>(lo, "lo");
  detail::check_randint_bound<T>(hi, "hi");
  using U = detail::uint_of<T>;
  using G = detail::sample_axes_t<Ps...>;
  // The two keys: computed here for a C++ Key, per key (outside the inner loop) otherwise.
  auto k = [&] {
    if constexpr (std::same_as<std::remove_cvref_t<K>, Key>) return key;
    else return detail::as_key_expr(std::forward<K>(key));
  }();
  auto higher = detail::generate_over(G{}, detail::bits_fn<U>{}, detail::key_at(k, 0), extents);
  auto lower = detail::generate_over(G{}, detail::bits_fn<U>{}, detail::key_at(k, 1), extents);
  return nax::detail::make_map<detail::randint_fn<T>>(std::move(higher), std::move(lower),
                                                     nax::detail::Scalar<T>{{}, static_cast<T>(lo)},
                                                     nax::detail::Scalar<T>{{}, static_cast<T>(hi)});
}

}  // namespace nax::random
