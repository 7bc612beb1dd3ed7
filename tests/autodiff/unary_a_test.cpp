// Reverse-mode rules of the elementwise operations against central finite differences
// (double precision, random inputs and extents, size-1 axes included).
#include "elementwise_checks.hpp"

TEST_CASE("grad: unary elementwise functions against finite differences (1)") {
  check_unary("negate", [](const auto& a) { return -a; }, -2, 2, 1);
  check_unary("abs", [](const auto& a) { return nax::abs(a); }, -2, 2, 2);
  check_unary("square", [](const auto& a) { return nax::square(a); }, -2, 2, 3);
  check_unary("relu", [](const auto& a) { return nax::relu(a); }, -2, 2, 4);
  check_unary("exp", [](const auto& a) { return nax::exp(a); }, -2, 2, 5);
  check_unary("log", [](const auto& a) { return nax::log(a); }, 0.2, 3, 6);
  check_unary("log1p", [](const auto& a) { return nax::log1p(a); }, -0.5, 3, 7);
  check_unary("expm1", [](const auto& a) { return nax::expm1(a); }, -2, 2, 8);
  check_unary("sqrt", [](const auto& a) { return nax::sqrt(a); }, 0.2, 3, 9);
  check_unary("rsqrt", [](const auto& a) { return nax::rsqrt(a); }, 0.2, 3, 10);
}
