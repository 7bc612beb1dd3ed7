// expect: nax::random::bits draws std::uint32_t or std::uint64_t
// bits with a 16-bit element type (JAX's bits draws 32- or 64-bit words here).
#include <nax/nax.hpp>

NAX_AXIS(sample);

int main() {
  auto b = nax::random::bits<std::uint16_t, sample>(nax::random::key(0), {8});
  (void)b;
}
