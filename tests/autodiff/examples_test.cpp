// The JAX program's training programs: train_xmap's losses equal train_pmap's (to 1e-6), and both fall.
#define NAX_EXAMPLE_NO_MAIN
#include <doctest/doctest.h>

#include "../../examples/train_pmap.cpp"
#include "../../examples/train_xmap.cpp"

TEST_CASE("examples: train_xmap's losses equal train_pmap's, and the loss falls") {
  auto a = train_pmap::run(false);
  auto b = train_xmap::run(false);
  REQUIRE(a.size() == 10);
  REQUIRE(b.size() == 10);
  for (std::size_t s = 0; s < a.size(); ++s) CHECK(std::abs(a[s] - b[s]) <= 1e-6 * std::max(1.0, std::abs(a[s])));
  for (std::size_t s = 1; s < a.size(); ++s) CHECK(a[s] < a[s - 1]);
}
