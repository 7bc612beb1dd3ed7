// Per-element samplers of jax.random (uniform, normal, bernoulli, randint): element i of a sample
// of any shape, from the key and the row-major linear index i alone. Each `*_from_bits` is the
// pure transform of JAX's random bits; each `*_element` draws those bits itself.
// Reproduces JAX on CPU (x86-64 with FMA, the XLA CPU backend) bit for bit; see erfinv.hpp.
#pragma once
#include <bit>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

#include "nax/core/config.hpp"
#include "nax/core/errors.hpp"
#include "nax/random/bits.hpp"
#include "nax/random/erfinv.hpp"
#include "nax/random/key.hpp"

namespace nax::random {

namespace detail {
template <class T>
using uint_of = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
}  // namespace detail

// ---- uniform: jax.random.uniform (`_uniform` in jax/_src/random/core.py) ----

// Top mantissa bits under exponent 0 give a float in [1, 2); minus 1, scaled, and clamped below
// by lax.max(minval, ...). XLA CPU fuses floats * (max - min) + min into one FMA.
template <class T>
NAX_HOST_DEVICE inline T uniform_from_bits(detail::uint_of<T> bits, T min, T max) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  using U = detail::uint_of<T>;
  constexpr int shift = std::is_same_v<T, float> ? 32 - 23 : 64 - 52;  // nbits - nmant
  const U one = std::bit_cast<U>(T(1));
  const T floats = std::bit_cast<T>(static_cast<U>((bits >> shift) | one)) - T(1);
  const T r = detail::fma_rn(floats, max - min, min);
  return r < min ? min : r;
}

// jax.random.uniform(key, shape, dtype, min, max)[i]; float is JAX's default (32-bit mode),
// double needs jax_enable_x64 on the JAX side.
template <class T>
NAX_HOST_DEVICE inline T uniform_element(Key key, index_t i, T min = T(0), T max = T(1)) {
  return uniform_from_bits<T>(random_bits<T>(key, i), min, max);
}

// ---- normal: jax.random.normal (`_normal_real`) ----

// sqrt(2) * erfinv(u), u uniform on [nextafter(-1, 0), 1), in T's precision.
template <class T>
NAX_HOST_DEVICE inline T normal_from_bits(detail::uint_of<T> bits) {
  constexpr bool f32 = std::is_same_v<T, float>;
  const T lo = f32 ? T(-0x1.fffffep-1) : T(-0x1.fffffffffffffp-1);  // nextafter(-1, 0)
  const T sqrt2 = f32 ? T(0x1.6a09e6p+0) : T(0x1.6a09e667f3bcdp+0);  // sqrt(2) rounded to T
  return erf_inv(uniform_from_bits<T>(bits, lo, T(1))) * sqrt2;
}

template <class T>
NAX_HOST_DEVICE inline T normal_element(Key key, index_t i) {
  return normal_from_bits<T>(random_bits<T>(key, i));
}

// ---- bernoulli: jax.random.bernoulli, mode='low' (the default): uniform < p ----

// T is p's dtype (float by default in JAX, double with x64 and a float64 p).
template <class T>
NAX_HOST_DEVICE inline bool bernoulli_element(Key key, index_t i, T p) {
  return uniform_element<T>(key, i) < p;
}

// ---- randint: jax.random.randint (`_randint`) ----

// randint splits its key in two and draws one word of bits from each, per element.
struct RandintKeys {
  Key higher;  // split(key)[0]: the high half of the 2*nbits random number
  Key lower;   // split(key)[1]
};

NAX_HOST_DEVICE constexpr RandintKeys randint_keys(Key key) {
  return {split_one(key, 0), split_one(key, 1)};
}

// JAX's modulus method on 2 * nbits bits, in wrapping unsigned arithmetic exactly as lax does it:
// span = hi - lo (1 when hi <= lo, which then always yields lo), multiplier = 2^nbits mod span
// computed as (2^(nbits/2) mod span)^2 mod span, offset = (higher mod span * multiplier +
// lower mod span) mod span. T: a 32- or 64-bit integer type (int32 is JAX's default).
template <class T>
NAX_HOST_DEVICE constexpr T randint_from_bits(detail::uint_of<T> higher, detail::uint_of<T> lower,
                                              T lo, T hi) {
  static_assert(std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8),
                "nax::random: randint draws 32- or 64-bit integers (T is the type asked for; for a narrower "
                "one, draw int32 and convert with nax::cast)");
  using U = detail::uint_of<T>;
  const U span = hi <= lo ? U(1) : static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
  U multiplier = static_cast<U>(static_cast<U>(U(1) << (sizeof(T) * 4)) % span);
  multiplier = static_cast<U>(static_cast<U>(multiplier * multiplier) % span);
  U offset = static_cast<U>(static_cast<U>(higher % span) * multiplier + lower % span);
  offset = static_cast<U>(offset % span);
  return static_cast<T>(static_cast<U>(static_cast<U>(lo) + offset));
}

// jax.random.randint(key, shape, lo, hi, dtype)[i], with keys = randint_keys(key) computed once
// per sample rather than per element.
template <class T>
NAX_HOST_DEVICE constexpr T randint_element(RandintKeys keys, index_t i, T lo, T hi) {
  return randint_from_bits<T>(random_bits<T>(keys.higher, i), random_bits<T>(keys.lower, i), lo,
                              hi);
}

template <class T>
NAX_HOST_DEVICE constexpr T randint_element(Key key, index_t i, T lo, T hi) {
  return randint_element<T>(randint_keys(key), i, lo, hi);
}

// ---- argument checks (host): throw nax::argument_error naming the argument and its value ----

namespace detail {
template <class T>
std::string show(T v) {
  std::ostringstream s;
  s.precision(17);
  s << +v;
  return s.str();
}
}  // namespace detail

// uniform's range: min < max, both numbers (NaN fails).
template <class T>
void check_uniform_range(T min, T max) {
  if (!(min < max)) {
    throw argument_error("random::uniform: min must be < max, got min = " + detail::show(min) +
                         ", max = " + detail::show(max));
  }
}

// bernoulli's probability: 0 <= p <= 1 (NaN fails).
template <class T>
void check_probability(T p) {
  if (!(p >= T(0) && p <= T(1))) {
    throw argument_error("random::bernoulli: p must be in [0, 1], got p = " + detail::show(p));
  }
}

// randint's range: lo < hi. (JAX itself returns lo when hi <= lo; nax refuses.)
template <class T>
void check_randint_range(T lo, T hi) {
  if (hi <= lo) {
    throw argument_error("random::randint: hi must be > lo, got lo = " + detail::show(lo) +
                         ", hi = " + detail::show(hi));
  }
}

}  // namespace nax::random
