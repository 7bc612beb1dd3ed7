// erfinv exactly as JAX on CPU computes it (lax.erf_inv -> XLA `ErfInv32` / `ErfInv64` in
// xla/hlo/builder/lib/math.cc, Giles' "Approximating the erfinv function"), including XLA CPU's
// own log1p and the multiply-adds that XLA CPU's LLVM backend fuses into FMAs
// (target option AllowFPOpFusion=Fast: each single-use multiply feeding an add becomes an FMA).
// Fused steps are written as explicit fma; unfused products go through mul_rn, which the C++
// compiler may not contract, so the result does not depend on -ffp-contract or --fmad.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

#include "nax/core/config.hpp"

// GCC >= 12 and Clang >= 15 have a builtin that keeps a product out of FMA contraction
// (nvcc's front end does not know it, even for host code).
#if defined(__has_builtin) && !defined(__CUDACC__)
#if __has_builtin(__builtin_assoc_barrier)
#define NAX_RANDOM_ASSOC_BARRIER 1
#endif
#endif

namespace nax::random::detail {

// ---- rounding-exact primitives, identical on host and device ----

NAX_HOST_DEVICE inline float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
NAX_HOST_DEVICE inline double fma_rn(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// a * b rounded on its own: never contracted with a following add.
NAX_HOST_DEVICE inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#elif defined(NAX_RANDOM_ASSOC_BARRIER)
  return __builtin_assoc_barrier(a * b);
#else
  volatile float p = a * b;  // a store the optimizer must keep: blocks contraction
  return p;
#endif
}
NAX_HOST_DEVICE inline double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#elif defined(NAX_RANDOM_ASSOC_BARRIER)
  return __builtin_assoc_barrier(a * b);
#else
  volatile double p = a * b;
  return p;
#endif
}

NAX_HOST_DEVICE inline float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);  // IEEE division even under --use_fast_math
#else
  return a / b;
#endif
}
NAX_HOST_DEVICE inline double div_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

NAX_HOST_DEVICE inline float sqrt_rn(float x) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}
NAX_HOST_DEVICE inline double sqrt_rn(double x) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}

// ---- XLA CPU's log and log1p ----

// XLA CPU's inlined f32 log (Cephes logf, as in Eigen's plog), bit for bit with its FMAs.
NAX_HOST_DEVICE inline float log_xla(float x) {
  const float in = x > 0x1p-126f ? x : 0x1p-126f;  // clamp to FLT_MIN (NaN too)
  const std::uint32_t b = std::bit_cast<std::uint32_t>(in);
  float e = static_cast<float>(static_cast<std::int32_t>(b >> 23) - 127) + 1.0f;
  const float m = std::bit_cast<float>((b & 0x807FFFFFu) | 0x3F000000u);  // in [0.5, 1)
  const bool below = m < 0x1.6a09e6p-1f;  // sqrt(1/2)
  e = e - (below ? 1.0f : 0.0f);
  const float z = (m + -1.0f) + (below ? m : 0.0f);
  const float z2 = z * z;
  const float z3 = z2 * z;
  float y0 = fma_rn(z, 0x1.204376p-4f, -0x1.d7a370p-4f);
  float y1 = fma_rn(z, -0x1.fcba9ep-4f, 0x1.23d37ep-3f);
  float y2 = fma_rn(z, 0x1.999d58p-3f, -0x1.fffff8p-3f);
  y0 = fma_rn(y0, z, 0x1.de4a34p-4f);
  y1 = fma_rn(y1, z, -0x1.555ca0p-3f);
  y2 = fma_rn(y2, z, 0x1.555554p-2f);
  y0 = fma_rn(y0, z3, y1);
  y0 = fma_rn(y0, z3, y2);
  const float y = fma_rn(y0, z3, mul_rn(e, -0x1.bd0106p-13f));  // + e * log(2) low part
  const float r = fma_rn(e, 0x1.630000p-1f, fma_rn(-z2, 0.5f, z) + y);  // + e * log(2) high
  // Special cases, as XLA composes them: log(+inf) = +inf, log(0) = -inf, log(<0 or NaN) = NaN.
  if (x == 0.0f) return -INFINITY;
  if (!(x > 0.0f)) return NAN;
  if (x == INFINITY) return INFINITY;
  return r;
}

