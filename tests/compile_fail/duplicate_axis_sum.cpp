// expect: duplicate axis name: an array or expression names the same axis twice
// expect: require_unique_axes<nax::axes<in, in> ?>
// A reduction naming the same axis twice.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto s = nax::sum<in, in>(x);  // in twice
  (void)s;
}
