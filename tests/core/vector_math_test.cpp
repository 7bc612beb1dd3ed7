// The host's float exp and tanh (core/vector_math.hpp) against double-precision libm: within
// 0.501 ulp of the exact value (correctly rounded but for values within 2e-13 of a rounding
// boundary) on a sample of every float (one bit pattern in 4093, both signs, all exponents),
// densely around the places where the code changes formula or saturates (tanh's 2^-10, the
// clamp at 104, the overflow and underflow thresholds, the subnormal results), and every
// special value. With NAX_EXHAUSTIVE_ULPS=1 in the environment the sample is every float
// (2^32 of them: 100 s for both in the host preset's Release build; docs/ARCHITECTURE.md,
// "Elementwise math", has the result).
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

namespace {
namespace vm = nax::detail::vector_math;
NAX_AXIS(i);

// |got - exact| in units of the float spacing at the exact value (the smallest subnormal
// below 2^-126). Infinite or NaN results must match exactly: 0 or a huge number.
double ulp_error(float got, double exact) {
  if (std::isnan(exact)) return std::isnan(got) ? 0.0 : 1e30;
  const float rounded = static_cast<float>(exact);
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0.0 : 1e30;
  const float magnitude = std::fabs(rounded);
  double spacing = static_cast<double>(std::nextafter(magnitude, std::numeric_limits<float>::infinity())) - magnitude;
  if (magnitude < std::numeric_limits<float>::min()) spacing = std::numeric_limits<float>::denorm_min();
  return std::fabs(static_cast<double>(got) - exact) / spacing;
}

struct worst_case {
  double ulps = 0;
  float at = 0;
  void see(double u, float x) {
    if (u > ulps) ulps = u, at = x;
  }
};

template <class Each>
void sample_every_float(Each each) {
  const std::uint64_t step = std::getenv("NAX_EXHAUSTIVE_ULPS") ? 1 : 4093;  // (odd: the low mantissa bits vary)
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += step) {
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    if (!std::isnan(x)) each(x);
  }
}

// n floats on each side of x.
template <class Each>
void around(float x, int n, Each each) {
  float up = x, down = x;
  for (int i = 0; i < n; ++i) {
    each(up), each(down);
    up = std::nextafter(up, std::numeric_limits<float>::infinity());
    down = std::nextafter(down, -std::numeric_limits<float>::infinity());
  }
}
}  // namespace

TEST_CASE("vector_math::exp_float is correctly rounded (within 0.501 ulp) and keeps IEEE's special values") {
  worst_case worst;
  const auto check = [&](float x) { worst.see(ulp_error(vm::exp_float(x), std::exp(static_cast<double>(x))), x); };
  sample_every_float(check);
  for (float edge : {0.0f, 88.72283f, 89.0f, -87.33654f, -103.27893f, -104.0f, 104.0f, 0.34657359f, -0.34657359f})
    around(edge, 2000, check);
  MESSAGE("exp: largest error " << worst.ulps << " ulp, at " << worst.at);
  CHECK(worst.ulps <= 0.501);

  constexpr float inf = std::numeric_limits<float>::infinity();
  CHECK(std::isnan(vm::exp_float(std::numeric_limits<float>::quiet_NaN())));
  CHECK(vm::exp_float(inf) == inf);
  CHECK(vm::exp_float(-inf) == 0.0f);
  CHECK(vm::exp_float(89.0f) == inf);   // overflow
  CHECK(vm::exp_float(1e30f) == inf);   // beyond the clamp
  CHECK(vm::exp_float(-1e30f) == 0.0f);
  CHECK(vm::exp_float(-104.0f) == 0.0f);  // below half the smallest subnormal
  CHECK(vm::exp_float(-100.0f) > 0.0f);   // a subnormal result, not flushed
  CHECK(vm::exp_float(-100.0f) < std::numeric_limits<float>::min());
  CHECK(vm::exp_float(0.0f) == 1.0f);
  CHECK(vm::exp_float(-0.0f) == 1.0f);
}

TEST_CASE("vector_math::tanh_float is correctly rounded (within 0.501 ulp), odd, and keeps IEEE's special values") {
  worst_case worst;
  const auto check = [&](float x) { worst.see(ulp_error(vm::tanh_float(x), std::tanh(static_cast<double>(x))), x); };
  sample_every_float(check);
  for (float edge : {0.0009765625f, -0.0009765625f, 0.625f, 9.0f, 52.0f, 1e-20f, std::numeric_limits<float>::denorm_min()})
    around(edge, 2000, check);
  MESSAGE("tanh: largest error " << worst.ulps << " ulp, at " << worst.at);
  CHECK(worst.ulps <= 0.501);

  constexpr float inf = std::numeric_limits<float>::infinity();
  CHECK(std::isnan(vm::tanh_float(std::numeric_limits<float>::quiet_NaN())));
  CHECK(vm::tanh_float(inf) == 1.0f);
  CHECK(vm::tanh_float(-inf) == -1.0f);
  CHECK(std::signbit(vm::tanh_float(-0.0f)));
  CHECK(vm::tanh_float(-0.0f) == 0.0f);
  for (float x : {0.1f, 0.7f, 3.0f, 20.0f}) CHECK(vm::tanh_float(-x) == -vm::tanh_float(x));
}

TEST_CASE("nax::exp, nax::tanh and the functions built on them use vector_math for float on the host") {
  nax::Array<float, i> x({5}, {-3.0f, -0.5f, 0.0f, 0.25f, 2.0f});
  nax::Array<float, i> e = nax::exp(x), t = nax::tanh(x), s = nax::sigmoid(x);
  for (nax::index_t k = 0; k < 5; ++k) {
    const float v = x.data()[k];
    CHECK(e.data()[k] == vm::exp_float(v));
    CHECK(t.data()[k] == vm::tanh_float(v));
    CHECK(s.data()[k] == 1.0f / (1.0f + vm::exp_float(-v)));
  }
  // double keeps libm.
  nax::Array<double, i> xd({2}, {0.3, -1.7});
  nax::Array<double, i> ed = nax::exp(xd);
  CHECK(ed.data()[0] == std::exp(0.3));
  CHECK(ed.data()[1] == std::exp(-1.7));
}
