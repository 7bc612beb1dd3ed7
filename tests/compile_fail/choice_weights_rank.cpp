// expect: nax::random::choice: the weights p are a floating-point array of one axis
// Weights over two axes: choice draws from one population.
#include <nax/nax.hpp>

NAX_AXIS(row);
NAX_AXIS(cls);
NAX_AXIS(pick);

int main() {
  nax::Array<float, row, cls> p({2, 3});
  auto i = nax::random::choice<pick>(nax::random::key(0), p, 2);
  (void)i;
}
