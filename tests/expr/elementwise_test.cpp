// Elementwise expressions (expr/math.hpp, expr/functors.hpp): every op against a reference
// computed here with <cmath> in double on random values (with NaN, infinities and signed
// zeros sprinkled in for floating types), integer division and pow semantics, promotion of
// element types (static_assert on the result types), weakly typed C++ numbers, where, cast.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../support/reference.hpp"

#include "elementwise_checks.hpp"

namespace {
template <class T>
void check_float_unary_ops() {
  using F = T;
  auto d = [](auto x) { return static_cast<double>(x); };
  check_unary<F>("negate", [](auto&& a) { return -a; }, [&](F x) { return -d(x); }, -4, 4);
  check_unary<F>("abs", [](auto&& a) { return nax::abs(a); }, [&](F x) { return std::fabs(d(x)); }, -4, 4);
  check_unary<F>("square", [](auto&& a) { return nax::square(a); }, [&](F x) { return d(x) * d(x); }, -4, 4);
  check_unary<F>("exp", [](auto&& a) { return nax::exp(a); }, [&](F x) { return std::exp(d(x)); }, -4, 4);
  check_unary<F>("log", [](auto&& a) { return nax::log(a); }, [&](F x) { return std::log(d(x)); }, -1, 8);
  check_unary<F>("log1p", [](auto&& a) { return nax::log1p(a); }, [&](F x) { return std::log1p(d(x)); }, -1.5, 4);
  check_unary<F>("expm1", [](auto&& a) { return nax::expm1(a); }, [&](F x) { return std::expm1(d(x)); }, -4, 4);
  check_unary<F>("sqrt", [](auto&& a) { return nax::sqrt(a); }, [&](F x) { return std::sqrt(d(x)); }, -1, 9);
  check_unary<F>("rsqrt", [](auto&& a) { return nax::rsqrt(a); }, [&](F x) { return 1.0 / std::sqrt(d(x)); }, -1, 9);
  check_unary<F>("sin", [](auto&& a) { return nax::sin(a); }, [&](F x) { return std::sin(d(x)); }, -7, 7);
  check_unary<F>("cos", [](auto&& a) { return nax::cos(a); }, [&](F x) { return std::cos(d(x)); }, -7, 7);
  check_unary<F>("tanh", [](auto&& a) { return nax::tanh(a); }, [&](F x) { return std::tanh(d(x)); }, -5, 5);
  check_unary<F>("erf", [](auto&& a) { return nax::erf(a); }, [&](F x) { return std::erf(d(x)); }, -3, 3);
  // sigmoid and log_sigmoid from their definitions, written the stable way where it matters.
  check_unary<F>("sigmoid", [](auto&& a) { return nax::sigmoid(a); },
                 [&](F x) { return d(x) >= 0 ? 1.0 / (1.0 + std::exp(-d(x))) : std::exp(d(x)) / (1.0 + std::exp(d(x))); },
                 -30, 30);
  check_unary<F>("log_sigmoid", [](auto&& a) { return nax::log_sigmoid(a); },
                 [&](F x) { return std::isinf(d(x)) ? std::min(d(x), 0.0) : std::min(d(x), 0.0) - std::log1p(std::exp(-std::fabs(d(x)))); },
                 -60, 60);
  // relu: NaN stays NaN, as jax.nn.relu.
  check_unary<F>("relu", [](auto&& a) { return nax::relu(a); },
                 [&](F x) { return std::isnan(d(x)) ? nan_d : (d(x) > 0 ? d(x) : 0.0); }, -4, 4);
  check_unary<F>("logical_not", [](auto&& a) { return !a; }, [&](F x) { return x == F(0); }, -1, 1);
  check_unary<F>("logical_not fn", [](auto&& a) { return nax::logical_not(a); }, [&](F x) { return x == F(0); }, -1, 1);
}

template <class T>
void check_float_binary_ops() {
  using F = T;
  auto d = [](auto x) { return static_cast<double>(x); };
  auto nan_max = [&](F x, F y) { return std::isnan(d(x)) || std::isnan(d(y)) ? nan_d : std::max(d(x), d(y)); };
  auto nan_min = [&](F x, F y) { return std::isnan(d(x)) || std::isnan(d(y)) ? nan_d : std::min(d(x), d(y)); };
  check_binary<F, F>("plus", [](auto&& a, auto&& b) { return a + b; }, [&](F x, F y) { return d(x) + d(y); }, -4, 4, -4, 4);
  check_binary<F, F>("minus", [](auto&& a, auto&& b) { return a - b; }, [&](F x, F y) { return d(x) - d(y); }, -4, 4, -4, 4);
  check_binary<F, F>("multiplies", [](auto&& a, auto&& b) { return a * b; }, [&](F x, F y) { return d(x) * d(y); }, -4, 4, -4, 4);
  check_binary<F, F>("divides", [](auto&& a, auto&& b) { return a / b; }, [&](F x, F y) { return d(x) / d(y); }, -4, 4, -4, 4);
  check_binary<F, F>("maximum", [](auto&& a, auto&& b) { return nax::maximum(a, b); }, nan_max, -4, 4, -4, 4);
  check_binary<F, F>("minimum", [](auto&& a, auto&& b) { return nax::minimum(a, b); }, nan_min, -4, 4, -4, 4);
  check_binary<F, F>("pow", [](auto&& a, auto&& b) { return nax::pow(a, b); }, [&](F x, F y) { return std::pow(d(x), d(y)); }, 0, 4, -3, 3);
  check_binary<F, F>("pow negative base", [](auto&& a, auto&& b) { return nax::pow(a, nax::cast<F>(nax::cast<int>(b))); },
                     [&](F x, F y) { return std::pow(d(x), std::trunc(d(y))); }, -4, 4, -4, 4, false);
  check_binary<F, F>("less", [](auto&& a, auto&& b) { return a < b; }, [&](F x, F y) { return d(x) < d(y); }, -2, 2, -2, 2);
  check_binary<F, F>("less_equal", [](auto&& a, auto&& b) { return a <= b; }, [&](F x, F y) { return d(x) <= d(y); }, -2, 2, -2, 2);
  check_binary<F, F>("greater", [](auto&& a, auto&& b) { return a > b; }, [&](F x, F y) { return d(x) > d(y); }, -2, 2, -2, 2);
  check_binary<F, F>("greater_equal", [](auto&& a, auto&& b) { return a >= b; }, [&](F x, F y) { return d(x) >= d(y); }, -2, 2, -2, 2);
  check_binary<F, F>("equal_to", [](auto&& a, auto&& b) { return a == b; }, [&](F x, F y) { return d(x) == d(y); }, -2, 2, -2, 2);
  check_binary<F, F>("not_equal_to", [](auto&& a, auto&& b) { return a != b; }, [&](F x, F y) { return d(x) != d(y); }, -2, 2, -2, 2);
  // Truth of a floating value: nonzero, NaN included.
  auto truth = [&](F x) { return !(d(x) == 0.0); };
  check_binary<F, F>("logical_and", [](auto&& a, auto&& b) { return a && b; }, [&](F x, F y) { return truth(x) && truth(y); }, -1, 1, -1, 1);
  check_binary<F, F>("logical_or", [](auto&& a, auto&& b) { return nax::logical_or(a, b); }, [&](F x, F y) { return truth(x) || truth(y); }, -1, 1, -1, 1);
}
}  // namespace

