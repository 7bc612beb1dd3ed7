// expect: nax::random::choice: the weights p have exactly the sampled axis A
// Weights along another axis than the one sampled from.
#include <nax/nax.hpp>

NAX_AXIS(row);
NAX_AXIS(cls);
NAX_AXIS(other);
NAX_AXIS(pick);

int main() {
  nax::Array<float, row, cls> x({2, 3});
  nax::Array<float, other> p({3});
  auto y = nax::random::choice<pick, cls>(nax::random::key(0), x, 2, true, p);
  (void)y;
}
