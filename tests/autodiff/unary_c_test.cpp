// Reverse-mode rules of the elementwise ops added for models (rounding, inverse and hyperbolic
// functions, activations, arctan2, hypot, fmod, remainder) against central finite differences,
// and the derivatives JAX takes at their kinks (relu6, leaky_relu, elu, rounding: 0 or 1).
#include "elementwise_checks.hpp"

TEST_CASE("grad: inverse and hyperbolic functions against finite differences") {
  check_unary("tan", [](const auto& a) { return nax::tan(a); }, -1.2, 1.2, 31);
  check_unary("arcsin", [](const auto& a) { return nax::arcsin(a); }, -0.9, 0.9, 32);
  check_unary("arccos", [](const auto& a) { return nax::arccos(a); }, -0.9, 0.9, 33);
  check_unary("arctan", [](const auto& a) { return nax::arctan(a); }, -3, 3, 34);
  check_unary("sinh", [](const auto& a) { return nax::sinh(a); }, -2, 2, 35);
  check_unary("cosh", [](const auto& a) { return nax::cosh(a); }, -2, 2, 36);
  check_unary("arcsinh", [](const auto& a) { return nax::arcsinh(a); }, -3, 3, 37);
  check_unary("arccosh", [](const auto& a) { return nax::arccosh(a); }, 1.2, 4, 38);
  check_unary("arctanh", [](const auto& a) { return nax::arctanh(a); }, -0.9, 0.9, 39);
}

TEST_CASE("grad: activations against finite differences") {
  check_unary("softplus", [](const auto& a) { return nax::softplus(a); }, -4, 4, 41);
  check_unary("silu", [](const auto& a) { return nax::silu(a); }, -4, 4, 42);
  check_unary("gelu exact", [](const auto& a) { return nax::gelu<false>(a); }, -4, 4, 43);
  check_unary("gelu tanh", [](const auto& a) { return nax::gelu(a); }, -4, 4, 44);
  check_unary("relu6", [](const auto& a) { return nax::relu6(a); }, 0.1, 5.9, 45);
  check_unary("leaky_relu", [](const auto& a) { return nax::leaky_relu(a, 0.2); }, 0.1, 3, 46);
  check_unary("leaky_relu negative", [](const auto& a) { return nax::leaky_relu(a, 0.2); }, -3, -0.1, 47);
  check_unary("elu", [](const auto& a) { return nax::elu(a, 1.5); }, -3, -0.1, 48);
}

TEST_CASE("grad: arctan2, hypot, fmod and remainder against finite differences, both operand orders") {
  check_binary("arctan2", [](const auto& a, const auto& b) { return nax::arctan2(a, b); }, 0.3, 3, 51);
  check_binary("hypot", [](const auto& a, const auto& b) { return nax::hypot(a, b); }, 0.3, 3, 52);
  // Away from the jumps: x / y in (1.1, 1.9) and (2.1, 2.9) never crosses an integer for h = 1e-5.
  nax_test::random_source rng(53);
  for (double q : {1.5, 2.5, -1.5}) {
    auto y = nax_test::random_array<double, j>(rng, {3}, 0.5, 2.0);
    nax::Array<double, i, j> x({2, 3});
    for (index_t r = 0; r < 2; ++r)
      for (index_t c = 0; c < 3; ++c) x(r, c) = (q + 0.1 * r) * y(c);
    auto [gx, gy] = nax::grad<0, 1>([](const auto& a, const auto& b) { return nax::sum(nax::fmod(a, b)); })(x, y);
    auto [hx, hy] = nax::grad<0, 1>([](const auto& a, const auto& b) { return nax::sum(nax::remainder(a, b)); })(x, y);
    CHECK(nax_ad_test::fd_error([&] { return nax::sum(nax::fmod(x, y)).item(); }, x, gx) < 1e-6);
    CHECK(nax_ad_test::fd_error([&] { return nax::sum(nax::fmod(x, y)).item(); }, y, gy) < 1e-6);
    CHECK(nax_ad_test::fd_error([&] { return nax::sum(nax::remainder(x, y)).item(); }, x, hx) < 1e-6);
    CHECK(nax_ad_test::fd_error([&] { return nax::sum(nax::remainder(x, y)).item(); }, y, hy) < 1e-6);
  }
}

TEST_CASE("grad at the kinks: relu6 0 at 0 and 6, leaky_relu and elu 1 at 0, rounding and sign 0 (as JAX)") {
  NAX_AXIS(k);
  nax::Array<double, k> x({4});
  x(0) = 0.0, x(1) = 6.0, x(2) = 2.5, x(3) = -1.0;
  auto g6 = nax::grad([](const auto& a) { return nax::sum(nax::relu6(a)); })(x);
  CHECK(g6(0) == 0.0);
  CHECK(g6(1) == 0.0);
  CHECK(g6(2) == 1.0);
  CHECK(g6(3) == 0.0);
  auto gl = nax::grad([](const auto& a) { return nax::sum(nax::leaky_relu(a)); })(x);
  CHECK(gl(0) == 1.0);
  CHECK(gl(3) == doctest::Approx(0.01));
  auto ge = nax::grad([](const auto& a) { return nax::sum(nax::elu(a)); })(x);
  CHECK(ge(0) == 1.0);
  CHECK(ge(3) == doctest::Approx(std::exp(-1.0)));
  auto gr = nax::grad([](const auto& a) {
    return nax::sum(nax::round(a) + nax::floor(a) + nax::ceil(a) + nax::trunc(a) + nax::sign(a));
  })(x);
  for (index_t n = 0; n < 4; ++n) CHECK(gr(n) == 0.0);
}

TEST_CASE("jvp through a predicate: isnan and comparisons carry no tangent") {
  NAX_AXIS(k);
  nax::Array<double, k> x({3}), t({3});
  for (index_t n = 0; n < 3; ++n) x(n) = double(n) - 1, t(n) = 1;
  auto f = [](const auto& a) { return nax::sum(nax::where(nax::isnan(a) || a < 0.0, 0.0, a * a) + nax::cast<double>(nax::isinf(a))); };
  auto [value, tangent] = nax::jvp(f, nax::tuple(x), nax::tuple(t));
  CHECK(value.item() == doctest::Approx(1.0));
  CHECK(tangent.item() == doctest::Approx(2.0));  // d/dx x^2 at 1; 0 at -1 (branch 0) and at 0
}