TEST_CASE("floating unary ops match <cmath> in double, with NaN, infinities and signed zeros") {
  check_float_unary_ops<float>();
  check_float_unary_ops<double>();
}

TEST_CASE("floating binary ops match <cmath> in double, matched by name across axis orders") {
  check_float_binary_ops<float>();
  check_float_binary_ops<double>();
}

TEST_CASE("maximum, minimum and relu propagate NaN from either side; infinities order") {
  nax::Array<double, i> a({6}, {nan_d, 1.0, nan_d, -inf_d, inf_d, -0.0});
  nax::Array<double, i> b({6}, {1.0, nan_d, nan_d, 3.0, 3.0, 0.0});
  nax::Array<double, i> mx = nax::maximum(a, b), mn = nax::minimum(a, b), r = nax::relu(a);
  CHECK(std::isnan(mx(0)));
  CHECK(std::isnan(mx(1)));
  CHECK(std::isnan(mx(2)));
  CHECK(mx(3) == 3.0);
  CHECK(mx(4) == inf_d);
  CHECK(mx(5) == 0.0);
  CHECK(std::isnan(mn(0)));
  CHECK(std::isnan(mn(1)));
  CHECK(std::isnan(mn(2)));
  CHECK(mn(3) == -inf_d);
  CHECK(mn(4) == 3.0);
  CHECK(std::isnan(r(0)));
  CHECK(r(1) == 1.0);
  CHECK(r(3) == 0.0);
  CHECK(r(4) == inf_d);
  nax::Array<float, i> f({3}, {std::nanf(""), -2.f, 2.f});
  nax::Array<float, i> fm = nax::maximum(f, 0.f), fn = nax::minimum(0.f, f);
  CHECK(std::isnan(fm(0)));
  CHECK(fm(1) == 0.f);
  CHECK(fm(2) == 2.f);
  CHECK(std::isnan(fn(0)));
  CHECK(fn(1) == -2.f);
  CHECK(fn(2) == 0.f);
}

