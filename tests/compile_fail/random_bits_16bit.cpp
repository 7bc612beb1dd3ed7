// expect: nax::random draws 32- or 64-bit values
// The element-level random_bits<T>(key, i) with a 16-bit T: JAX draws 32- or 64-bit words.
#include <nax/nax.hpp>

#include <cstdint>

int main() {
  auto bits = nax::random::random_bits<std::uint16_t>(nax::random::key(0), 0);
  (void)bits;
}