// XLA's log1p (Cephes): a rational approximation for |x| < sqrt(2) - 1, else log(1 + x).
// The f32 log is XLA CPU's inline one; for f64 XLA CPU calls the C library's log, so double
// results match JAX on the host (same glibc); a GPU's log may differ in the last bit.
template <class T>
NAX_HOST_DEVICE inline T log1p_xla(T x) {
  constexpr bool f32 = sizeof(T) == 4;
  const T abs_x = x < T(0) ? -x : x;
  if (!(abs_x < (f32 ? T(0x1.a8279ap-2) : T(0x1.a827999fcef32p-2)))) {
    if constexpr (f32) {
      return log_xla(x + 1.0f);
    } else {
      return std::log(x + 1.0);
    }
  }
  // Numerator LP(x) and denominator LQ(x) in Horner form, each step one FMA.
  T num = f32 ? T(0x1.7bc096p-15) : T(0x1.7bc0962b395cap-15);
  num = fma_rn(num, x, f32 ? T(0x1.fe818ap-2) : T(0x1.fe818a0fe1a83p-2));
  num = fma_rn(num, x, f32 ? T(0x1.a509f4p+2) : T(0x1.a509f46f4fa53p+2));
  num = fma_rn(num, x, f32 ? T(0x1.de9738p+4) : T(0x1.de9738b8cb9c9p+4));
  num = fma_rn(num, x, f32 ? T(0x1.e798ecp+5) : T(0x1.e798eb86c3351p+5));
  num = fma_rn(num, x, f32 ? T(0x1.c8e75ap+5) : T(0x1.c8e7597479a10p+5));
  num = fma_rn(num, x, f32 ? T(0x1.40a202p+4) : T(0x1.40a202d99830ap+4));
  T den = T(1);
  den = fma_rn(den, x, f32 ? T(0x1.e2035ap+3) : T(0x1.e20359e903e37p+3));
  den = fma_rn(den, x, f32 ? T(0x1.4c30b6p+6) : T(0x1.4c30b52213498p+6));
  den = fma_rn(den, x, f32 ? T(0x1.bb865ap+7) : T(0x1.bb86590fcfb56p+7));
  den = fma_rn(den, x, f32 ? T(0x1.351946p+8) : T(0x1.351945dc908a5p+8));
  den = fma_rn(den, x, f32 ? T(0x1.b0db14p+7) : T(0x1.b0db13e48e066p+7));
  den = fma_rn(den, x, f32 ? T(0x1.e0f304p+5) : T(0x1.e0f304466448ep+5));
  const T ratio = div_rn(num, den);
  // x - x^2/2 + x^3 * ratio; XLA fuses the -x^2/2 term (not the x^3 one) into an FMA.
  const T x2 = mul_rn(x, x);
  return x + fma_rn(x2, T(-0.5), mul_rn(mul_rn(x, x2), ratio));
}

}  // namespace nax::random::detail

