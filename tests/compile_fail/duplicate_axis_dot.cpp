// expect: duplicate axis name: an array or expression names the same axis twice
// expect: require_unique_axes<nax::axes<in, in> ?>
// dot naming its contracted axis twice.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  nax::Array<float, in, out> w({3, 2});
  auto y = nax::dot<in, in>(x, w);  // in twice
  (void)y;
}
