// expect: nax: bitwise operations .* take integer or bool elements, and an operand's element type \(Ts\) is floating point
// expect: require_integer_elements<float, int>
// Bits of floats: jnp.bitwise_and refuses floating arrays too; compare or cast first.
#include <nax/nax.hpp>
#include <cstdint>

NAX_AXIS(row);

int main() {
  nax::Array<float, row> x({4});
  nax::Array<std::int32_t, row> k({4});
  auto e = nax::bitwise_and(x, k);
  (void)e;
}