namespace nax::random {

// erf_inv for float: XLA `ErfInv32`, w = -log1p(-x^2), degree-8 polynomial in w - 2.5 (w < 5)
// or sqrt(w) - 3, result p * x; erfinv(+-1) = +-inf.
NAX_HOST_DEVICE inline float erf_inv(float x) {
  const float w = -detail::log1p_xla(detail::mul_rn(x, -x));
  const bool lt = w < 5.0f;
  const float t = lt ? w - 2.5f : detail::sqrt_rn(w) - 3.0f;
  float p = lt ? 2.81022636e-08f : -0.000200214257f;
  p = detail::fma_rn(p, t, lt ? 3.43273939e-07f : 0.000100950558f);
  p = detail::fma_rn(p, t, lt ? -3.5233877e-06f : 0.00134934322f);
  p = detail::fma_rn(p, t, lt ? -4.39150654e-06f : -0.00367342844f);
  p = detail::fma_rn(p, t, lt ? 0.00021858087f : 0.00573950773f);
  p = detail::fma_rn(p, t, lt ? -0.00125372503f : -0.0076224613f);
  p = detail::fma_rn(p, t, lt ? -0.00417768164f : 0.00943887047f);
  p = detail::fma_rn(p, t, lt ? 0.246640727f : 1.00167406f);
  p = detail::fma_rn(p, t, lt ? 1.50140941f : 2.83297682f);
  const float abs_x = x < 0.0f ? -x : x;
  return x * (abs_x == 1.0f ? INFINITY : p);
}

// erf_inv for double: XLA `ErfInv64`, three ranges of w (< 6.25, < 16, else) with polynomials of
// degree 22, 18 and 16 in w - 3.125, sqrt(w) - 3.25 and sqrt(w) - 5.
NAX_HOST_DEVICE inline double erf_inv(double x) {
  constexpr double c625[23] = {
      -3.6444120640178196996e-21, -1.685059138182016589e-19,  1.2858480715256400167e-18,
      1.115787767802518096e-17,   -1.333171662854620906e-16,  2.0972767875968561637e-17,
      6.6376381343583238325e-15,  -4.0545662729752068639e-14, -8.1519341976054721522e-14,
      2.6335093153082322977e-12,  -1.2975133253453532498e-11, -5.4154120542946279317e-11,
      1.051212273321532285e-09,   -4.1126339803469836976e-09, -2.9070369957882005086e-08,
      4.2347877827932403518e-07,  -1.3654692000834678645e-06, -1.3882523362786468719e-05,
      0.0001867342080340571352,   -0.00074070253416626697512, -0.0060336708714301490533,
      0.24015818242558961693,     1.6536545626831027356};
  constexpr double c16[19] = {
      2.2137376921775787049e-09,  9.0756561938885390979e-08,  -2.7517406297064545428e-07,
      1.8239629214389227755e-08,  1.5027403968909827627e-06,  -4.013867526981545969e-06,
      2.9234449089955446044e-06,  1.2475304481671778723e-05,  -4.7318229009055733981e-05,
      6.8284851459573175448e-05,  2.4031110387097893999e-05,  -0.0003550375203628474796,
      0.00095328937973738049703,  -0.0016882755560235047313, 0.0024914420961078508066,
      -0.0037512085075692412107,  0.005370914553590063617,    1.0052589676941592334,
      3.0838856104922207635};
  constexpr double cinf[17] = {
      -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
      -3.7894654401267369937e-09, 7.6157012080783393804e-09,  -1.4960026627149240478e-08,
      2.9147953450901080826e-08,  -6.7711997758452339498e-08, 2.2900482228026654717e-07,
      -9.9298272942317002539e-07, 4.5260625972231537039e-06,  -1.9681778105531670567e-05,
      7.5995277030017761139e-05,  -0.00021503011930044477347, -0.00013871931833623122026,
      1.0103004648645343977,      4.8499064014085844221};
  const double w = -detail::log1p_xla(detail::mul_rn(x, -x));
  const bool lt625 = w < 6.25;
  const bool lt16 = w < 16.0;
  // The polynomial of the range w falls in; its degree decides how many steps run.
  const double* c = lt625 ? c625 : (lt16 ? c16 : cinf);
  const int n = lt625 ? 23 : (lt16 ? 19 : 17);
  const double t = lt625 ? w - 3.125 : detail::sqrt_rn(w) - (lt16 ? 3.25 : 5.0);
  double p = c[0];
  for (int i = 1; i < n; ++i) p = detail::fma_rn(p, t, c[i]);
  const double abs_x = x < 0.0 ? -x : x;
  return x * (abs_x == 1.0 ? INFINITY : p);
}

}  // namespace nax::random
