// Reverse-mode rules of the elementwise operations against central finite differences
// (double precision, random inputs and extents, size-1 axes included).
#include "elementwise_checks.hpp"

TEST_CASE("grad: binary elementwise functions against finite differences, broadcasting by name (1)") {
  check_binary("plus", [](const auto& a, const auto& b) { return a + b; }, -2, 2, 31);
  check_binary("minus", [](const auto& a, const auto& b) { return a - b; }, -2, 2, 32);
  check_binary("multiplies", [](const auto& a, const auto& b) { return a * b; }, -2, 2, 33);
  check_binary("divides", [](const auto& a, const auto& b) { return a / b; }, 0.5, 2, 34);
}