namespace {
template <class T>
T expected_int_div(T x, T y) {
  if (y == 0) return std::is_signed_v<T> ? T(-1) : std::numeric_limits<T>::max();
  if constexpr (std::is_signed_v<T>)
    if (x == std::numeric_limits<T>::min() && y == T(-1)) return x;
  return static_cast<T>(x / y);
}

// Exact power by repeated multiplication modulo 2^64, then narrowed (two's complement);
// negative exponents follow XLA's integer pow: 1 -> 1, -1 -> +-1, anything else -> 0.
template <class T>
T expected_int_pow(T x, T y) {
  if constexpr (std::is_signed_v<T>) {
    if (y < 0) return x == 1 ? T(1) : (x == -1 ? (y % 2 ? T(-1) : T(1)) : T(0));
  }
  std::uint64_t r = 1, base = static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
  for (T e = 0; e < y; ++e) r *= base;
  return static_cast<T>(r);
}

template <class T>
void check_integer_ops() {
  using W = std::int64_t;  // wide enough for these ranges
  const T lo = std::is_signed_v<T> ? T(-9) : T(0), hi = T(9);
  auto w = [](T x) { return static_cast<W>(x); };
  check_binary<T, T>("int plus", [](auto&& a, auto&& b) { return a + b; }, [&](T x, T y) { return static_cast<T>(w(x) + w(y)); }, lo, hi, lo, hi);
  check_binary<T, T>("int minus", [](auto&& a, auto&& b) { return a - b; }, [&](T x, T y) { return static_cast<T>(w(x) - w(y)); }, lo, hi, lo, hi);
  check_binary<T, T>("int multiplies", [](auto&& a, auto&& b) { return a * b; }, [&](T x, T y) { return static_cast<T>(w(x) * w(y)); }, lo, hi, lo, hi);
  check_binary<T, T>("int divides", [](auto&& a, auto&& b) { return a / b; }, [](T x, T y) { return expected_int_div<T>(x, y); }, lo, hi, T(std::is_signed_v<T> ? -3 : 0), T(3));
  check_binary<T, T>("int maximum", [](auto&& a, auto&& b) { return nax::maximum(a, b); }, [&](T x, T y) { return std::max(x, y); }, lo, hi, lo, hi);
  check_binary<T, T>("int minimum", [](auto&& a, auto&& b) { return nax::minimum(a, b); }, [&](T x, T y) { return std::min(x, y); }, lo, hi, lo, hi);
  check_binary<T, T>("int pow", [](auto&& a, auto&& b) { return nax::pow(a, b); }, [](T x, T y) { return expected_int_pow<T>(x, y); }, T(std::is_signed_v<T> ? -6 : 0), T(6), T(std::is_signed_v<T> ? -3 : 0), T(9));
  check_binary<T, T>("int less", [](auto&& a, auto&& b) { return a < b; }, [&](T x, T y) { return w(x) < w(y); }, lo, hi, lo, hi);
  check_binary<T, T>("int greater_equal", [](auto&& a, auto&& b) { return a >= b; }, [&](T x, T y) { return w(x) >= w(y); }, lo, hi, lo, hi);
  check_binary<T, T>("int equal_to", [](auto&& a, auto&& b) { return a == b; }, [&](T x, T y) { return w(x) == w(y); }, T(0), T(2), T(0), T(2));
  check_binary<T, T>("int logical_or", [](auto&& a, auto&& b) { return a || b; }, [&](T x, T y) { return x != 0 || y != 0; }, T(0), T(2), T(0), T(2));
  check_unary<T>("int negate", [](auto&& a) { return -a; }, [&](T x) { return static_cast<T>(-w(x)); }, lo, hi);
  check_unary<T>("int abs", [](auto&& a) { return nax::abs(a); }, [&](T x) { return static_cast<T>(w(x) < 0 ? -w(x) : w(x)); }, lo, hi);
  check_unary<T>("int square", [](auto&& a) { return nax::square(a); }, [&](T x) { return static_cast<T>(w(x) * w(x)); }, lo, hi);
  check_unary<T>("int relu", [](auto&& a) { return nax::relu(a); }, [&](T x) { return x > 0 ? x : T(0); }, lo, hi);
}

template <class T>
void check_integer_transcendentals() {
  const T lo = std::is_signed_v<T> ? T(-9) : T(0), hi = T(9);
  // Transcendentals of integers compute in floating_t (JAX: int64 -> double, smaller -> float).
  check_unary<T>("int exp", [](auto&& a) { return nax::exp(a); }, [&](T x) { return std::exp(static_cast<double>(x)); }, lo, hi);
  check_unary<T>("int sqrt", [](auto&& a) { return nax::sqrt(a); }, [&](T x) { return std::sqrt(static_cast<double>(x)); }, lo, hi);
  check_unary<T>("int sigmoid", [](auto&& a) { return nax::sigmoid(a); }, [&](T x) { return 1.0 / (1.0 + std::exp(-static_cast<double>(x))); }, lo, hi);
}
}  // namespace

