// Reverse-mode rules of the elementwise operations against central finite differences
// (double precision, random inputs and extents, size-1 axes included).
#include "elementwise_checks.hpp"

TEST_CASE("grad: unary elementwise functions against finite differences (2)") {
  check_unary("sin", [](const auto& a) { return nax::sin(a); }, -3, 3, 11);
  check_unary("cos", [](const auto& a) { return nax::cos(a); }, -3, 3, 12);
  check_unary("tanh", [](const auto& a) { return nax::tanh(a); }, -2, 2, 13);
  check_unary("erf", [](const auto& a) { return nax::erf(a); }, -2, 2, 14);
  check_unary("sigmoid", [](const auto& a) { return nax::sigmoid(a); }, -4, 4, 15);
  check_unary("log_sigmoid", [](const auto& a) { return nax::log_sigmoid(a); }, -4, 4, 16);
  check_unary("composition", [](const auto& a) { return nax::tanh(nax::exp(a) * a) - a / (1.0 + nax::square(a)); }, -1, 1, 17);
  check_unary("scalar operands", [](const auto& a) { return 2.0 * a - 3.0 / (a + 5.0) + nax::pow(a, 3.0); }, -1, 1, 18);
  check_unary("where", [](const auto& a) { return nax::where(a > 0.0, nax::square(a), -a * 3.0); }, -2, 2, 19);
  check_unary("cast", [](const auto& a) { return nax::cast<double>(a) * 2.0; }, -2, 2, 20);
}

TEST_CASE("grad: maximum and minimum split ties in halves, as JAX") {
  nax::Array<double, i> x({3}, {1.0, 2.0, 3.0});
  nax::Array<double, i> y({3}, {1.0, 1.0, 4.0});
  auto [gx, gy] = nax::grad<0, 1>([](const auto& a, const auto& b) { return nax::sum(nax::maximum(a, b)); })(x, y);
  CHECK(gx(0) == 0.5);
  CHECK(gy(0) == 0.5);
  CHECK(gx(1) == 1.0);
  CHECK(gy(1) == 0.0);
  CHECK(gx(2) == 0.0);
  CHECK(gy(2) == 1.0);
}

TEST_CASE("grad: integer operands get no gradient; float gradients of float arrays") {
  nax::Array<float, i> x({3}, {1.f, -2.f, 3.f});
  nax::Array<int, i> k({3}, {1, 2, 3});
  auto g = nax::grad([&](const auto& a) { return nax::sum(a * k + nax::cast<float>(k)); })(x);
  static_assert(std::is_same_v<decltype(g), nax::Array<float, i>>);
  CHECK(g(0) == 1.f);
  CHECK(g(1) == 2.f);
  CHECK(g(2) == 3.f);
  auto [v, g2] = nax::value_and_grad([](const auto& a) { return nax::sum(nax::square(a)); })(x);
  CHECK(v.item() == 14.f);
  CHECK(g2(1) == -4.f);
}
