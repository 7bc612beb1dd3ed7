// exp and tanh for float that a host loop vectorises. libm's expf and tanhf are calls the
// compiler cannot vectorise (without -ffast-math), so a fused pass with a tanh in it ran at
// libm's scalar speed: 28% of the MLP training step's time was __tanhf and its __expm1f
// (bench/README.md, "GEMM-bound steps"). These are branch-free (selects, no calls), computed
// in double and rounded once, so nearly always correctly rounded (tests/core/vector_math_test.cpp
// checks a sample of all floats and the edges against double-precision libm), and keep IEEE's
// special values: NaN stays NaN, exp overflows to inf and underflows through the subnormals
// to 0, tanh(-0) is -0.
// nax's elementwise functors call nax::detail::vector_math::exp / tanh. double, and device
// code (CUDA's own expf/tanhf are fast), use the standard functions.
#pragma once
#include "config.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace nax::detail::vector_math {

// e^x for float arguments, computed in double and rounded once: x = n ln2 + r with
// |r| <= ln2 / 2, e^r by its Taylor polynomial of degree 10 (relative error 2e-13, far below
// float's half ulp of 3e-8), times 2^n built from its bits. The result is the correctly
// rounded float except where e^x lies within 2e-13 of a rounding boundary; subnormal results
// round once, from double. double vectors hold half as many lanes as float ones; computing in
// float instead (Cephes's expf polynomial) was 1.3 ulp off for tanh near 0.7, where a
// gradient of the conformance MLP amplified it past the 1e-5 JAX comparison.
// The conditions below compare the float's bits as integers, not floats: with g++'s default
// -ftrapping-math an ordered float comparison may raise FE_INVALID, and g++ then does not turn
// the selects into vector blends (the loop stayed scalar). For a float that is not a NaN its
// magnitude bits order as its magnitude does.
inline constexpr std::uint32_t magnitude_mask = 0x7fffffffu, infinity_bits = 0x7f800000u;
NAX_ALWAYS_INLINE std::uint32_t magnitude_bits(float x) { return std::bit_cast<std::uint32_t>(x) & magnitude_mask; }

// (Always inlined: called out of line, a loop stays scalar. g++ did so in the large translation
// unit of bench/gpt.cpp once a change elsewhere grew it: exp_in_double took 2.6% of the step.)
NAX_ALWAYS_INLINE double exp_in_double(float x) {
  // Beyond |x| = 104, e^x is inf or rounds to 0 in float; clamping the magnitude there keeps
  // n's exponent in range. A NaN is left alone and stays NaN through the polynomial.
  constexpr std::uint32_t limit = 0x42d00000u;  // 104.0f
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x), magnitude = bits & magnitude_mask;
  const bool beyond = magnitude > limit && magnitude <= infinity_bits;
  const float clamped = std::bit_cast<float>(beyond ? (bits & ~magnitude_mask) | limit : bits);
  const double v = clamped;
  // round(v log2 e) by the 1.5 * 2^52 trick: the sum's low mantissa bits hold the integer.
  constexpr double magic = 6755399441055744.0;
  const double shifted = v * 1.4426950408889634074 + magic;
  const double n = shifted - magic;
  // (Unsigned arithmetic: for a NaN the bits are garbage, and nothing may overflow.)
  const std::uint64_t ni = std::bit_cast<std::uint64_t>(shifted) - std::bit_cast<std::uint64_t>(magic);
  // r = v - n ln2 with ln2 in two parts, n * ln2_hi exact (n has at most 8 bits).
  const double r = (v - n * 6.93147180369123816490e-01) - n * 1.90821492927058770002e-10;
  double p = 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  return p * std::bit_cast<double>((ni + 1023) << 52);
}

NAX_ALWAYS_INLINE float exp_float(float x) { return static_cast<float>(exp_in_double(x)); }

// tanh x = 1 - 2 / (e^2|x| + 1) in double, with x's sign (so -0 gives -0 and a NaN keeps its
// sign bit); below 2^-10 its series x - x^3 / 3 (the formula's cancellation would cost digits
// there, the series' next term is 2e-13 relative). Large |x| need nothing of their own:
// exp_in_double clamps at 104, e^104 is finite in double, and the formula rounds to 1.
NAX_ALWAYS_INLINE float tanh_float(float x) {
  const bool tiny = magnitude_bits(x) < 0x3a800000u;  // |x| < 2^-10
  const double a = std::fabs(static_cast<double>(x));
  const double series = a - a * a * a * (1.0 / 3.0);
  const double formula = 1.0 - 2.0 / (exp_in_double(2.0f * std::fabs(x)) + 1.0);
  // The choice as a select of bits: as a ternary over doubles, g++ moved the division into a
  // branch of its own (it may trap, and only one arm uses it) and left the loop scalar.
  const std::uint64_t take_series = tiny ? ~std::uint64_t{0} : 0;
  const std::uint64_t t =
      (std::bit_cast<std::uint64_t>(series) & take_series) | (std::bit_cast<std::uint64_t>(formula) & ~take_series);
  return std::copysign(static_cast<float>(std::bit_cast<double>(t)), x);
}

// Whether the vectorisable versions serve R: float, in host code.
template <class R>
NAX_HOST_DEVICE constexpr bool vectorised_for() {
#if defined(__CUDA_ARCH__)
  return false;
#else
  return std::is_same_v<R, float>;
#endif
}

// (The wrappers too: g++ left exp<float> out of line in bench/gpt.cpp's translation unit.)
template <class R>
NAX_HOST_DEVICE NAX_ALWAYS_INLINE R exp(R x) {
  if constexpr (vectorised_for<R>()) return exp_float(x); else return std::exp(x);
}
template <class R>
NAX_HOST_DEVICE NAX_ALWAYS_INLINE R tanh(R x) {
  if constexpr (vectorised_for<R>()) return tanh_float(x); else return std::tanh(x);
}

}  // namespace nax::detail::vector_math