TEST_CASE("integer ops: exact arithmetic, comparisons, pow, and transcendentals in float or double as JAX") {
  check_integer_ops<std::int8_t>();
  check_integer_ops<std::int32_t>();
  check_integer_ops<std::uint32_t>();
  check_integer_transcendentals<std::int64_t>();
  check_integer_transcendentals<std::uint8_t>();
  check_integer_transcendentals<std::int32_t>();
  static_assert(std::is_same_v<value_of<decltype(nax::exp(nax::Array<std::int32_t, i>()))>, float>);
  static_assert(std::is_same_v<value_of<decltype(nax::exp(nax::Array<std::uint32_t, i>()))>, float>);
  static_assert(std::is_same_v<value_of<decltype(nax::exp(nax::Array<std::int64_t, i>()))>, double>);
  static_assert(std::is_same_v<value_of<decltype(nax::sqrt(nax::Array<bool, i>()))>, float>);
  static_assert(std::is_same_v<value_of<decltype(nax::exp(nax::Array<float, i>()))>, float>);
  static_assert(std::is_same_v<value_of<decltype(nax::abs(nax::Array<std::int16_t, i>()))>, std::int16_t>);
}

TEST_CASE("integer division by zero gives -1 (all bits set), MIN / -1 gives MIN, as XLA") {
  auto check_type = [](auto tag) {
    using T = decltype(tag);
    constexpr T mn = std::numeric_limits<T>::min(), mx = std::numeric_limits<T>::max();
    nax::Array<T, i> x({5}, {T(7), T(0), mn, mx, T(5)});
    nax::Array<T, i> y({5}, {T(0), T(0), T(std::is_signed_v<T> ? -1 : 1), T(0), T(2)});
    nax::Array<T, i> q = x / y;
    const T all_bits = static_cast<T>(~T(0));
    CHECK(q(0) == all_bits);
    CHECK(q(1) == all_bits);
    CHECK(q(2) == mn);
    CHECK(q(3) == all_bits);
    CHECK(q(4) == T(2));
    {
      nax::Array<T, i> by_scalar = x / 0;
      for (T v : by_scalar) CHECK(v == all_bits);
    }
    if constexpr (std::is_signed_v<T>) {
      CHECK(all_bits == T(-1));
      nax::Array<T, i> negated = x / -1;
      CHECK(negated(0) == T(-7));
      CHECK(negated(2) == mn);
      CHECK(negated(3) == static_cast<T>(-mx));
    }
  };
  check_type(std::int8_t{});
  check_type(std::int16_t{});
  check_type(std::int32_t{});
  check_type(std::int64_t{});
  check_type(std::uint8_t{});
  check_type(std::uint32_t{});
  check_type(std::uint64_t{});
// A C++ int next to a uint64 array adopts uint64.
  {
    nax::Array<std::uint64_t, i> x({2}, {std::uint64_t{7}, std::uint64_t{0}});
    static_assert(std::is_same_v<value_of<decltype(x + 1)>, std::uint64_t>);
    nax::Array<std::uint64_t, i> q = x / 0, p = x * 2 + 1;
    CHECK(q(0) == std::numeric_limits<std::uint64_t>::max());
    CHECK(p(0) == 15u);
  }
  // Mixed signedness divides in the promoted (wider signed) type.
  nax::Array<std::int32_t, i> s({3}, {-7, 7, -8});
  nax::Array<std::uint32_t, i> u({3}, {2u, 0u, 3u});
  auto q = nax::eval(s / u);
  static_assert(std::is_same_v<decltype(q)::value_type, std::int64_t>);
  CHECK(q(0) == -3);
  CHECK(q(1) == -1);
  CHECK(q(2) == -2);
  // Floating division by zero follows IEEE.
  nax::Array<float, i> f({3}, {1.f, -1.f, 0.f});
  nax::Array<float, i> fq = f / 0.f;
  CHECK(fq(0) == std::numeric_limits<float>::infinity());
  CHECK(fq(1) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(fq(2)));
}

