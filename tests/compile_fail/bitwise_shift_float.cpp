// expect: nax: bitwise operations .* take integer or bool elements
// expect: require_integer_elements<int, double>
// A shift by a floating number (operator<<): jnp.left_shift refuses it; use an integer amount.
#include <nax/nax.hpp>
#include <cstdint>

NAX_AXIS(row);

int main() {
  nax::Array<std::int32_t, row> k({4});
  auto e = k << 1.0;
  (void)e;
}
