// The elementwise ops added for models (expr/math.hpp): rounding, sign, the inverse and
// hyperbolic functions, activations (softplus, silu, gelu, relu6), predicates, arctan2, hypot,
// fmod and remainder, against <cmath> in double on random extents with NaN, infinities and
// signed zeros; integer semantics (rounding is the identity, division by zero gives 0) as JAX.
#include "elementwise_checks.hpp"

namespace {
NAX_AXIS(k);

// Same value, or both NaN; the sign of a zero counts (sign(-0.0) is -0.0, as jnp.sign).
bool same_bits(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

double gelu_exact_ref(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double gelu_tanh_ref(double x) {
  return 0.5 * x * (1 + std::tanh(0.79788456080286535588 /* sqrt(2 / pi) */ * (x + 0.044715 * x * x * x)));
}
// silu and gelu are x times a factor that is 0 at -inf: NaN there (as JAX's x * sigmoid(x)).
double minus_inf_nan(double x) { return x > 0 ? x : std::numeric_limits<double>::quiet_NaN(); }
double softplus_ref(double x) {
  if (std::isnan(x)) return x;
  return x > 30 ? x : (x < -30 ? std::exp(x) : std::log1p(std::exp(x)));
}

template <class F>
void check_new_float_unary_ops() {
  auto d = [](auto x) { return static_cast<double>(x); };
  check_unary<F>("tan", [](auto&& a) { return nax::tan(a); }, [&](F x) { return std::tan(d(x)); }, -1.5, 1.5);
  check_unary<F>("arcsin", [](auto&& a) { return nax::arcsin(a); }, [&](F x) { return std::asin(d(x)); }, -1.2, 1.2);
  check_unary<F>("arccos", [](auto&& a) { return nax::arccos(a); }, [&](F x) { return std::acos(d(x)); }, -1.2, 1.2);
  check_unary<F>("arctan", [](auto&& a) { return nax::arctan(a); }, [&](F x) { return std::atan(d(x)); }, -9, 9);
  check_unary<F>("sinh", [](auto&& a) { return nax::sinh(a); }, [&](F x) { return std::sinh(d(x)); }, -5, 5);
  check_unary<F>("cosh", [](auto&& a) { return nax::cosh(a); }, [&](F x) { return std::cosh(d(x)); }, -5, 5);
  check_unary<F>("arcsinh", [](auto&& a) { return nax::arcsinh(a); }, [&](F x) { return std::asinh(d(x)); }, -9, 9);
  check_unary<F>("arccosh", [](auto&& a) { return nax::arccosh(a); }, [&](F x) { return std::acosh(d(x)); }, 0.5, 9);
  check_unary<F>("arctanh", [](auto&& a) { return nax::arctanh(a); }, [&](F x) { return std::atanh(d(x)); }, -1.2, 1.2);
  check_unary<F>("softplus", [](auto&& a) { return nax::softplus(a); }, [&](F x) { return softplus_ref(d(x)); }, -80, 80);
  check_unary<F>("silu", [](auto&& a) { return nax::silu(a); },
                 [&](F x) { return std::isinf(d(x)) ? minus_inf_nan(d(x)) : d(x) / (1 + std::exp(-d(x))); }, -30, 30);
  check_unary<F>("gelu exact", [](auto&& a) { return nax::gelu<false>(a); },
                 [&](F x) { return std::isinf(d(x)) ? minus_inf_nan(d(x)) : gelu_exact_ref(d(x)); }, -6, 6);
  check_unary<F>("gelu tanh", [](auto&& a) { return nax::gelu(a); },
                 [&](F x) { return std::isinf(d(x)) ? minus_inf_nan(d(x)) : gelu_tanh_ref(d(x)); }, -6, 6);
  check_unary<F>("relu6", [](auto&& a) { return nax::relu6(a); },
                 [&](F x) { return std::isnan(d(x)) ? d(x) : std::min(std::max(d(x), 0.0), 6.0); }, -3, 9);
  check_unary<F>("isnan", [](auto&& a) { return nax::isnan(a); }, [&](F x) { return std::isnan(d(x)); }, -3, 3);
  check_unary<F>("isinf", [](auto&& a) { return nax::isinf(a); }, [&](F x) { return std::isinf(d(x)); }, -3, 3);
  check_unary<F>("isfinite", [](auto&& a) { return nax::isfinite(a); }, [&](F x) { return std::isfinite(d(x)); }, -3, 3);
}

template <class F>
void check_new_float_binary_ops() {
  auto d = [](auto x) { return static_cast<double>(x); };
  check_binary<F, F>("arctan2", [](auto&& a, auto&& b) { return nax::arctan2(a, b); },
                     [&](F y, F x) { return std::atan2(d(y), d(x)); }, -4, 4, -4, 4);
  check_binary<F, F>("hypot", [](auto&& a, auto&& b) { return nax::hypot(a, b); },
                     [&](F x, F y) { return std::hypot(d(x), d(y)); }, -4, 4, -4, 4);
  check_binary<F, F>("fmod", [](auto&& a, auto&& b) { return nax::fmod(a, b); },
                     [&](F x, F y) { return double(std::fmod(x, y)); }, -9, 9, -4, 4);
  // Floored division's remainder, from fmod (exact in F) by the definition.
  auto floored = [](F x, F y) {
    F t = std::fmod(x, y);
    if (t != F(0) && ((t < F(0)) != (y < F(0)))) t += y;
    return double(t);
  };
  check_binary<F, F>("remainder", [](auto&& a, auto&& b) { return nax::remainder(a, b); }, floored, -9, 9, -4, 4);
  check_binary<F, F>("mod", [](auto&& a, auto&& b) { return nax::mod(a, b); }, floored, -9, 9, -4, 4);
}
}  // namespace

TEST_CASE("inverse, hyperbolic and activation functions match <cmath> in double, with NaN and infinities") {
  check_new_float_unary_ops<float>();
  check_new_float_unary_ops<double>();
}

TEST_CASE("arctan2, hypot, fmod and remainder match <cmath>, matched by name across axis orders") {
  check_new_float_binary_ops<float>();
  check_new_float_binary_ops<double>();
}

TEST_CASE("rounding and sign: halves to even, signed zeros and NaN kept, as jnp") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> in = {0.5, 1.5, 2.5, -0.5, -1.5, -2.7, 2.7, -0.0, 0.0, nan, inf, -inf, 1e300, -3.0};
  nax::Array<double, k> x({index_t(in.size())});
  for (std::size_t n = 0; n < in.size(); ++n) x(index_t(n)) = in[n];
  nax::Array<double, k> r = nax::round(x), f = nax::floor(x), c = nax::ceil(x), t = nax::trunc(x), s = nax::sign(x);
  for (std::size_t n = 0; n < in.size(); ++n) {
    CAPTURE(in[n]);
    CHECK(same_bits(r(index_t(n)), std::nearbyint(in[n])));  // the default mode: to nearest, ties to even
    CHECK(same_bits(f(index_t(n)), std::floor(in[n])));
    CHECK(same_bits(c(index_t(n)), std::ceil(in[n])));
    CHECK(same_bits(t(index_t(n)), std::trunc(in[n])));
    const double want_sign = in[n] > 0 ? 1.0 : (in[n] < 0 ? -1.0 : in[n]);
    CHECK(same_bits(s(index_t(n)), want_sign));
  }
  CHECK(r(0) == 0.0);
  CHECK(r(1) == 2.0);
  CHECK(r(2) == 2.0);
  CHECK(std::signbit(r(3)));  // round(-0.5) = -0.0
}

TEST_CASE("rounding keeps integers; sign, fmod and remainder on integers as jnp (a zero divisor gives 0)") {
  nax::Array<std::int32_t, k> x({7}), y({7});
  const std::int32_t xs[] = {-7, 7, -7, 7, 0, std::numeric_limits<std::int32_t>::min(), 5};
  const std::int32_t ys[] = {0, 0, 3, -3, 0, -1, 2};
  for (index_t n = 0; n < 7; ++n) x(n) = xs[n], y(n) = ys[n];
  nax::Array<std::int32_t, k> f = nax::fmod(x, y), r = nax::remainder(x, y), s = nax::sign(x), fl = nax::floor(x),
                              ro = nax::round(x);
  static_assert(std::is_same_v<decltype(nax::floor(x))::value_type, std::int32_t>);
  const std::int32_t want_fmod[] = {0, 0, -1, 1, 0, 0, 1}, want_rem[] = {0, 0, 2, -2, 0, 0, 1};
  for (index_t n = 0; n < 7; ++n) {
    CAPTURE(n);
    CHECK(f(n) == want_fmod[n]);
    CHECK(r(n) == want_rem[n]);
    CHECK(s(n) == (xs[n] > 0 ? 1 : (xs[n] < 0 ? -1 : 0)));
    CHECK(fl(n) == xs[n]);
    CHECK(ro(n) == xs[n]);
  }
  // Unsigned: no negative values, sign is 0 or 1.
  nax::Array<std::uint8_t, k> u({3});
  u(0) = 0, u(1) = 1, u(2) = 200;
  nax::Array<std::uint8_t, k> su = nax::sign(u);
  CHECK(su(0) == 0);
  CHECK(su(1) == 1);
  CHECK(su(2) == 1);
}

TEST_CASE("the predicates and rounding of integer arrays: isnan and isinf false, isfinite true") {
  nax::Array<std::int32_t, k> x({4});
  for (index_t n = 0; n < 4; ++n) x(n) = std::int32_t(n) - 2;
  nax::Array<bool, k> a = nax::isnan(x), b = nax::isinf(x), c = nax::isfinite(x);
  for (index_t n = 0; n < 4; ++n) {
    CHECK_FALSE(a(n));
    CHECK_FALSE(b(n));
    CHECK(c(n));
  }
}

TEST_CASE("clip: bounds that broadcast by name, NaN kept, lo > hi gives hi, and its gradient") {
  nax_test::random_source rng(3120);
  NAX_AXIS(r);
  for (int trial = 0; trial < 20; ++trial) {
    const index_t nk = rng.extent(6), nr = rng.extent(4);
    auto x = nax_test::random_array<double, k, r>(rng, {nk, nr}, -3.0, 3.0);
    if (x.size() > 0 && rng.chance(0.5)) x.data()[0] = std::numeric_limits<double>::quiet_NaN();
    auto lo = nax_test::random_array<double, r>(rng, {nr}, -2.0, 1.0);  // per position of r
    nax::Array<double, r, k> y = nax::clip(x, lo, 1.5);
    nax_test::check_all(y, [&](const nax_test::index_map& at) {
      const double v = x(at.at("k"), at.at("r")), l = lo(at.at("r"));
      return std::isnan(v) ? v : std::min(std::max(v, l), 1.5);
    });
    nax::Array<int, k, r> i = nax::clip(nax::cast<int>(x * 2.0), 3, -1);  // lo > hi: hi, as jnp.clip
    nax_test::check_all(i, [](const nax_test::index_map&) { return -1; });
    // d/dx: 1 strictly inside the bounds, 0 outside
    auto smooth = nax_test::random_array<double, k, r>(rng, {nk, nr}, -3.0, 3.0);
    auto g = nax::grad([](const auto& v) { return nax::sum(nax::clip(v, -1.0, 1.0)); })(smooth);
    nax_test::check_all(g, [&](const nax_test::index_map& at) { return std::fabs(nax_test::at(smooth, at)) < 1 ? 1.0 : 0.0; });
  }
}

TEST_CASE("cast from floating point to integers as XLA: NaN gives 0, values outside the type saturate") {
  nax::Array<float, k> x({8});
  const float in[] = {std::numeric_limits<float>::quiet_NaN(), 1e10f, -1e10f, std::numeric_limits<float>::infinity(),
                      -std::numeric_limits<float>::infinity(), -3.7f, 2.5e9f, 126.9f};
  for (int i = 0; i < 8; ++i) x(i) = in[i];
  // jnp.array(in, float32).astype(...), printed by JAX 0.10.2
  const std::int64_t i32[] = {0, 2147483647, -2147483648LL, 2147483647, -2147483648LL, -3, 2147483647, 126};
  const std::int64_t u8[] = {0, 255, 0, 255, 0, 0, 255, 126};
  const std::int64_t i8[] = {0, 127, -128, 127, -128, -3, 127, 126};
  const std::int64_t u32[] = {0, 4294967295LL, 0, 4294967295LL, 0, 0, 2500000000LL, 126};
  nax::Array<std::int32_t, k> a = nax::cast<std::int32_t>(x);
  nax::Array<std::uint8_t, k> b = nax::cast<std::uint8_t>(x);
  nax::Array<std::int8_t, k> c = nax::cast<std::int8_t>(x);
  nax::Array<std::uint32_t, k> d = nax::cast<std::uint32_t>(x);
  nax::Array<std::int64_t, k> e = nax::cast<std::int64_t>(nax::cast<double>(x) * 1e9);
  for (int i = 0; i < 8; ++i) {
    INFO("element " << i);
    CHECK(a(i) == i32[i]);
    CHECK(b(i) == u8[i]);
    CHECK(c(i) == i8[i]);
    CHECK(d(i) == u32[i]);
  }
  CHECK(e(0) == 0);
  CHECK(e(1) == std::numeric_limits<std::int64_t>::max());
  CHECK(e(2) == std::numeric_limits<std::int64_t>::lowest());
  CHECK(e(7) == std::int64_t(126.9f * 1e9));  // in range: truncated toward zero
}