TEST_CASE("integer pow is exact past double's 53-bit mantissa and handles negative exponents") {
  nax::Array<std::int64_t, i> base({5}, {3, -3, 1, -1, 0});
  nax::Array<std::int64_t, i> big = nax::pow(base, 39);  // 3^39 = 4052555153018976267 > 2^53
  CHECK(big(0) == 4052555153018976267LL);
  CHECK(big(1) == -4052555153018976267LL);
  CHECK(big(2) == 1);
  CHECK(big(3) == -1);
  CHECK(big(4) == 0);
  nax::Array<std::int64_t, i> zeroth = nax::pow(base, 0);
  for (auto v : zeroth) CHECK(v == 1);
  nax::Array<std::int64_t, i> negative = nax::pow(base, std::int64_t{-3});
  CHECK(negative(0) == 0);
  CHECK(negative(1) == 0);
  CHECK(negative(2) == 1);
  CHECK(negative(3) == -1);
  CHECK(negative(4) == 0);
  nax::Array<std::int64_t, i> even = nax::pow(base, std::int64_t{-2});
  CHECK(even(3) == 1);
  // Base and exponent arrays of different integer types promote first.
  nax::Array<std::int32_t, i> e({5}, {2, 3, 4, 5, 6});
  auto mixed = nax::eval(nax::pow(base, e));
  static_assert(std::is_same_v<decltype(mixed)::value_type, std::int64_t>);
  CHECK(mixed(0) == 9);
  CHECK(mixed(1) == -27);
  // An integer array to a weak floating power computes in double.
  auto root = nax::eval(nax::pow(nax::Array<std::int32_t, i>({2}, {4, 9}), 0.5));
  static_assert(std::is_same_v<decltype(root)::value_type, double>);
  CHECK(root(0) == 2.0);
  CHECK(root(1) == 3.0);
}

TEST_CASE("signed integer overflow wraps around (two's complement), as XLA") {
  constexpr std::int32_t mx = std::numeric_limits<std::int32_t>::max(), mn = std::numeric_limits<std::int32_t>::min();
  nax::Array<std::int32_t, i> x({2}, {mx, mn});
  nax::Array<std::int32_t, i> plus = x + 1, minus = x - 1, times = x * 2, neg = -x, absolute = nax::abs(x);
  CHECK(plus(0) == mn);
  CHECK(minus(1) == mx);
  CHECK(times(0) == -2);
  CHECK(neg(1) == mn);
  CHECK(absolute(1) == mn);
  nax::Array<std::int8_t, i> small({2}, {std::int8_t(127), std::int8_t(-128)});
  nax::Array<std::int8_t, i> small_plus = small + 1, small_neg = -small;
  CHECK(small_plus(0) == -128);
  CHECK(small_neg(1) == -128);
  // 16-bit products promote to int in C++: 65535 * 65535 must still wrap, not overflow int.
  nax::Array<std::int16_t, i> m16({2}, {std::int16_t(-1), std::int16_t(-32768)});
  nax::Array<std::int16_t, i> sq16 = nax::square(m16), prod16 = m16 * m16;
  CHECK(sq16(0) == 1);
  CHECK(sq16(1) == 0);
  CHECK(prod16(0) == 1);
  nax::Array<std::uint16_t, i> u16({1}, {std::uint16_t(65535)});
  nax::Array<std::uint16_t, i> uprod = u16 * u16, upow = nax::pow(u16, std::uint16_t{3});
  CHECK(uprod(0) == 1);
  CHECK(upow(0) == 65535);
  // 64-bit pow whose result fits but whose repeated squaring would not.
  nax::Array<std::int64_t, i> three({1}, {3});
  nax::Array<std::int64_t, i> p39 = nax::pow(three, 39);
  CHECK(p39(0) == 4052555153018976267LL);
}

