// expect-compile
// Control for the compile-fail tests: the umbrella header compiles with the same command, so a
// failing snippet fails because of what it tests, not because the setup is broken.
#include <nax/nax.hpp>

int main() {
  nax::index_t n = 3;
  return n == 3 ? 0 : 1;
}
