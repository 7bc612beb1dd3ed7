// Reverse-mode rules of the elementwise operations against central finite differences
// (double precision, random inputs and extents, size-1 axes included).
#include "elementwise_checks.hpp"

TEST_CASE("grad: binary elementwise functions against finite differences, broadcasting by name (2)") {
  check_binary("maximum", [](const auto& a, const auto& b) { return nax::maximum(a, b); }, -2, 2, 35);
  check_binary("minimum", [](const auto& a, const auto& b) { return nax::minimum(a, b); }, -2, 2, 36);
  check_binary("pow", [](const auto& a, const auto& b) { return nax::pow(a, b); }, 0.5, 2, 37);
  check_binary("where", [](const auto& a, const auto& b) { return nax::where(a > b, a * b, b - a); }, -2, 2, 38);
}