TEST_CASE("a C++ integer that does not fit the array's integer type is an argument_error, as JAX") {
  nax::Array<std::int8_t, i> s8({2}, {std::int8_t(1), std::int8_t(-1)});
  nax::Array<std::uint8_t, i> u8({2}, {std::uint8_t(1), std::uint8_t(2)});
  nax::Array<std::int32_t, i> s32({1}, {3});
  CHECK_THROWS_AS((void)(s8 + 1000), nax::argument_error);
  CHECK_THROWS_AS((void)(u8 + -1), nax::argument_error);
  CHECK_THROWS_AS((void)(u8 * 256u), nax::argument_error);
  CHECK_THROWS_AS((void)(s32 + 3000000000LL), nax::argument_error);
  CHECK_THROWS_AS((void)(s32 < 3000000000LL), nax::argument_error);
  CHECK_THROWS_AS((void)nax::where(s8 > 0, s8, 300), nax::argument_error);
  CHECK_THROWS_AS((void)nax::maximum(u8, -1), nax::argument_error);
  CHECK_THROWS_WITH_AS((void)(s8 - 200), doctest::Contains("200"), nax::argument_error);
  // The extremes of the type fit.
  nax::Array<std::int8_t, i> lo = s8 + -128, hi = s8 * 127;
  CHECK(lo(0) == -127);
  CHECK(hi(1) == -127);
  nax::Array<std::uint8_t, i> top = u8 + 255u - 255;
  CHECK(top(1) == 2);
  // Floating arrays take any number; a floating number next to an int array promotes instead.
  nax::Array<float, i> f({1}, {1.f});
  CHECK_NOTHROW((void)(f + 3000000000LL));
  CHECK_NOTHROW((void)(s8 + 1000.0));
}

TEST_CASE("promotion of element types (static) and the values it keeps (run time)") {
  using nax::promote_t;
  static_assert(std::is_same_v<promote_t<float, double>, double>);
  static_assert(std::is_same_v<promote_t<std::int8_t, std::int16_t>, std::int16_t>);
  static_assert(std::is_same_v<promote_t<std::uint8_t, std::uint64_t>, std::uint64_t>);
  static_assert(std::is_same_v<promote_t<std::int32_t, float>, float>);
  static_assert(std::is_same_v<promote_t<std::int64_t, float>, float>);
  static_assert(std::is_same_v<promote_t<std::uint64_t, double>, double>);
  static_assert(std::is_same_v<promote_t<std::int32_t, std::uint32_t>, std::int64_t>);
  static_assert(std::is_same_v<promote_t<std::uint8_t, std::int16_t>, std::int16_t>);
  static_assert(std::is_same_v<promote_t<bool, std::int8_t>, std::int8_t>);
  static_assert(std::is_same_v<promote_t<bool, float>, float>);
  static_assert(std::is_same_v<promote_t<bool, bool>, bool>);
  static_assert(!nax::detail::promotable_v<std::uint64_t, std::int64_t>);
  static_assert(!nax::detail::promotable_v<std::int8_t, std::uint64_t>);
  static_assert(nax::detail::promotable_v<std::uint64_t, std::uint8_t>);

  // The value types of expressions follow promote_t.
  nax::Array<float, i> f({2}, {1.5f, -2.f});
  nax::Array<double, i> d({2}, {0.25, 4.0});
  nax::Array<std::int32_t, i> s({2}, {-5, 7});
  nax::Array<std::uint32_t, i> u({2}, {3u, 4000000000u});
  nax::Array<std::int8_t, i> s8({2}, {std::int8_t(-5), std::int8_t(100)});
  nax::Array<std::uint8_t, i> u8({2}, {std::uint8_t(200), std::uint8_t(255)});
  nax::Array<bool, i> b({2}, {true, false});
  static_assert(std::is_same_v<value_of<decltype(f + d)>, double>);
  static_assert(std::is_same_v<value_of<decltype(s * f)>, float>);
  static_assert(std::is_same_v<value_of<decltype(s + u)>, std::int64_t>);
  static_assert(std::is_same_v<value_of<decltype(b + s8)>, std::int8_t>);
  static_assert(std::is_same_v<value_of<decltype(b + b)>, bool>);
  static_assert(std::is_same_v<value_of<decltype(f < d)>, bool>);
  static_assert(std::is_same_v<value_of<decltype(nax::where(b, s, f))>, float>);
  static_assert(std::is_same_v<value_of<decltype(nax::maximum(s8, u8))>, promote_t<std::int8_t, std::uint8_t>>);

  // int32 + uint32 keeps both ranges (C++ would wrap to unsigned).
  auto su = nax::eval(s + u);
  CHECK(su(0) == -2);
  CHECK(su(1) == 4000000007LL);
  auto cmp = nax::eval(s < u);
  CHECK(cmp(0));  // -5 < 3, not -5 as a huge unsigned
  // int8 with uint8: the smallest signed type holding both, as JAX.
  static_assert(std::is_same_v<promote_t<std::int8_t, std::uint8_t>, std::int16_t>);
  static_assert(std::is_same_v<promote_t<std::uint16_t, std::int8_t>, std::int32_t>);
  static_assert(std::is_same_v<promote_t<std::int16_t, std::uint16_t>, std::int32_t>);
  auto mixed8 = nax::eval(s8 + u8);
  static_assert(std::is_same_v<value_of<decltype(mixed8)>, std::int16_t>);
  CHECK(mixed8(0) == 195);
  CHECK(mixed8(1) == 355);
  auto fd = nax::eval(f + d);
  CHECK(fd(0) == 1.75);
  auto bb = nax::eval(b + b);
  CHECK(bb(0) == true);
  CHECK(bb(1) == false);
}

