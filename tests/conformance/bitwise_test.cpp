// Conformance with JAX, family `bitwise` (data/bitwise/): bitwise_and/or/xor/not, invert and the
// shifts on integer and bool elements (out-of-range amounts, mixed types, C++ numbers), result
// types and values, on the host (programs: bitwise.hpp).
#include "bitwise.hpp"

TEST_CASE("conformance bitwise: and, or, xor, not, invert, left_shift and right_shift against JAX") {
  const auto cases = conf::load_family("bitwise");
  const auto t = conf::run_family(cases, conf_bitwise::run<conf::host_backend>, "bitwise");
  CHECK(t.run == 65);
}
