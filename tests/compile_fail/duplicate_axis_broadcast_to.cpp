// expect: duplicate axis name: an array or expression names the same axis twice
// expect: require_unique_axes<nax::axes<batch, in, batch> ?>
// broadcast_to a list of axes naming one axis twice.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto b = nax::broadcast_to<batch, in, batch>(x, {4, 3, 4});  // batch twice
  (void)b;
}