TEST_CASE("C++ numbers are weakly typed: they adopt the array's type unless of a higher kind") {
  nax_test::random_source rng(11);
  auto sizes = rng.nonzero_sizes({"i", "j"});
  auto f = nax_test::random_array_of<float, IJ>(rng, sizes);
  auto n = nax_test::random_array_of<std::int32_t, JI>(rng, sizes);
  auto s8 = nax_test::random_array_of<std::int8_t, IJ>(rng, sizes);
  auto u8 = nax_test::random_array_of<std::uint8_t, IJ>(rng, sizes);
  auto bl = nax_test::random_array_of<bool, IJ>(rng, sizes);

  static_assert(std::is_same_v<value_of<decltype(f * 2.0)>, float>);
  static_assert(std::is_same_v<value_of<decltype(2.0 - f)>, float>);
  static_assert(std::is_same_v<value_of<decltype(f / 3)>, float>);
  static_assert(std::is_same_v<value_of<decltype(n * 2.5)>, double>);
  static_assert(std::is_same_v<value_of<decltype(n * 2.5f)>, float>);
  static_assert(std::is_same_v<value_of<decltype(n + std::int64_t{1})>, std::int32_t>);
  static_assert(std::is_same_v<value_of<decltype(s8 + 1)>, std::int8_t>);
  static_assert(std::is_same_v<value_of<decltype(u8 + 1)>, std::uint8_t>);
  static_assert(std::is_same_v<value_of<decltype(bl + 1)>, int>);
  static_assert(std::is_same_v<value_of<decltype(bl && true)>, bool>);
  static_assert(std::is_same_v<value_of<decltype(n < 2.5)>, bool>);

  nax::Array<float, i, j> f2 = f * 2.0;
  nax_test::check_all(f2, [&](const index_map& x) { return at(f, x) * 2.f; }, 0, 0);
  nax::Array<float, i, j> f3 = 2.0 - f;
  nax_test::check_all(f3, [&](const index_map& x) { return 2.f - at(f, x); }, 0, 0);
  nax::Array<double, i, j> n25 = n * 2.5;
  nax_test::check_all(n25, [&](const index_map& x) { return static_cast<double>(at(n, x)) * 2.5; }, 0, 0);
  nax::Array<std::int32_t, j, i> half = n / 2;
  nax_test::check_all(half, [&](const index_map& x) { return at(n, x) / 2; }, 0, 0);
  nax::Array<std::int8_t, i, j> s8p = s8 + 1;
  nax_test::check_all(s8p, [&](const index_map& x) { return static_cast<std::int8_t>(at(s8, x) + 1); }, 0, 0);
  nax::Array<int, i, j> blp = bl + 1;
  nax_test::check_all(blp, [&](const index_map& x) { return (at(bl, x) ? 1 : 0) + 1; }, 0, 0);
  // The number is compared in the promoted type: 2 < 2.5 holds, 2 == 2.5 does not.
  nax::Array<std::int32_t, i> two({3}, {2, 3, -2});
  nax::Array<bool, i> lt = two < 2.5, eq = two == 2.5, gt = -2.5 < two;
  CHECK(lt(0));
  CHECK(!lt(1));
  CHECK(!eq(0));
  CHECK(gt(2));
}

