// expect: nax: axis not found
// expect: steps
// sort along an axis the array does not have.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(steps);

int main() {
  nax::Array<float, batch> x({3});
  auto s = nax::argsort<steps>(x);
  (void)s;
}
