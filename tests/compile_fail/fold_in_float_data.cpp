// expect: nax::random::fold_in: data must be an integer
// fold_in of float data (step numbers kept as floats) into a key.
#include <nax/nax.hpp>

NAX_AXIS(step);

int main() {
  nax::Array<float, step> steps({4});
  auto keys = nax::random::fold_in(nax::random::key(0), steps);
  (void)keys;
}