TEST_CASE("where: condition, branches and numbers broadcast by name") {
  nax_test::random_source rng(12);
  for (int trial = 0; trial < 8; ++trial) {
    auto sizes = rng.sizes({"i", "j"});
    auto c = nax_test::random_array_of<bool, IJ>(rng, sizes);
    auto a = nax_test::random_array_of<float, nax::axes<j>>(rng, sizes);
    auto b = nax_test::random_array_of<double, JI>(rng, sizes);
    auto n = nax_test::random_array_of<std::int32_t, IJ>(rng, sizes);

    nax::Array<double, j, i> ab = nax::where(c, a, b);
    nax_test::check_all(ab, [&](const index_map& x) { return at(c, x) ? double(at(a, x)) : at(b, x); }, 0, 0);

    auto a_zero = nax::where(c, a, 0);  // a number adopts the other branch's type
    static_assert(std::is_same_v<value_of<decltype(a_zero)>, float>);
    nax::Array<float, i, j> az = a_zero;
    nax_test::check_all(az, [&](const index_map& x) { return at(c, x) ? at(a, x) : 0.f; }, 0, 0);

    auto half_n = nax::where(c, 0.5, n);  // a floating number next to an int branch: double
    static_assert(std::is_same_v<value_of<decltype(half_n)>, double>);
    nax::Array<double, i, j> hn = half_n;
    nax_test::check_all(hn, [&](const index_map& x) { return at(c, x) ? 0.5 : double(at(n, x)); }, 0, 0);

    auto numbers = nax::where(c, 2, 3.5f);  // two numbers: their promotion
    static_assert(std::is_same_v<value_of<decltype(numbers)>, float>);
    nax::Array<float, i, j> nn = numbers;
    nax_test::check_all(nn, [&](const index_map& x) { return at(c, x) ? 2.f : 3.5f; }, 0, 0);

    // A non-bool condition: nonzero is true.
    nax::Array<std::int32_t, j, i> by_int = nax::where(n, n, -100);
    nax_test::check_all(by_int, [&](const index_map& x) { return at(n, x) != 0 ? at(n, x) : -100; }, 0, 0);
    // A condition built from a comparison.
    nax::Array<float, i, j> clipped = nax::where(a > 0.f, a, c && (a < -1.f));
    nax_test::check_all(clipped, [&](const index_map& x) {
      return at(a, x) > 0.f ? at(a, x) : ((at(c, x) && at(a, x) < -1.f) ? 1.f : 0.f);
    }, 0, 0);
  }
}

TEST_CASE("cast converts every element as static_cast does") {
  nax_test::random_source rng(13);
  for (int trial = 0; trial < 6; ++trial) {
    auto sizes = rng.sizes({"i", "j"});
    auto f = nax_test::random_array_of<float, IJ>(rng, sizes, -300.f, 300.f);
    auto n = nax_test::random_array_of<std::int32_t, JI>(rng, sizes, 0, 300);
    auto d = nax_test::random_array_of<double, IJ>(rng, sizes);

    auto to_int = nax::cast<std::int32_t>(f);
    static_assert(std::is_same_v<value_of<decltype(to_int)>, std::int32_t>);
    nax::Array<std::int32_t, j, i> ti = to_int;  // toward zero
    nax_test::check_all(ti, [&](const index_map& x) { return static_cast<std::int32_t>(std::trunc(at(f, x))); }, 0, 0);
    nax::Array<std::uint8_t, i, j> tu = nax::cast<std::uint8_t>(n);  // modulo 256
    nax_test::check_all(tu, [&](const index_map& x) { return static_cast<std::uint8_t>(at(n, x) % 256); }, 0, 0);
    nax::Array<bool, i, j> tb = nax::cast<bool>(n);
    nax_test::check_all(tb, [&](const index_map& x) { return at(n, x) != 0; }, 0, 0);
    nax::Array<float, i, j> tf = nax::cast<float>(d);  // narrowing allowed when explicit
    nax_test::check_all(tf, [&](const index_map& x) { return static_cast<float>(at(d, x)); }, 0, 0);
    nax::Array<float, i, j> from_bool = nax::cast<float>(tb) * 3.f;
    nax_test::check_all(from_bool, [&](const index_map& x) { return at(n, x) != 0 ? 3.f : 0.f; }, 0, 0);
  }
}

TEST_CASE("a fused chain of many ops matches the reference in one pass") {
  nax_test::random_source rng(14);
  for (int trial = 0; trial < 6; ++trial) {
    auto sizes = rng.sizes({"i", "j"}, 7);
    auto x = nax_test::random_array_of<double, IJ>(rng, sizes);
    auto y = nax_test::random_array_of<float, JI>(rng, sizes);
    nax::Array<double, j, i> out = nax::where(x > y, nax::exp(-nax::square(x)) * y + 1,
                                              nax::tanh(x - y) / (nax::abs(y) + 1.f)) -
                                   nax::maximum(x, 0.5) * nax::sigmoid(y);
    nax_test::check_all(out, [&](const index_map& at_) {
      double a = at(x, at_), b = at(y, at_);
      double chosen = a > b ? std::exp(-a * a) * b + 1 : std::tanh(a - b) / (std::fabs(b) + 1.0);
      return chosen - std::max(a, 0.5) * (1.0 / (1.0 + std::exp(-b)));
    }, 1e-6, 1e-6);
  }
}
